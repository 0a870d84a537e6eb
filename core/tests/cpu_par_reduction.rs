//! `atomic-privatize` on the cpu-par backend (core/src/opt/atomic_privatize.rs,
//! core/src/cpu/codegen/par_atomics.rs): integer atomic-adds that only count become
//! per-chunk sums added once per chunk. Totals must equal the serial ones (hand-computed
//! here, and the interpreter's on random programs), on every thread count, also when an
//! iteration fails: the error is the one the serial order meets first and, on one
//! thread, the counts hold exactly what the serial loop had added when it stopped.
#![allow(clippy::result_large_err)] // VrError, the crate's error type, is large by design

use velociraptor::cpu::{self, CompiledModule, CpuOptions};
use velociraptor::interp;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::error::VrError;
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::ast::Module;
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

const THREADS: [usize; 4] = [1, 2, 3, 8];

fn compile(m: &Module, threads: usize, privatize: bool) -> CompiledModule {
    cpu::compile_with(
        m,
        CpuOptions {
            parallel: true,
            threads: Some(threads),
            privatize_atomics: privatize,
            ..CpuOptions::default()
        },
    )
    .expect("compiles")
}

/// The `atomics_privatized` counter of the optimizer on `m`.
fn privatized(m: &Module) -> u64 {
    let (_, stats) = optimize(m, &OptOptions::all()).expect("optimizes");
    stats.total("atomic-privatize", "atomics_privatized")
}

fn i64s(v: &Value) -> Vec<i64> {
    match v {
        Value::Array(a) => a.elements().iter().map(|s| s.as_i64().unwrap()).collect(),
        other => panic!("not an array: {other:?}"),
    }
}

fn scalar(v: &Value) -> i64 {
    match v {
        Value::Scalar(s) => s.as_i64().unwrap(),
        other => panic!("not a scalar: {other:?}"),
    }
}

fn int(n: i64) -> Value {
    Value::Scalar(Scalar::I64(n))
}

fn i64_vector(xs: &[i64]) -> Value {
    let elems: Vec<Scalar> = xs.iter().map(|x| Scalar::I64(*x)).collect();
    Value::Array(Array::from_logical(
        ArrayType::new(ScalarType::I64, 1, Layout::Row),
        vec![xs.len()],
        &elems,
    ))
}

/// Deep copies (each run writes into its own arrays).
fn fresh(args: &[Value]) -> Vec<Value> {
    args.iter()
        .map(|v| match v {
            Value::Array(a) => Value::Array(a.copy_as(a.ty.layout)),
            other => other.clone(),
        })
        .collect()
}

/// The fields of an error the backends must agree on.
fn fields(e: &VrError) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        e.kind, e.function, e.line, e.variable, e.index, e.bound, e.dim
    )
}

/// growcut's shape: a count of changes per column, one atomic-add per cell (into an
/// array local), its old value assigned to a dead variable.
const COUNT_CHANGES: &str = "(module m :index-base 0
  (function f ((w i64) (h i64)) (i64 i64)
    (locals (changes i64[1,row]) (small i32[1,row]) (i i64) (j i64) (c i64) (old i64) (o32 i32))
    (set changes (zeros i64[1,row] 2))
    (set small (zeros i32[1,row] 1))
    (parfor (j) (range 0 (- w 1))
      (block
        (for (i) (range 0 (- h 1))
          (block
            (set c 0)
            (if (== (mod (+ i j) 3) 0) (block (set c (+ c 1))))
            (if (== (mod (* i j) 5) 1) (block (set c (+ c 2))))
            (set old (atomic-add changes 0 :value c))
            (if (> c 1) (block (expr (atomic-add changes 1 :value 1))))
            (set o32 (atomic-add small 0 :value (cast i32 c)))))))
    (return (index changes 0) (+ (index changes 1) (cast i64 (index small 0))))))";

fn count_changes_by_hand(w: i64, h: i64) -> (i64, i64) {
    let (mut total, mut big, mut small) = (0i64, 0i64, 0i32);
    for j in 0..w {
        for i in 0..h {
            let mut c = 0;
            if (i + j) % 3 == 0 {
                c += 1;
            }
            if (i * j) % 5 == 1 {
                c += 2;
            }
            total += c;
            if c > 1 {
                big += 1;
            }
            small = small.wrapping_add(c as i32);
        }
    }
    (total, big + small as i64)
}

#[test]
fn counts_kept_per_chunk_equal_the_serial_totals() {
    let m = parse_module(COUNT_CHANGES).expect("parses");
    assert_eq!(privatized(&m), 3, "every site of the kernel qualifies");
    let (optimized, _) = optimize(&m, &OptOptions::all()).expect("optimizes");
    let (w, h) = (517, 389);
    let (total, rest) = count_changes_by_hand(w, h);
    for t in THREADS {
        for privatize in [true, false] {
            let r = compile(&optimized, t, privatize)
                .call("f", vec![int(w), int(h)])
                .unwrap();
            assert_eq!(scalar(&r[0]), total, "{t} threads, privatized {privatize}");
            assert_eq!(scalar(&r[1]), rest, "{t} threads, privatized {privatize}");
        }
    }
}

#[test]
fn the_bench_kernel_privatizes_its_count() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench/kernels/growcut.vrir"
    ))
    .expect("bench kernel");
    // One site, in both copies of the nest `bce-version` makes (checks on and off).
    assert_eq!(privatized(&parse_module(&src).expect("parses")), 2);
}

/// Counts into an array parameter (visible to the caller after an error); iteration
/// `fail` fails after it has counted, with a second count after the failure point. The
/// parameter is `:restrict`: otherwise the caller could hand the same array as `out`,
/// whose writes would then touch the counts, and nothing is privatized.
const FAILING: &str = "(module m :index-base 0
  (function f ((n i64) (fail i64) (counts i64[1,row] :restrict) (out i64[1,row])) ()
    (locals (i i64) (k i64))
    (set k 1)
    (parfor (i) (range 0 (- n 1))
      (block
        (expr (atomic-add counts 0 :value (+ i 1)))
        (set (index out (+ i (* (cast i64 (== i fail)) (- n i)))) i)
        (expr (atomic-add counts k :value 1))))))";

/// The index written is i, or n (out of bounds) at iteration `fail`.
fn failing_module() -> Module {
    parse_module(FAILING).expect("parses")
}

#[test]
fn a_failing_iteration_reports_the_serial_error_and_keeps_the_counts_before_it() {
    let m = failing_module();
    assert_eq!(privatized(&m), 2);
    let (n, fail) = (100_000i64, 61_234i64);
    let args = vec![
        int(n),
        int(fail),
        i64_vector(&[0, 0]),
        i64_vector(&vec![0; n as usize]),
    ];
    let serial_args = fresh(&args);
    let want = interp::run(&m, "f", serial_args.clone()).unwrap_err();
    // The serial loop stopped in iteration `fail` after its first count.
    let serial_counts = i64s(&serial_args[2]);
    assert_eq!(serial_counts, vec![(fail + 1) * (fail + 2) / 2, fail]);
    for t in THREADS {
        let run_args = fresh(&args);
        let e = compile(&m, t, true)
            .call("f", run_args.clone())
            .unwrap_err();
        assert_eq!(fields(&e), fields(&want), "{t} threads: {e}");
        let counts = i64s(&run_args[2]);
        if t == 1 {
            // One chunk, in order: exactly the serial counts, the failing iteration's
            // partial count included (added on the error exit).
            assert_eq!(counts, serial_counts, "1 thread");
        } else {
            // Iterations after the failing one may have run (and counted).
            assert!(
                counts[0] >= serial_counts[0] && counts[1] >= serial_counts[1],
                "{t} threads: {counts:?}"
            );
        }
    }
}

#[test]
fn counts_before_the_failure_are_all_there_on_every_thread_count() {
    // Only iterations up to the failing one count: every chunk before the failing one
    // completes and the failing chunk adds what it counted before stopping, so the
    // total is the serial one whatever ran after.
    let src = "(module m :index-base 0
      (function f ((n i64) (fail i64) (counts i64[1,row] :restrict) (out i64[1,row])) ()
        (locals (i i64))
        (parfor (i) (range 0 (- n 1))
          (block
            (expr (atomic-add counts 0 :value (* (cast i64 (<= i fail)) (+ i 1))))
            (set (index out (+ i (* (cast i64 (== i fail)) (- n i)))) i)))))";
    let m = parse_module(src).expect("parses");
    assert_eq!(privatized(&m), 1);
    let (n, fail) = (200_003i64, 150_001i64);
    for t in THREADS {
        let args = vec![
            int(n),
            int(fail),
            i64_vector(&[0]),
            i64_vector(&vec![0; n as usize]),
        ];
        let e = compile(&m, t, true).call("f", args.clone()).unwrap_err();
        assert_eq!(e.index, Some(n), "{t} threads: {e}");
        assert_eq!(
            i64s(&args[2]),
            vec![(fail + 1) * (fail + 2) / 2],
            "{t} threads"
        );
    }
}

#[test]
fn reads_of_the_target_keep_the_atomics() {
    // The body reads the counted array (a running count): nothing is privatized, and
    // the result is whatever the atomics give (here: only the final total is compared).
    let src = "(module m :index-base 0
      (function f ((n i64)) (i64)
        (locals (c i64[1,row]) (seen i64[1,row]) (i i64) (old i64))
        (set c (zeros i64[1,row] 1))
        (set seen (zeros i64[1,row] n))
        (parfor (i) (range 0 (- n 1))
          (block
            (set old (atomic-add c 0 :value 1))
            (set (index seen i) (index c 0))))
        (return (index c 0))))";
    let m = parse_module(src).expect("parses");
    assert_eq!(privatized(&m), 0);
    for t in THREADS {
        let r = compile(&m, t, true).call("f", vec![int(10_000)]).unwrap();
        assert_eq!(scalar(&r[0]), 10_000);
    }
}

/// A small deterministic generator (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random counting body: atomic-adds of random values (large ones wrap) into fixed
/// elements of `cnt` (constant or invariant indices) under conditions and inner loops,
/// element writes of `out`, and sometimes one iteration that fails.
fn random_program(r: &mut Lcg) -> String {
    fn value(r: &mut Lcg) -> String {
        match r.below(6) {
            0 => "i".into(),
            1 => "1".into(),
            2 => "(* i 3)".into(),
            3 => "(index w (mod i 7))".into(),
            4 => "(* i 4611686018427387904)".into(), // wraps
            _ => "(- 0 (+ i j))".into(),
        }
    }
    fn stmts(r: &mut Lcg, depth: u32, out: &mut String) {
        let n = 1 + r.below(3);
        for _ in 0..n {
            let idx = ["0", "1", "k"][r.below(3) as usize];
            match r.below(if depth < 2 { 6 } else { 3 }) {
                0 => out.push_str(&format!(
                    "(set old (atomic-add cnt {idx} :value {}))",
                    value(r)
                )),
                1 => out.push_str(&format!(
                    "(expr (atomic-add cnt {idx} :value {}))",
                    value(r)
                )),
                2 => out.push_str(&format!(
                    "(set (index out i) (+ (index out i) {}))",
                    value(r)
                )),
                3 => {
                    out.push_str(&format!(
                        "(if (> (mod i {}) {}) (block ",
                        2 + r.below(5),
                        r.below(3)
                    ));
                    stmts(r, depth + 1, out);
                    out.push_str("))");
                }
                4 => {
                    out.push_str("(for (j) (range 0 (mod i 4)) (block ");
                    stmts(r, depth + 1, out);
                    out.push_str("))");
                }
                _ => out.push_str("(set v (+ v 1))"),
            }
        }
    }
    let mut body = String::new();
    body.push_str("(set j 0) (set v 0)");
    stmts(r, 0, &mut body);
    // Sometimes an iteration fails (writes past out's end), in the middle of the body.
    if r.below(3) == 0 {
        body.push_str("(if (== i fail) (block (set (index out (+ n 3)) 0)))");
        stmts(r, 1, &mut body);
    }
    format!(
        "(module m :index-base 0
  (function f ((n i64) (fail i64) (w i64[1,row]) (cnt i64[1,row] :restrict) (out i64[1,row])) ()
    (locals (i i64) (j i64) (k i64) (v i64) (old i64))
    (set k 2)
    (parfor (i) (range 0 (- n 1)) (block {body}))))"
    )
}

#[test]
fn random_counting_loops_match_the_interpreter() {
    let mut r = Lcg(0x5eed_1234);
    let (mut sites, mut failures) = (0u64, 0u32);
    for case in 0..40 {
        let src = random_program(&mut r);
        let m = parse_module(&src).unwrap_or_else(|e| panic!("case {case}: {e}\n{src}"));
        velociraptor::vrir::verify::verify_module(&m)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{src}"));
        sites += privatized(&m);
        let (optimized, _) = optimize(&m, &OptOptions::all()).expect("optimizes");
        let n = 20_000 + r.below(5000) as i64;
        let fail = r.below(n as u64) as i64;
        let w: Vec<i64> = (0..7).map(|k| k * 1_000_003 - 3).collect();
        let args = vec![
            int(n),
            int(fail),
            i64_vector(&w),
            i64_vector(&[0, 0, 0]),
            i64_vector(&vec![0; n as usize]),
        ];
        let serial = fresh(&args);
        let want = interp::run(&m, "f", serial.clone());
        failures += want.is_err() as u32;
        for t in THREADS {
            let got_args = fresh(&args);
            let got = compile(&optimized, t, true).call("f", got_args.clone());
            match (&want, &got) {
                (Ok(_), Ok(_)) => {
                    assert_eq!(
                        i64s(&got_args[3]),
                        i64s(&serial[3]),
                        "case {case}, {t} threads\n{src}"
                    );
                    assert_eq!(
                        i64s(&got_args[4]),
                        i64s(&serial[4]),
                        "case {case}, {t} threads\n{src}"
                    );
                }
                (Err(a), Err(b)) => {
                    assert_eq!(fields(b), fields(a), "case {case}, {t} threads\n{src}");
                    if t == 1 {
                        assert_eq!(
                            i64s(&got_args[3]),
                            i64s(&serial[3]),
                            "case {case}, 1 thread\n{src}"
                        );
                    }
                }
                _ => panic!("case {case}, {t} threads: {want:?} vs {got:?}\n{src}"),
            }
        }
    }
    // The generator really exercises the pass, and failures.
    eprintln!("{sites} sites privatized, {failures} failing cases");
    assert!(sites >= 40, "only {sites} sites privatized");
    assert!(failures >= 5, "only {failures} failing cases");
}
