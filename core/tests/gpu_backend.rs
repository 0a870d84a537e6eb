//! The `gpu` backend end to end (on PoCL in CI, on whatever OpenCL device the machine
//! has, or on the CPU without one): results and errors equal the interpreter's, field for
//! field; kernels really launch where there is a device; programs are built once per
//! process; a machine without OpenCL gives the CPU's results (the `vr` binary with
//! `OCL_ICD_VENDORS` pointing at an empty folder).
//!
//! Expected values are hand-computed; the interpreter is compared only for errors'
//! fields (the same error, worded the same way).

#![allow(clippy::result_large_err, clippy::type_complexity)]

use std::sync::atomic::Ordering;
use velociraptor::backend::{self, Backend};

/// Tests that read the process-wide counters must not overlap with others' launches.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn run(
    src: &str,
    func: &str,
    args: &str,
    b: Backend,
) -> Result<serde_json::Value, velociraptor::VrError> {
    let m = backend::load(src).unwrap();
    let f = backend::lookup(&m, func).unwrap();
    let args = backend::args_from_json(f, &serde_json::from_str(args).unwrap()).unwrap();
    backend::execute(b, &m, func, args).map(|r| backend::results_to_json(&r))
}

/// Array values as plain nested data (`{"data": ...}` -> its data), for short expectations.
fn plain(v: serde_json::Value) -> String {
    fn strip(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(mut m) if m.contains_key("data") => m.remove("data").unwrap(),
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(strip).collect())
            }
            other => other,
        }
    }
    strip(v).to_string()
}

fn launches() -> u64 {
    velociraptor::gpu::engine::counters()
        .launches
        .load(Ordering::Relaxed)
}

fn have_device() -> bool {
    velociraptor::gpu::device().is_ok()
}

/// Two parfors in one section, the second reading what the first wrote, then CPU control
/// flow reading a section result (a `while` over an element the kernels update).
const STEPS: &str = r#"
(module steps :index-base 0
  (function f ((x f64[1,row]) (limit f64)) (f64[1,row] i64)
    (locals (y f64[1,row]) (i i64) (rounds i64))
    (set rounds 0)
    (gpu
      (set y (zeros f64[1,row] (len x)))
      (while (< (index x 0) limit)
        (block
          (parfor (i) (range 0 (- (len x) 1))
            (block (set (index y i) (+ (index x i) 1.0))))
          (parfor (i) (range 0 (- (len x) 1))
            (block (set (index x i) (* (index y i) 2.0))))
          (set rounds (+ rounds 1)))))
    (return x rounds)))
"#;

#[test]
fn a_section_result_read_by_cpu_control_flow() {
    let _serial = serial();
    let before = launches();
    // x0 = 1: (1+1)*2 = 4, (4+1)*2 = 10, (10+1)*2 = 22 >= 20 after 3 rounds.
    // x1 = 0: (0+1)*2 = 2, (2+1)*2 = 6, (6+1)*2 = 14.
    let got = run(STEPS, "f", "[[1.0, 0.0], 20.0]", Backend::Gpu).unwrap();
    assert_eq!(plain(got), "[[22.0,14.0],3]");
    if have_device() {
        assert_eq!(launches() - before, 6, "two kernels per round");
    }
}

/// Two views of one array, each written by its own kernel, in one section.
const VIEWS: &str = r#"
(module views :index-base 0
  (function f ((a f64[1,row])) (f64[1,row])
    (locals (lo f64[1,strided]) (hi f64[1,strided]) (i i64) (n i64))
    (gpu
      (set n (/ (len a) 2))
      (set lo (index a (range 0 (- n 1)) :view))
      (set hi (index a (range n (- (len a) 1)) :view))
      (parfor (i) (range 0 (- n 1))
        (block (set (index lo i) (+ (index lo i) 100.0))))
      (parfor (i) (range 0 (- n 1))
        (block (set (index hi i) (* (index hi i) -1.0)))))
    (return a)))
"#;

#[test]
fn two_views_of_one_array_written_by_two_kernels() {
    let _serial = serial();
    let got = run(VIEWS, "f", "[[1.0, 2.0, 3.0, 4.0]]", Backend::Gpu).unwrap();
    assert_eq!(plain(got), "[101.0,102.0,-3.0,-4.0]");
}

/// Errors of several failing iterations: the lowest one is reported, with every field.
const OOB: &str = r#"
(module oob :index-base 1
  (function g ((a f64[1,row]) (k i64)) (f64)
    (locals (i i64) (s f64))
    (gpu
      (parfor (i) (range 1 10)
        (block
          (set (index a (+ i k)) 1.0))))
    (set s (index a 1))
    (return s)))
"#;

#[test]
fn kernel_errors_arrive_with_the_interpreters_fields() {
    let _serial = serial();
    // a has 8 elements; i + 2 > 8 for i = 7..10: iteration 7 fails first.
    let args = "[[0,0,0,0,0,0,0,0], 2]";
    let want = run(OOB, "g", args, Backend::Interp).unwrap_err();
    let got = run(OOB, "g", args, Backend::Gpu).unwrap_err();
    assert_eq!(got.kind, want.kind);
    assert_eq!(got.message, want.message);
    assert_eq!(
        got.message,
        "a[9]: index 9 out of bounds 1..9 in dimension 0"
    );
    assert_eq!(
        (
            got.function.as_deref(),
            got.line,
            got.variable.as_deref(),
            got.index,
            got.bound,
            got.dim
        ),
        (
            want.function.as_deref(),
            want.line,
            want.variable.as_deref(),
            want.index,
            want.bound,
            want.dim
        )
    );
    assert_eq!((got.index, got.bound), (Some(9), Some(8)));
}

const DIV: &str = r#"
(module div :index-base 0
  (function h ((a i64[1,row]) (b i64[1,row])) (i64[1,row])
    (locals (i i64) (c i64[1,row]))
    (set c (zeros i64[1,row] (len a)))
    (gpu
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index c i) (idiv (index a i) (index b i)))))
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index c i) (cast i64 (cast f64 (index c i)))))))
    (return c)))
"#;

#[test]
fn integer_rules_and_division_by_zero_in_kernels() {
    let _serial = serial();
    // Floor division, MIN / -1 wrapping.
    let got = run(
        DIV,
        "h",
        "[[7, -7, 7, -9223372036854775808], [2, 2, -2, -1]]",
        Backend::Gpu,
    )
    .unwrap();
    assert_eq!(plain(got), "[3,-4,-4,-9223372036854775808]");
    let want = run(DIV, "h", "[[1, 2, 3], [1, 0, 0]]", Backend::Interp).unwrap_err();
    let e = run(DIV, "h", "[[1, 2, 3], [1, 0, 0]]", Backend::Gpu).unwrap_err();
    assert_eq!(e.to_string(), want.to_string());
    assert_eq!(e.message, "division by zero");
    assert_eq!(e.function.as_deref(), Some("h"));
}

const CAST: &str = r#"
(module cast :index-base 0
  (function k ((a f64[1,row])) (i32[1,row])
    (locals (i i64) (c i32[1,row]))
    (set c (zeros i32[1,row] (len a)))
    (gpu
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index c i) (cast i32 (index a i))))))
    (return c)))
"#;

#[test]
fn failed_casts_in_kernels_are_errors() {
    let _serial = serial();
    assert_eq!(
        plain(run(CAST, "k", "[[1.9, -2.9, 0.0]]", Backend::Gpu).unwrap()),
        "[1,-2,0]"
    );
    let want = run(CAST, "k", "[[1.0, \"nan\", 3e10]]", Backend::Interp).unwrap_err();
    let got = run(CAST, "k", "[[1.0, \"nan\", 3e10]]", Backend::Gpu).unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
    assert!(
        got.message
            .contains("invalid cast: f64 value NaN does not fit i32"),
        "{got}"
    );
}

/// `b = copy(a)` in a section, then a kernel writing `a`: `b` keeps `a`'s old values.
const COPY: &str = r#"
(module copy :index-base 0
  (function c ((a f64[1,row])) (f64[1,row] f64[1,row])
    (locals (b f64[1,row]) (i i64))
    (gpu
      (set b (copy a))
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index a i) (+ (index b i) 10.0)))))
    (return a b)))
"#;

#[test]
fn copy_on_potential_write_keeps_the_copy() {
    let _serial = serial();
    let got = run(COPY, "c", "[[1.0, 2.0]]", Backend::Gpu).unwrap();
    assert_eq!(plain(got), "[[11.0,12.0],[1.0,2.0]]");
}

#[test]
fn programs_are_built_once_per_process() {
    let _serial = serial();
    if !have_device() {
        return;
    }
    let gpu = velociraptor::gpu::opencl::gpu().unwrap();
    run(VIEWS, "f", "[[1.0, 2.0]]", Backend::Gpu).unwrap();
    let builds = gpu.builds();
    for _ in 0..3 {
        run(VIEWS, "f", "[[5.0, 6.0, 7.0, 8.0]]", Backend::Gpu).unwrap();
    }
    assert_eq!(
        gpu.builds(),
        builds,
        "the second and later runs reuse the programs"
    );
}

#[test]
fn without_opencl_the_cpu_gives_the_same_results_and_says_why() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("steps.vrir");
    std::fs::write(&file, STEPS).unwrap();
    let empty = dir.path().join("no-icd");
    std::fs::create_dir(&empty).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vr"))
        .args([
            "run",
            file.to_str().unwrap(),
            "f",
            "--args",
            "[[1.0, 0.0], 20.0]",
            "--backend",
            "gpu",
        ])
        .env("OCL_ICD_VENDORS", &empty)
        .env("OCL_ICD_FILENAMES", "")
        .env_remove("VR_OPENCL_DEVICE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let got: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(plain(got), "[[22.0,14.0],3]");
    assert!(stderr.contains("no OpenCL device"), "{stderr}");
    assert!(stderr.contains("0 kernel launches"), "{stderr}");
}

#[test]
fn values_cross_unchanged() {
    let _serial = serial();
    // A scalar f32 and bool through a kernel, and an i32 array.
    let src = r#"
(module scal :index-base 0
  (function s ((a f32[1,row]) (w f32) (flag bool) (n i32[1,row])) (f32[1,row] i32[1,row])
    (locals (i i64))
    (gpu
      (parfor (i) (range 0 (- (len a) 1))
        (block
          (if flag
            (block (set (index a i) (/ (index a i) w)))
            (block (set (index a i) 0.0:f32)))
          (set (index n i) (* (index n i) 2147483647:i32)))))
    (return a n)))
"#;
    let got = run(
        src,
        "s",
        "[[1.0, 2.0, 3.0], 3.0, true, [1, 2, 3]]",
        Backend::Gpu,
    )
    .unwrap();
    let want_a: Vec<f32> = [1.0f32, 2.0, 3.0].iter().map(|x| x / 3.0).collect();
    let want_n: Vec<i32> = [1i32, 2, 3]
        .iter()
        .map(|x| x.wrapping_mul(2147483647))
        .collect();
    let a: Vec<f32> = got[0]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(a, want_a, "f32 division is correctly rounded");
    assert_eq!(got[1]["data"], serde_json::json!(want_n));
}

/// The documented bound on OpenCL's transcendental functions (docs/gpu.md,
/// docs/vrir-semantics.md): within 4 ulp of the CPU's libm in f64 (`pow`: 16), over a
/// spread of arguments. `sqrt` and the arithmetic are exact (0 ulp).
#[test]
fn opencl_math_stays_within_the_documented_ulp_bounds() {
    let _serial = serial();
    let funcs: [(&str, fn(f64) -> f64, u64); 13] = [
        ("exp", f64::exp, 4),
        ("log", f64::ln, 4),
        ("log10", f64::log10, 4),
        ("sin", f64::sin, 4),
        ("cos", f64::cos, 4),
        ("tan", f64::tan, 4),
        ("asin", f64::asin, 4),
        ("acos", f64::acos, 4),
        ("atan", f64::atan, 4),
        ("sinh", f64::sinh, 4),
        ("cosh", f64::cosh, 4),
        ("tanh", f64::tanh, 4),
        ("sqrt", f64::sqrt, 0),
    ];
    let xs: Vec<f64> = (0..400)
        .map(|k| -0.999 + 1.998 * (k as f64) / 399.0)
        .collect();
    let ys: Vec<f64> = (0..400)
        .map(|k| 0.001 + 20.0 * (k as f64) / 399.0)
        .collect();
    let ulps = |a: f64, b: f64| -> u64 {
        if a == b || (a.is_nan() && b.is_nan()) {
            0
        } else {
            (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
        }
    };
    for (name, f, bound) in funcs {
        // Domains: asin/acos on (-1, 1), log/log10/sqrt on positive values.
        let args = if matches!(name, "log" | "log10" | "sqrt") {
            &ys
        } else {
            &xs
        };
        let src = format!(
            "(module m :index-base 0
  (function f ((x f64[1,row])) (f64[1,row])
    (locals (i i64))
    (gpu
      (parfor (i) (range 0 (- (len x) 1))
        (block (set (index x i) ({name} (index x i))))))
    (return x)))"
        );
        let got = run(
            &src,
            "f",
            &serde_json::json!([args]).to_string(),
            Backend::Gpu,
        )
        .unwrap();
        let got: Vec<f64> = got["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let worst = args
            .iter()
            .zip(&got)
            .map(|(x, g)| ulps(f(*x), *g))
            .max()
            .unwrap();
        assert!(
            worst <= bound,
            "{name}: {worst} ulp from libm (bound {bound})"
        );
    }
    let src = "(module m :index-base 0
  (function f ((x f64[1,row]) (y f64[1,row])) (f64[1,row])
    (locals (i i64))
    (gpu
      (parfor (i) (range 0 (- (len x) 1))
        (block (set (index x i) (pow (index x i) (index y i))))))
    (return x)))";
    let bases: Vec<f64> = ys.iter().map(|y| y / 4.0).collect();
    let exps: Vec<f64> = xs.iter().map(|x| x * 7.0).collect();
    let got = run(
        src,
        "f",
        &serde_json::json!([bases, exps]).to_string(),
        Backend::Gpu,
    )
    .unwrap();
    let got: Vec<f64> = got["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let worst = bases
        .iter()
        .zip(&exps)
        .zip(&got)
        .map(|((b, e), g)| ulps(b.powf(*e), *g))
        .max()
        .unwrap();
    assert!(worst <= 16, "pow: {worst} ulp from libm (bound 16)");
}

/// A module function called from a kernel, with an error inside it: the callee's name
/// and line, the lowest failing iteration.
#[test]
fn calls_from_kernels_and_their_errors() {
    let _serial = serial();
    let src = r#"
(module calls :index-base 0
  (function sq ((v i64) (d i64)) (i64)
    (return (idiv (* v v) d)))
  (function f ((a i64[1,row]) (d i64[1,row])) (i64[1,row])
    (locals (i i64))
    (gpu
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index a i) (call sq (index a i) (index d i))))))
    (return a)))
"#;
    let got = run(src, "f", "[[3, -5, 7], [2, 2, 1]]", Backend::Gpu).unwrap();
    assert_eq!(plain(got), "[4,12,49]");
    let args = "[[1, 2, 3, 4], [1, 0, 1, 0]]";
    let want = run(src, "f", args, Backend::Interp).unwrap_err();
    let got = run(src, "f", args, Backend::Gpu).unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
    assert_eq!(got.function.as_deref(), Some("sq"));
}
