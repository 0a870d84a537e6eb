//! Library kernels in GPU sections (`gpu/library`): element-wise trees (fused chains as
//! one kernel), whole-array and axis reductions, matmul, transpose, copies and slices run
//! on the OpenCL device (PoCL in CI) with the answers the semantics fix, and errors that
//! are the interpreter's, field for field. Where there is no device, the same programs
//! run on the CPU and only the launch counts are not checked.
//!
//! Expected values are hand-computed, or computed here by the serial loop the semantics
//! define (docs/vrir-semantics.md: reductions fold in storage order, along an axis from
//! index 0 upwards); the interpreter is compared only for errors.

#![allow(clippy::result_large_err)]

use std::sync::atomic::Ordering;
use velociraptor::backend::{self, Backend};

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn run(
    src: &str,
    func: &str,
    args: &serde_json::Value,
    b: Backend,
) -> Result<serde_json::Value, velociraptor::VrError> {
    let m = backend::load(src).unwrap();
    let f = backend::lookup(&m, func).unwrap();
    let args = backend::args_from_json(f, args).unwrap();
    backend::execute(b, &m, func, args).map(|r| backend::results_to_json(&r))
}

fn plain(v: &serde_json::Value) -> String {
    fn strip(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) if m.contains_key("data") => m["data"].clone(),
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(strip).collect())
            }
            other => other.clone(),
        }
    }
    strip(v).to_string()
}

fn counters() -> &'static velociraptor::gpu::engine::Counters {
    velociraptor::gpu::engine::counters()
}

fn launches() -> u64 {
    counters().launches.load(Ordering::Relaxed)
}

fn have_device() -> bool {
    velociraptor::gpu::device().is_ok()
}

fn arr(dtype: &str, shape: &[usize], data: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"data": data, "dtype": dtype, "shape": shape})
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn a_fused_chain_is_one_kernel() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a f64[1,row]) (b f64[1,row]) (s f64)) (f64[1,row] bool[1,row])
    (locals (c f64[1,row]) (d bool[1,row]))
    (gpu
      (set c (+ (* a b) (* (sqrt a) s)))
      (set d (> c 10.0)))
    (return c d)))"#;
    let before = launches();
    let got = run(
        src,
        "f",
        &serde_json::json!([[1.0, 4.0, 9.0], [2.0, 3.0, 4.0], 0.5]),
        Backend::Gpu,
    )
    .unwrap();
    // 1*2 + 1*0.5, 4*3 + 2*0.5, 9*4 + 3*0.5
    assert_eq!(plain(&got), "[[2.5,13.0,37.5],[false,true,true]]");
    if have_device() {
        assert_eq!(
            launches() - before,
            2,
            "the chain of four operations is one kernel, the comparison another"
        );
    }
}

#[test]
fn integer_reductions_wrap_and_split_exactly() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a i32[1,row]) (b i64[2,col])) (i32 i32 i64 i64 i64 i64)
    (locals (s i32) (p i32) (t i64) (q i64) (lo i64) (hi i64))
    (gpu
      (set s (sum a))
      (set p (prod a))
      (set t (sum b))
      (set q (prod b))
      (set lo (amin b))
      (set hi (amax b)))
    (return s p t q lo hi)))"#;
    // 2^31 - 1 + 1 wraps; 3 * 2^30 * 2 wraps to -2^31... computed with wrapping i32.
    let a = [i32::MAX, 1, 3, 1 << 30, 2];
    let s = a.iter().fold(0i32, |x, y| x.wrapping_add(*y));
    let p = a.iter().fold(1i32, |x, y| x.wrapping_mul(*y));
    // 100,000 elements: several reduction stages.
    let n = 100_000i64;
    let b: Vec<i64> = (0..n).map(|k| (k * 7919) % 100_003 - 50_000).collect();
    let t: i64 = b.iter().sum();
    let q = b.iter().map(|x| x | 1).fold(1i64, |x, y| x.wrapping_mul(y));
    let b_odd: Vec<i64> = b.iter().map(|x| x | 1).collect();
    let lo = *b.iter().min().unwrap();
    let hi = *b.iter().max().unwrap();
    // The same values as a 400 x 250 column-major array (nested rows); prod over the
    // odd values (wrapping products are exact in any order).
    let rows = |v: &[i64]| -> Vec<Vec<i64>> { v.chunks(250).map(|r| r.to_vec()).collect() };
    let got = run(
        src,
        "f",
        &serde_json::json!([a, arr("i64", &[400, 250], serde_json::json!(rows(&b)))]),
        Backend::Gpu,
    )
    .unwrap();
    assert_eq!(got[0], serde_json::json!(s));
    assert_eq!(got[1], serde_json::json!(p));
    assert_eq!(got[2], serde_json::json!(t));
    assert_eq!(got[4], serde_json::json!(lo));
    assert_eq!(got[5], serde_json::json!(hi));
    let got = run(
        src,
        "f",
        &serde_json::json!([a, arr("i64", &[400, 250], serde_json::json!(rows(&b_odd)))]),
        Backend::Gpu,
    )
    .unwrap();
    assert_eq!(got[3], serde_json::json!(q));
}

/// Float amin/amax fold in storage order with the cpu backend's rule (`y < x ? y : x`,
/// ties to the earlier element, R's `min(c(0, -0))` is 0): a tree that combines only
/// neighbours keeps that choice between 0.0 and -0.0; NaN propagates.
#[test]
fn float_amin_amax_keep_the_serial_choice() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a f64[1,row])) (f64 f64)
    (locals (lo f64) (hi f64))
    (gpu (set lo (amin a)) (set hi (amax a)))
    (return lo hi)))"#;
    let bits = |v: &serde_json::Value| v.as_f64().map(f64::to_bits);
    let mut xs = vec![1.0f64; 5000];
    xs[1234] = 0.0;
    xs[3000] = -0.0;
    let got = run(src, "f", &serde_json::json!([xs]), Backend::Gpu).unwrap();
    assert_eq!(
        bits(&got[0]),
        Some(0.0f64.to_bits()),
        "the earlier of two equal minima"
    );
    xs[1234] = -0.0;
    xs[3000] = 0.0;
    xs[10] = 7.5;
    let got = run(src, "f", &serde_json::json!([xs]), Backend::Gpu).unwrap();
    assert_eq!(bits(&got[0]), Some((-0.0f64).to_bits()));
    assert_eq!(got[1].as_f64(), Some(7.5));
    let cpu = run(src, "f", &serde_json::json!([xs]), Backend::Cpu).unwrap();
    assert_eq!(
        bits(&cpu[0]),
        bits(&got[0]),
        "the cpu backend's fold chooses the same zero"
    );
    xs[4999] = f64::NAN;
    let mut json = serde_json::json!([xs]);
    json[0][4999] = serde_json::json!("nan");
    let got = run(src, "f", &json, Backend::Gpu).unwrap();
    assert_eq!(got[0], serde_json::json!("nan"));
    assert_eq!(got[1], serde_json::json!("nan"));
}

#[test]
fn float_sums_keep_their_serial_order_on_the_cpu() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a f64[1,row])) (f64)
    (locals (s f64) (b f64[1,row]))
    (gpu
      (set b (* a 3.0))
      (set s (sum b)))
    (return s)))"#;
    let xs: Vec<f64> = (0..1000).map(|k| 1.0 / (k as f64 + 1.0)).collect();
    let want = xs.iter().fold(0.0f64, |s, x| s + x * 3.0);
    let got = run(src, "f", &serde_json::json!([xs]), Backend::Gpu).unwrap();
    assert_eq!(got.as_f64().map(f64::to_bits), Some(want.to_bits()));
    assert!(
        velociraptor::gpu::engine::notes()
            .iter()
            .any(|n| n.contains("sum of f64 keeps its serial order")),
        "{:?}",
        velociraptor::gpu::engine::notes()
    );
}

/// Along an axis each output element folds its lane from index 0 upwards: float sums
/// and means are the serial loop's bits.
#[test]
fn axis_reductions_fold_each_lane_in_order() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a f64[2,col])) (f64[1,col] f64[1,col] f64[1,col] f64[1,col] f64[1,col])
    (locals (s0 f64[1,col]) (s1 f64[1,col]) (m1 f64[1,col]) (lo f64[1,col]) (p0 f64[1,col]))
    (gpu
      (set s0 (sum a :axis 0))
      (set s1 (sum a :axis 1))
      (set m1 (mean a :axis 1))
      (set lo (amin a :axis 0))
      (set p0 (prod a :axis 0)))
    (return s0 s1 m1 lo p0)))"#;
    let (r, c) = (37usize, 23usize);
    let x =
        |i: usize, j: usize| ((i * 31 + j * 17) % 29) as f64 / 7.0 - 1.3 + 1e-9 * (i * j) as f64;
    let data: Vec<Vec<f64>> = (0..r).map(|i| (0..c).map(|j| x(i, j)).collect()).collect();
    let before = launches();
    let got = run(
        src,
        "f",
        &serde_json::json!([arr("f64", &[r, c], serde_json::json!(data))]),
        Backend::Gpu,
    )
    .unwrap();
    let s0: Vec<f64> = (0..c)
        .map(|j| (0..r).fold(0.0, |s, i| s + x(i, j)))
        .collect();
    let s1: Vec<f64> = (0..r)
        .map(|i| (0..c).fold(0.0, |s, j| s + x(i, j)))
        .collect();
    let m1: Vec<f64> = s1.iter().map(|s| s / c as f64).collect();
    let lo: Vec<f64> = (0..c)
        .map(|j| (1..r).fold(x(0, j), |m, i| if m < x(i, j) { m } else { x(i, j) }))
        .collect();
    let p0: Vec<f64> = (0..c)
        .map(|j| (0..r).fold(1.0, |s, i| s * x(i, j)))
        .collect();
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(bits(floats(&got[0])), bits(s0));
    assert_eq!(bits(floats(&got[1])), bits(s1));
    assert_eq!(bits(floats(&got[2])), bits(m1));
    assert_eq!(bits(floats(&got[3])), bits(lo));
    assert_eq!(bits(floats(&got[4])), bits(p0));
    if have_device() {
        assert_eq!(launches() - before, 5);
    }
}

#[test]
fn matmul_of_every_rank_combination() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a i64[2,row]) (b i64[2,col]) (v i64[1,row]) (w i64[1,row]))
    (i64[2,row] i64[1,row] i64[1,col] i64)
    (locals (c i64[2,row]) (av i64[1,row]) (vb i64[1,col]) (d i64))
    (gpu
      (set c (matmul a b))
      (set av (matmul a v))
      (set vb (matmul w b))
      (set d (matmul v v)))
    (return c av vb d)))"#;
    // Sizes that are not multiples of the 16 x 16 tiles.
    let (m, k, n) = (37usize, 53usize, 29usize);
    let before = launches();
    let a: Vec<Vec<i64>> = (0..m)
        .map(|i| (0..k).map(|j| ((i * 13 + j * 7) % 11) as i64 - 5).collect())
        .collect();
    let b: Vec<Vec<i64>> = (0..k)
        .map(|i| (0..n).map(|j| ((i * 5 + j * 3) % 13) as i64 - 6).collect())
        .collect();
    let v: Vec<i64> = (0..k).map(|i| (i % 7) as i64 - 3).collect();
    let w: Vec<i64> = (0..k).map(|i| (i % 5) as i64 - 2).collect();
    let got = run(
        src,
        "f",
        &serde_json::json!([
            arr("i64", &[m, k], serde_json::json!(a)),
            arr("i64", &[k, n], serde_json::json!(b)),
            v,
            w
        ]),
        Backend::Gpu,
    )
    .unwrap();
    let c: Vec<Vec<i64>> = (0..m)
        .map(|i| {
            (0..n)
                .map(|j| (0..k).map(|t| a[i][t] * b[t][j]).sum())
                .collect()
        })
        .collect();
    let av: Vec<i64> = (0..m)
        .map(|i| (0..k).map(|t| a[i][t] * v[t]).sum())
        .collect();
    let vb: Vec<i64> = (0..n)
        .map(|j| (0..k).map(|t| w[t] * b[t][j]).sum())
        .collect();
    let d: i64 = v.iter().map(|x| x * x).sum();
    if have_device() {
        assert_eq!(launches() - before, 4);
    }
    assert_eq!(got[0]["data"], serde_json::json!(c));
    assert_eq!(got[1]["data"], serde_json::json!(av));
    assert_eq!(got[2]["data"], serde_json::json!(vb));
    assert_eq!(got[3], serde_json::json!(d));
    // Floats with values whose products and sums are exact in every order.
    let src = r#"
(module m :index-base 0
  (function f ((a f32[2,col]) (b f32[2,col])) (f32[2,col])
    (locals (c f32[2,col]))
    (gpu (set c (matmul a b)))
    (return c)))"#;
    let got = run(
        src,
        "f",
        &serde_json::json!([
            arr("f32", &[2, 3], serde_json::json!([[1, 2, 3], [4, 5, 6]])),
            arr(
                "f32",
                &[3, 2],
                serde_json::json!([[0.5, -1], [2, 0.25], [-3, 4]])
            )
        ]),
        Backend::Gpu,
    )
    .unwrap();
    // [1*0.5 + 2*2 - 9, -1 + 0.5 + 12], [2 + 10 - 18, -4 + 1.25 + 24]
    assert_eq!(plain(&got), "[[-4.5,11.5],[-6.0,21.25]]");
}

#[test]
fn transposes_copies_and_slices() {
    let _s = serial();
    let src = r#"
(module m :index-base 1
  (function f ((a f64[2,col]) (k i64))
    (f64[2,col] f64[1,col] f64[2,col] f64[1,strided] f64[1,row] i64[2,row])
    (locals (t f64[2,col]) (r f64[1,col]) (s f64[2,col]) (v f64[1,strided]) (c f64[1,strided])
            (u f64[1,row]) (ia i64[2,row]) (ib i64[2,row]))
    (gpu
      (set t (transpose a))
      (set r (index a k (range 3 1 -1)))
      (set s (index a (range _ _) (range 1 3 2)))
      (set v (index a 2 (range 1 3 2) :view))
      (set c (copy v))
      (set u (index c (range 2 2)))
      (set ib (cast i64[2,row] a))
      (set ia (transpose ib)))
    (return t r s c u ia)))"#;
    let a = arr("f64", &[2, 3], serde_json::json!([[1, 2, 3], [4, 5, 6]]));
    let before = launches();
    let got = run(src, "f", &serde_json::json!([a, 2]), Backend::Gpu).unwrap();
    if have_device() {
        assert_eq!(
            launches() - before,
            7,
            "every statement but the view is a kernel"
        );
    }
    assert_eq!(
        plain(&got),
        "[[[1.0,4.0],[2.0,5.0],[3.0,6.0]],[6.0,5.0,4.0],[[1.0,3.0],[4.0,6.0]],[4.0,6.0],[6.0],[[1,4],[2,5],[3,6]]]"
    );
    // An index out of range: the CPU raises the interpreter's error.
    let want = run(
        src,
        "f",
        &serde_json::json!([
            arr("f64", &[2, 3], serde_json::json!([[1, 2, 3], [4, 5, 6]])),
            3
        ]),
        Backend::Interp,
    )
    .unwrap_err();
    let got = run(
        src,
        "f",
        &serde_json::json!([
            arr("f64", &[2, 3], serde_json::json!([[1, 2, 3], [4, 5, 6]])),
            3
        ]),
        Backend::Gpu,
    )
    .unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
    assert_eq!((got.index, got.bound), (want.index, want.bound));
}

/// A failing element: the interpreter's error (the first element in logical order).
#[test]
fn element_errors_are_the_interpreters() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a i64[1,row]) (b i64[1,row]) (x f64[2,col])) (i64[1,row] i32[2,col])
    (locals (c i64[1,row]) (d i32[2,col]))
    (gpu
      (set c (+ (idiv a b) 1))
      (set d (cast i32[2,col] (* x 2.0))))
    (return c d)))"#;
    let x = |v: serde_json::Value| arr("f64", &[2, 2], v);
    let ok = run(
        src,
        "f",
        &serde_json::json!([[7, -7], [2, 2], x(serde_json::json!([[1.5, 2], [3, 4]]))]),
        Backend::Gpu,
    )
    .unwrap();
    assert_eq!(plain(&ok), "[[4,-3],[[3,4],[6,8]]]");
    for args in [
        serde_json::json!([[7, 1, 2], [2, 0, 0], x(serde_json::json!([[1, 2], [3, 4]]))]),
        // Row 0 of a column-major array: element (0, 1) comes before (1, 0) in logical order.
        serde_json::json!([[1], [1], x(serde_json::json!([[1, 2e10], ["nan", 4]]))]),
    ] {
        let want = run(src, "f", &args, Backend::Interp).unwrap_err();
        let got = run(src, "f", &args, Backend::Gpu).unwrap_err();
        assert_eq!(got.to_string(), want.to_string());
        assert_eq!(
            (got.kind, got.function.clone(), got.line),
            (want.kind, want.function.clone(), want.line)
        );
    }
    // Operands of different shapes: the CPU code raises the shape error.
    let args = serde_json::json!([[1, 2, 3], [1, 1], x(serde_json::json!([[1, 2], [3, 4]]))]);
    let want = run(src, "f", &args, Backend::Interp).unwrap_err();
    let got = run(src, "f", &args, Backend::Gpu).unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
}

/// Temporaries the section computes and nothing reads afterwards stay on the device:
/// only the result comes home.
#[test]
fn dead_temporaries_do_not_come_home() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((a f64[1,row])) (f64[1,row])
    (locals (t f64[1,row]) (u f64[1,row]) (w f64[1,row]) (n i64))
    (gpu
      (set t (* a 2.0))
      (set n (len t))
      (set u (+ t 1.0))
      (set w (- u a)))
    (return w)))"#;
    let xs: Vec<f64> = (0..1000).map(|k| k as f64).collect();
    let c = counters();
    let (d0, b0) = (
        c.downloads.load(Ordering::Relaxed),
        c.download_bytes.load(Ordering::Relaxed),
    );
    let got = run(src, "f", &serde_json::json!([xs]), Backend::Gpu).unwrap();
    assert_eq!(floats(&got), xs.iter().map(|x| x + 1.0).collect::<Vec<_>>());
    if have_device() {
        assert_eq!(
            c.downloads.load(Ordering::Relaxed) - d0,
            1,
            "only w comes home"
        );
        assert_eq!(c.download_bytes.load(Ordering::Relaxed) - b0, 8000);
    }
}

/// `u = copy(v)` then a kernel that reads `u` and writes `v`: the kernel must read the
/// copy, not `v`'s buffer it is changing (the deferred copy is made before the kernel's
/// arrays are bound for reading, whatever the order of its parameters).
#[test]
fn a_kernel_reading_a_copy_of_what_it_writes() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function f ((v f64[1,row]) (steps i64)) (f64[1,row])
    (locals (u f64[1,row]) (s i64) (i i64))
    (gpu
      (for (s) (range 1 steps)
        (block
          (set u (copy v))
          (parfor (i) (range 1 (- (len v) 2))
            (block (set (index v i) (+ (index u (- i 1)) (index u (+ i 1)))))))))
    (return v)))"#;
    // [0, 1, 0, 2, 0] -> [0, 0, 3, 0, 0] -> [0, 3, 0, 3, 0]
    let got = run(
        src,
        "f",
        &serde_json::json!([[0.0, 1.0, 0.0, 2.0, 0.0], 2]),
        Backend::Gpu,
    )
    .unwrap();
    assert_eq!(plain(&got), "[0.0,3.0,0.0,3.0,0.0]");
}

/// A section calling a function that has a section of its own (as `--wrap-gpu` makes
/// every function): the callee's section end must not drop the caller's device arrays.
#[test]
fn a_section_inside_a_call_from_a_section() {
    let _s = serial();
    let src = r#"
(module m :index-base 0
  (function g ((x f64[1,row])) (f64[1,row])
    (locals (y f64[1,row]))
    (gpu (set y (* x 2.0)))
    (return y))
  (function f ((a f64[1,row])) (f64[1,row] f64[1,row])
    (locals (b f64[1,row]) (c f64[1,row]) (d f64[1,row]))
    (gpu
      (set b (+ a 1.0))
      (set c (call g a))
      (set d (+ b c)))
    (return b d)))"#;
    // b = a + 1 = [2, 3]; c = 2a = [2, 4]; d = [4, 7].
    let got = run(src, "f", &serde_json::json!([[1.0, 2.0]]), Backend::Gpu).unwrap();
    assert_eq!(plain(&got), "[[2.0,3.0],[4.0,7.0]]");
}
