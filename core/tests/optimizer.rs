//! The optimizer never changes what a program does, errors included: when loop
//! versioning's test fails, the checked copy of the nest runs and raises exactly the
//! error the interpreter raises on the unoptimized module (kind, function, line,
//! variable, index, extent, dimension), after the same writes into the arguments.

use velociraptor::backend::{execute, load, Backend};
use velociraptor::opt::{optimize, with_options, OptOptions};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::text::parse_module;
use velociraptor::{ErrorKind, VrError};

fn value(json: &str, ty: &str) -> Value {
    let ty = velociraptor::vrir::text::parse_type(ty).unwrap();
    Value::from_json(&serde_json::from_str(json).unwrap(), &ty).unwrap()
}

/// Run `func` on fresh arguments; the error and the arguments as the call left them.
fn fails(
    backend: Backend,
    src: &str,
    func: &str,
    args: &[(&str, &str)],
    opts: Option<OptOptions>,
) -> (VrError, Vec<String>) {
    let m = load(src).unwrap();
    let values: Vec<Value> = args.iter().map(|(j, t)| value(j, t)).collect();
    let after = values.clone();
    let run = || execute(backend, &m, func, values);
    let result = match opts {
        Some(o) => with_options(o, run),
        None => run(),
    };
    let err = result.expect_err("the call must fail");
    (err, after.iter().map(|v| v.to_json().to_string()).collect())
}

/// The error and the writes before it agree on the unoptimized interpreter, the
/// optimized interpreter and the optimized cpu backend; the module really is versioned.
fn same_error_everywhere(src: &str, func: &str, args: &[(&str, &str)]) -> VrError {
    let m = parse_module(src).unwrap();
    let (_, stats) = optimize(&m, &OptOptions::all()).unwrap();
    assert!(
        stats.total("bce-version", "loops_versioned") >= 1,
        "nothing was versioned:\n{stats}"
    );
    let (oracle, oracle_after) = fails(Backend::Interp, src, func, args, None);
    assert_eq!(oracle.kind, ErrorKind::OutOfBounds, "{oracle}");
    let (opt_interp, opt_interp_after) =
        fails(Backend::Interp, src, func, args, Some(OptOptions::all()));
    assert_eq!(opt_interp, oracle);
    assert_eq!(opt_interp_after, oracle_after);
    let (cpu, cpu_after) = fails(Backend::Cpu, src, func, args, Some(OptOptions::all()));
    assert_eq!(cpu, oracle, "cpu: {cpu}\ninterp: {oracle}");
    assert_eq!(cpu_after, oracle_after);
    oracle
}

#[test]
fn a_loop_running_past_the_end_fails_where_the_interpreter_does() {
    let src = "(module m :index-base 0
      (function double ((a f64[1,row]) (out f64[1,row]) (n i64)) ()
        (locals (i i64))
        (for (i) (range 0 n)
          (block
            (set (index out i) (* 2.0 (index a i)) :line 7)))))";
    let e = same_error_everywhere(
        src,
        "double",
        &[
            ("[1.0, 2.0, 3.0, 4.0]", "f64[1,row]"),
            ("[0.0, 0.0, 0.0]", "f64[1,row]"),
            ("3", "i64"),
        ],
    );
    // out has 3 elements: out[3] fails after out[0..2] were written.
    assert_eq!(
        (e.function.as_deref(), e.line, e.variable.as_deref()),
        (Some("double"), Some(7), Some("out"))
    );
    assert_eq!((e.index, e.bound), (Some(3), Some(3)));
}

#[test]
fn a_one_based_column_major_nest_fails_in_its_inner_loop() {
    let src = "(module m :index-base 1
      (function fill ((a i64[2,col]) (rows i64) (cols i64)) ()
        (locals (i i64) (j i64))
        (for (j) (range 1 cols)
          (block
            (for (i) (range 1 rows)
              (block (set (index a i j) (+ (* 10 i) j) :line 3)))))))";
    let e = same_error_everywhere(
        src,
        "fill",
        &[
            ("[[0, 0, 0], [0, 0, 0]]", "i64[2,col]"),
            ("2", "i64"),
            ("4", "i64"),
        ],
    );
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound, e.line),
        (Some("a"), Some(4), Some(3), Some(3))
    );
}

#[test]
fn a_negative_step_fails_at_its_first_iteration() {
    let src = "(module m :index-base 0
      (function rev ((a i64[1,row]) (out i64[1,row]) (n i64)) ()
        (locals (i i64))
        (for (i) (range n 0 -1)
          (block (set (index out (- n i)) (index a i) :line 2)))))";
    let e = same_error_everywhere(
        src,
        "rev",
        &[
            ("[1, 2, 3]", "i64[1,row]"),
            ("[0, 0, 0, 0]", "i64[1,row]"),
            ("3", "i64"),
        ],
    );
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound),
        (Some("a"), Some(3), Some(3))
    );
}

#[test]
fn a_window_nest_with_min_max_bounds_fails_on_its_output() {
    let src = "(module m :index-base 0
      (function window ((a f64[1,row]) (out f64[1,row]) (r i64)) ()
        (locals (i i64) (j i64) (n i64) (s f64))
        (set n (dim a 0))
        (for (i) (range 0 (- n 1))
          (block
            (set s 0.0)
            (for (j) (range (max (- i r) 0) (- (min (+ (+ i r) 1) n) 1))
              (block (set s (+ s (index a j)))))
            (set (index out i) s :line 9)))))";
    let e = same_error_everywhere(
        src,
        "window",
        &[
            ("[1.0, 2.0, 3.0, 4.0]", "f64[1,row]"),
            ("[0.0, 0.0]", "f64[1,row]"),
            ("1", "i64"),
        ],
    );
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound, e.line),
        (Some("out"), Some(2), Some(2), Some(9))
    );
}

fn vr(args: &[&str], passes: Option<&str>) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vr"));
    cmd.args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    match passes {
        Some(p) => cmd.env("VR_PASSES", p),
        None => cmd.env_remove("VR_PASSES"),
    };
    cmd.output().unwrap()
}

#[test]
fn vr_explain_shows_the_optimized_function_and_the_counts() {
    let out = vr(
        &["explain", "bench/kernels/stencil5.vrir", "stencil5"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches(":nocheck").count(), 6, "{text}");
    assert!(
        text.contains(
            "; bce-version on stencil5: checks_removed=6 inner_checks_removed=6 loops_versioned=1"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "; inner-loop bounds checks: 6 as written, 6 removed on the check-free path (100%)"
        ),
        "{text}"
    );
    // The output is a module the text parser reads back (comments and all).
    parse_module(&text).unwrap();

    let off = vr(
        &[
            "explain",
            "bench/kernels/stencil5.vrir",
            "stencil5",
            "--passes",
            "-bce",
        ],
        None,
    );
    let text = String::from_utf8(off.stdout).unwrap();
    assert_eq!(text.matches(":nocheck").count(), 0, "{text}");
    assert!(text.contains("; passes on: seq-ranges, simplify, hoist-scalars, slice-views, recycle-version, fusion, shape-facts, prealloc, reuse, index-arith, licm, hoist-dims, alias-version, atomic-privatize\n"), "{text}");
    let env_off = vr(
        &["explain", "bench/kernels/stencil5.vrir", "stencil5"],
        Some("-bce-version"),
    );
    let text = String::from_utf8(env_off.stdout).unwrap();
    assert!(
        text.contains("; passes on: seq-ranges, simplify, hoist-scalars, slice-views, recycle-version, fusion, shape-facts, prealloc, reuse, index-arith, licm, bce-redundant, hoist-dims, alias-version, atomic-privatize\n"),
        "{text}"
    );
}

#[test]
fn an_unknown_pass_in_vr_passes_is_an_error_naming_the_passes() {
    let out = vr(
        &[
            "run",
            "bench/kernels/stencil5.vrir",
            "stencil5",
            "--backend",
            "cpu",
            "--args",
            "[[[1.0]], [[1.0]]]",
        ],
        Some("-vectorize"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("VR_PASSES: unknown optimizer pass `vectorize`"),
        "{err}"
    );
}

/// The error of a call, with the module as written on the interpreter, optimized on the
/// interpreter and optimized on the cpu backend: all three equal, field for field.
fn same_error_fused(src: &str, args: &[(&str, &str)], pass: &str, counter: &str) -> VrError {
    let m = parse_module(src).unwrap();
    let (_, stats) = optimize(&m, &OptOptions::all()).unwrap();
    assert!(stats.total(pass, counter) >= 1, "{pass} did nothing:\n{stats}");
    let (oracle, oracle_after) = fails(Backend::Interp, src, "f", args, None);
    let (opt_interp, opt_interp_after) =
        fails(Backend::Interp, src, "f", args, Some(OptOptions::all()));
    assert_eq!(opt_interp, oracle);
    assert_eq!(opt_interp_after, oracle_after);
    let (cpu, cpu_after) = fails(Backend::Cpu, src, "f", args, Some(OptOptions::all()));
    assert_eq!(cpu, oracle, "cpu: {cpu}\ninterp: {oracle}");
    assert_eq!(cpu_after, oracle_after);
    oracle
}

#[test]
fn fused_chains_fail_as_the_statements_as_written_do() {
    let chain = "(module m :index-base 0
      (function f ((a i64[1,row]) (b i64[1,row]) (c i64[1,row])) (i64[1,row])
        (locals (t i64[1,row]) (d i64[1,row]))
        (set t (* a 2) :line 3)
        (set d (+ (/ t b) c) :line 4)
        (return d)))";
    let args = |b: &'static str, c: &'static str| {
        [("[4, 6, 8]", "i64[1,row]"), (b, "i64[1,row]"), (c, "i64[1,row]")]
    };
    // Element 1 divides by zero, in the fused loop (line 4, where the division is).
    let e = same_error_fused(chain, &args("[2, 0, 0]", "[1, 1, 1]"), "fusion", "ops_fused");
    assert_eq!((e.kind, e.line), (ErrorKind::DivisionByZero, Some(4)));
    // c's length differs: the statements as written raise the shape error.
    let e = same_error_fused(chain, &args("[2, 2, 2]", "[1, 1]"), "fusion", "ops_fused");
    assert_eq!((e.kind, e.line), (ErrorKind::ShapeMismatch, Some(4)));
    // Both: the division (before the addition) fails first, as written.
    let e = same_error_fused(chain, &args("[2, 0, 2]", "[1, 1]"), "fusion", "ops_fused");
    assert_eq!(e.kind, ErrorKind::DivisionByZero);

    // A float-to-integer cast that fails inside a fused sum.
    let sum = "(module m :index-base 0
      (function f ((a f64[1,row])) (i64)
        (locals (s i64))
        (set s (sum (+ (cast i64[1,row] (* a 2.0)) 1)) :line 5)
        (return s)))";
    let e = same_error_fused(sum, &[("[1.0, 1.0e300, 2.0]", "f64[1,row]")], "fusion", "reductions_fused");
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("invalid cast"), "{e}");
}

#[test]
fn writing_in_place_fails_as_the_assignment_as_written_does() {
    let src = "(module m :index-base 0
      (function f ((a i64[1,row]) (b i64[1,row])) (i64[1,row])
        (locals (c i64[1,row]))
        (set c (+ a 1) :line 3)
        (set c (mod c b) :line 4)
        (return c)))";
    let e = same_error_fused(
        src,
        &[("[5, 6, 7]", "i64[1,row]"), ("[2, 0, 3]", "i64[1,row]")],
        "reuse",
        "buffers_reused",
    );
    assert_eq!((e.kind, e.line), (ErrorKind::DivisionByZero, Some(4)));
    let e = same_error_fused(
        src,
        &[("[5, 6, 7]", "i64[1,row]"), ("[2, 3]", "i64[1,row]")],
        "reuse",
        "buffers_reused",
    );
    assert_eq!((e.kind, e.line), (ErrorKind::ShapeMismatch, Some(4)));
}

/// The shape the R front end gives `for (j in 2L:(n - 1L)) for (i in 2L:(m - 1L))
/// b[i, j] <- a[i, j - 1L] + a[i + 1L, j]` (bounds passed in, `m - 1L` as `_t2`).
const R_NEST: &str = "(module m :index-base 1
  (function st ((a f64[2,col]) (b f64[2,col]) (m i32) (n i32)) ()
    (locals (i i32) (j i32) (_i1 i64) (_i2 i64) (_t1 i64) (_t2 i64) (_t3 i64) (_t4 i64))
    (set _t1 (- (cast i64 n) 1) :line 2)
    (for (_i1) (range 2 _t1 (- (* 2 (cast i64 (<= 2 _t1))) 1))
      (block
        (set j (cast i32 _i1) :line 2)
        (set _t2 (- (cast i64 m) 1) :line 3)
        (for (_i2) (range 2 _t2 (- (* 2 (cast i64 (<= 2 _t2))) 1))
          (block
            (set i (cast i32 _i2) :line 3)
            (set _t3 (- (cast i64 j) 1) :line 4)
            (if (> _t3 2147483647) (block (expr (call overflow) :line 4)))
            (set _t4 (+ (cast i64 i) 1) :line 4)
            (set (index b i j)
              (+ (index a i (cast i32 _t3)) (index a (cast i32 _t4) j)) :line 4))
          :line 3))
      :line 2))
  (function overflow () (i32) (locals) (return (cast i32 nan))))";

#[test]
fn an_r_nest_with_i32_copies_fails_past_its_rows_where_the_interpreter_does() {
    let three = "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]";
    let zeros = "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]";
    // m = 5: i runs 2..4 and a[i + 1, j] reads row 4 of 3 at i = 3.
    let e = same_error_everywhere(
        R_NEST,
        "st",
        &[
            (three, "f64[2,col]"),
            (zeros, "f64[2,col]"),
            ("5", "i32"),
            ("3", "i32"),
        ],
    );
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound, e.line),
        (Some("a"), Some(4), Some(3), Some(4))
    );
}

#[test]
fn an_r_range_that_counts_down_runs_the_checked_copy() {
    let three = "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]";
    let zeros = "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]";
    // n = 2: R's 2:1 is j = 2, 1 (step -1, which TEST rules out); at j = 1, a[i, 0].
    let e = same_error_everywhere(
        R_NEST,
        "st",
        &[
            (three, "f64[2,col]"),
            (zeros, "f64[2,col]"),
            ("3", "i32"),
            ("2", "i32"),
        ],
    );
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound, e.line),
        (Some("a"), Some(0), Some(3), Some(4))
    );
}
