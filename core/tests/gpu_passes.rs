//! The GPU code generator's optimisations (`gpu/kernel/passes.rs`, issue 19 item 1): each
//! fires where it should (counted in the plan) and gives the same bits with it on and off,
//! aliasing included, and kernel errors stay the serial order's first, with the
//! interpreter's fields.
//!
//! Expected values are computed here in the serial order (a loop nest in Rust: the same
//! operations, no fused multiply-add), not taken from our own backends; the interpreter
//! is compared only for errors' fields.

#![allow(clippy::result_large_err, clippy::needless_range_loop)]

use velociraptor::backend::{self, Backend};
use velociraptor::gpu::kernel::passes::{self, GpuPasses};

fn run(
    src: &str,
    func: &str,
    args: &serde_json::Value,
    b: Backend,
    p: GpuPasses,
) -> Result<serde_json::Value, velociraptor::VrError> {
    passes::with_passes(p, || {
        let m = backend::load(src).unwrap();
        let f = backend::lookup(&m, func).unwrap();
        let args = backend::args_from_json(f, args).unwrap();
        backend::execute(b, &m, func, args).map(|r| backend::results_to_json(&r))
    })
}

fn plain(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(mut m) if m.contains_key("data") => {
            plain(m.remove("data").unwrap())
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(plain).collect())
        }
        other => other,
    }
}

fn fired(src: &str, p: GpuPasses) -> Vec<(&'static str, usize)> {
    passes::with_passes(p, || {
        let m = backend::load(src).unwrap();
        velociraptor::gpu::plan(&m)
            .pass_counts()
            .into_iter()
            .collect()
    })
}

/// The matrix product as a loop nest (bench `matmul_loops`), with a row shift `d` of `a`
/// so that a test can make the tiled reads fail on the last rows only.
const MATMUL: &str = r#"
(module mm :index-base 0
  (function mm ((a f64[2,row]) (b f64[2,row]) (c f64[2,row]) (d i64)) (f64[2,row])
    (locals (i i64) (j i64) (k i64) (m i64) (n i64) (p i64) (s f64))
    (gpu
      (set m (dim c 0))
      (set p (dim b 0))
      (set n (dim b 1))
      (parfor (i) (range 0 (- m 1))
        (block
          (for (j) (range 0 (- n 1))
            (block
              (set s 0.0)
              (for (k) (range 0 (- p 1))
                (block (set s (+ s (* (index a (+ i d) k) (index b k j))))))
              (set (index c i j) s))))))
    (return c))
  (function aliased ((a f64[2,row]) (b f64[2,row])) (f64[2,row])
    (locals)
    (return (call mm a b a 0))))
"#;

fn matrix(rows: usize, cols: usize, seed: f64) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| ((i * 31 + j * 17) as f64 * seed).sin() / 3.0)
                .collect()
        })
        .collect()
}

/// `a * b` in the serial order: s = 0; s = s + a[i,k] * b[k,j] for k ascending.
fn product(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (m, p, n) = (a.len(), b.len(), b[0].len());
    let mut c = vec![vec![0.0; n]; m];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..p {
                s += a[i][k] * b[k][j];
            }
            c[i][j] = s;
        }
    }
    c
}

fn json(x: &[Vec<f64>]) -> serde_json::Value {
    serde_json::to_value(x).unwrap()
}

#[test]
fn the_matmul_loop_nest_is_promoted_coalesced_and_tiled() {
    let on = fired(MATMUL, GpuPasses::all());
    assert_eq!(
        on,
        vec![
            (passes::COALESCE, 1),
            (passes::LOOP_KERNELS, 0),
            (passes::NDRANGE_LOOPS, 1),
            (passes::PROVEN_BOUNDS, 0),
            (passes::SPREAD_GROUPS, 0),
            (passes::TILE_LOCAL, 1)
        ]
    );
    let off = fired(MATMUL, GpuPasses::none());
    assert!(off.iter().all(|(_, n)| *n == 0), "{off:?}");
    // Only tiling off: the loop is still a dimension.
    let no_tile = fired(MATMUL, GpuPasses::parse("-tile-local").unwrap());
    assert!(no_tile.contains(&(passes::TILE_LOCAL, 0)));
    assert!(no_tile.contains(&(passes::NDRANGE_LOOPS, 1)));
}

#[test]
fn tiled_matmul_gives_the_serial_orders_bits_on_and_off() {
    // Sizes that are not multiples of the 16 x 16 work group.
    let (a, b) = (matrix(37, 23, 0.37), matrix(23, 41, 0.11));
    let want = json(&product(&a, &b));
    let args = serde_json::json!([a, b, vec![vec![0.0; 41]; 37], 0]);
    for spec in [
        "all",
        "none",
        "-tile-local",
        "-coalesce",
        "none,+tile-local",
    ] {
        let p = GpuPasses::parse(spec).unwrap();
        let got = run(MATMUL, "mm", &args, Backend::Gpu, p).unwrap();
        assert_eq!(plain(got), want, "VR_GPU_PASSES={spec}");
    }
}

#[test]
fn aliased_arguments_keep_the_serial_order() {
    // c is a: row i of a is overwritten element by element while row i is still read,
    // so each c[i, j] sees the new a[i, 0..j]; the kernel must notice the shared buffer.
    let (a, b) = (matrix(20, 20, 0.21), matrix(20, 20, 0.07));
    let mut want = a.clone();
    for i in 0..20 {
        for j in 0..20 {
            let mut s = 0.0;
            for k in 0..20 {
                s += want[i][k] * b[k][j];
            }
            want[i][j] = s;
        }
    }
    let args = serde_json::json!([a, b]);
    for spec in ["all", "none"] {
        let p = GpuPasses::parse(spec).unwrap();
        let got = run(MATMUL, "aliased", &args, Backend::Gpu, p).unwrap();
        assert_eq!(plain(got), json(&want), "VR_GPU_PASSES={spec}");
    }
}

fn same_error(got: &velociraptor::VrError, want: &velociraptor::VrError) {
    assert_eq!(got.kind, want.kind);
    assert_eq!(got.message, want.message);
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
}

#[test]
fn errors_in_tiled_loops_are_the_serial_orders_first() {
    // d = 1: a[i + 1, k] leaves a's 37 rows at i = 36 only; the serial order meets
    // (i 36, j 0, k 0) first: index 37, extent 37, dimension 0.
    let (a, b) = (matrix(37, 23, 0.37), matrix(23, 41, 0.11));
    let args = serde_json::json!([a, b, vec![vec![0.0; 41]; 37], 1]);
    let want = run(MATMUL, "mm", &args, Backend::Interp, GpuPasses::all()).unwrap_err();
    assert_eq!(
        (want.index, want.bound, want.dim),
        (Some(37), Some(37), Some(0))
    );
    for spec in ["all", "none"] {
        let got = run(
            MATMUL,
            "mm",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        )
        .unwrap_err();
        same_error(&got, &want);
    }
    // b has more rows (24) than a has columns (23): every (i, j) fails at k = 23 on a's
    // dimension 1; the first is (0, 0).
    let (a, b) = (matrix(5, 23, 0.37), matrix(24, 7, 0.11));
    let args = serde_json::json!([a, b, vec![vec![0.0; 7]; 5], 0]);
    let want = run(MATMUL, "mm", &args, Backend::Interp, GpuPasses::all()).unwrap_err();
    assert_eq!(
        (want.index, want.bound, want.dim),
        (Some(23), Some(23), Some(1))
    );
    for spec in ["all", "none"] {
        let got = run(
            MATMUL,
            "mm",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        )
        .unwrap_err();
        same_error(&got, &want);
    }
}

/// The bench's 5-point stencil (a parfor over rows, a serial loop over columns), with a
/// column shift `d` so that a test can make the last columns fail.
const STENCIL: &str = r#"
(module st :index-base 0
  (function st ((a f64[2,row]) (b f64[2,row]) (d i64)) (f64[2,row])
    (locals (i i64) (j i64) (m i64) (n i64))
    (gpu
      (set m (dim a 0))
      (set n (dim a 1))
      (parfor (i) (range 1 (- m 2))
        (block
          (for (j) (range 1 (- n 2))
            (block
              (set (index b i j)
                (* 0.2
                  (+ (+ (+ (+ (index a i j) (index a (- i 1) j)) (index a (+ i 1) j))
                        (index a i (- j 1)))
                     (index a i (+ j d))))))))))
    (return b)))
"#;

#[test]
fn the_stencil_loop_is_promoted_and_coalesced_and_gives_the_same_bits() {
    let on = fired(STENCIL, GpuPasses::all());
    assert!(on.contains(&(passes::NDRANGE_LOOPS, 1)), "{on:?}");
    assert!(on.contains(&(passes::COALESCE, 1)), "{on:?}");
    assert!(on.contains(&(passes::TILE_LOCAL, 0)), "{on:?}");
    let (m, n) = (19, 45);
    let a = matrix(m, n, 0.13);
    let mut want = vec![vec![-1.0; n]; m];
    for i in 1..m - 1 {
        for j in 1..n - 1 {
            want[i][j] =
                0.2 * ((((a[i][j] + a[i - 1][j]) + a[i + 1][j]) + a[i][j - 1]) + a[i][j + 1]);
        }
    }
    let args = serde_json::json!([a, vec![vec![-1.0; n]; m], 1]);
    for spec in ["all", "none"] {
        let got = run(
            STENCIL,
            "st",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        );
        assert_eq!(plain(got.unwrap()), json(&want), "VR_GPU_PASSES={spec}");
    }
    // d = 2: a[i, j + 2] leaves the row at j = n - 2 for every i; the serial order meets
    // (i 1, j 43) first: index 45, extent 45, dimension 1.
    let args = serde_json::json!([a, vec![vec![-1.0; n]; m], 2]);
    let want = run(STENCIL, "st", &args, Backend::Interp, GpuPasses::all()).unwrap_err();
    assert_eq!(
        (want.index, want.bound, want.dim),
        (Some(45), Some(45), Some(1))
    );
    for spec in ["all", "none"] {
        let got = run(
            STENCIL,
            "st",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        )
        .unwrap_err();
        same_error(&got, &want);
    }
}

/// A scalar carried from one iteration of the serial loop to the next: not promoted.
const CARRIED: &str = r#"
(module carried :index-base 0
  (function f ((a f64[2,row]) (b f64[2,row])) (f64[2,row])
    (locals (i i64) (j i64) (s f64))
    (gpu
      (parfor (i) (range 0 (- (dim a 0) 1))
        (block
          (set s 0.0)
          (for (j) (range 0 (- (dim a 1) 1))
            (block
              (set s (+ s (index a i j)))
              (set (index b i j) s))))))
    (return b))
  (function g ((a f64[2,row]) (b f64[2,row])) (f64[2,row])
    (locals (i i64) (j i64) (s f64))
    (gpu
      (parfor (i) (range 0 (- (dim a 0) 1))
        (block
          (for (j) (range 0 (- (dim a 1) 1))
            (block
              (if (> j 0) (block (set s (+ s (index a i j)))) (block (set s (index a i j))))
              (set (index b i j) s))))))
    (return b)))
"#;

#[test]
fn loops_that_carry_a_scalar_stay_serial() {
    let on = fired(CARRIED, GpuPasses::all());
    assert!(on.contains(&(passes::NDRANGE_LOOPS, 0)), "{on:?}");
    let (m, n) = (6, 9);
    let a = matrix(m, n, 0.5);
    let mut want = vec![vec![0.0; n]; m];
    for i in 0..m {
        let mut s = 0.0;
        for j in 0..n {
            s += a[i][j];
            want[i][j] = s;
        }
    }
    let args = serde_json::json!([a, vec![vec![0.0; n]; m]]);
    for func in ["f", "g"] {
        let got = run(CARRIED, func, &args, Backend::Gpu, GpuPasses::all()).unwrap();
        assert_eq!(plain(got), json(&want), "{func}");
    }
}

#[test]
fn an_unknown_pass_name_is_an_error_naming_the_passes() {
    let e = GpuPasses::parse("-tiling").unwrap_err();
    assert!(
        e.contains("tile-local") && e.contains("ndrange-loops"),
        "{e}"
    );
    assert!(!GpuPasses::parse("none")
        .unwrap()
        .is_enabled(passes::COALESCE));
}

/// R's form of the loop nest: column-major arrays, index base 1, `j` outermost in the
/// parfor and `i` the serial loop (so `i`, which indexes the fastest storage position,
/// goes on work-item dimension 0 after promotion).
const MATMUL_R: &str = r#"
(module mmr :index-base 1
  (function mm ((a f64[2,col]) (b f64[2,col]) (c f64[2,col])) (f64[2,col])
    (locals (i i64) (j i64) (k i64) (s f64))
    (gpu
      (parfor (j) (range 1 (dim c 1))
        (block
          (for (i) (range 1 (dim c 0))
            (block
              (set s 0.0)
              (for (k) (range 1 (dim a 1))
                (block (set s (+ s (* (index a i k) (index b k j))))))
              (set (index c i j) s))))))
    (return c)))
"#;

#[test]
fn column_major_base_1_loop_nests_are_tiled_too() {
    let on = fired(MATMUL_R, GpuPasses::all());
    assert_eq!(
        on,
        vec![
            (passes::COALESCE, 1),
            (passes::LOOP_KERNELS, 0),
            (passes::NDRANGE_LOOPS, 1),
            (passes::PROVEN_BOUNDS, 0),
            (passes::SPREAD_GROUPS, 0),
            (passes::TILE_LOCAL, 1)
        ]
    );
    let (a, b) = (matrix(18, 33, 0.19), matrix(33, 17, 0.29));
    let want = json(&product(&a, &b));
    let args = serde_json::json!([a, b, vec![vec![0.0; 17]; 18]]);
    for spec in ["all", "none"] {
        let got = run(
            MATMUL_R,
            "mm",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        );
        assert_eq!(plain(got.unwrap()), want, "VR_GPU_PASSES={spec}");
    }
}

/// A promoted loop running downwards in steps of 2, with `continue`, over integers; its
/// bound `n` unassigned when `flag` is false (the engine declines: the CPU's error).
const DOWNWARDS: &str = r#"
(module down :index-base 0
  (function f ((a i64[2,row]) (b i64[2,row]) (flag bool)) (i64[2,row])
    (locals (i i64) (j i64) (n i64) (t i64))
    (if flag (block (set n (dim a 1))))
    (gpu
      (parfor (i) (range 0 (- (dim a 0) 1))
        (block
          (for (j) (range (- n 1) 0 -2)
            (block
              (set t (* (index a i j) 3))
              (if (< t 0) (block (continue)))
              (set (index b i j) (+ t j)))))))
    (return b))
  (function g ((a i64[2,row]) (b i64[2,row]) (c i64[2,row])) (i64[2,row])
    (locals (i i64) (j i64) (k i64) (s i64))
    (gpu
      (parfor (i) (range 0 (- (dim c 0) 1))
        (block
          (for (j) (range 0 (- (dim c 1) 1))
            (block
              (set s 7)
              (for (k) (range 1 (- (dim b 0) 1))
                (block (set s (- s (* (index a i k) (index b k j))))))
              (set (index c i j) s))))))
    (return c)))
"#;

fn int_matrix(rows: usize, cols: usize, seed: i64) -> Vec<Vec<i64>> {
    (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| ((i as i64 * 7919 + j as i64 * 104729) * seed) % 2001 - 1000)
                .collect()
        })
        .collect()
}

#[test]
fn promoted_loops_with_steps_continue_and_integers() {
    let on = fired(DOWNWARDS, GpuPasses::all());
    assert_eq!(
        on,
        vec![
            (passes::COALESCE, 2),
            (passes::LOOP_KERNELS, 0),
            (passes::NDRANGE_LOOPS, 2),
            (passes::PROVEN_BOUNDS, 0),
            (passes::SPREAD_GROUPS, 1),
            (passes::TILE_LOCAL, 1)
        ]
    );
    let (m, n) = (5, 21);
    let a = int_matrix(m, n, 3);
    let mut want = vec![vec![-9i64; n]; m];
    for i in 0..m {
        for j in (0..n).rev().step_by(2) {
            let t = a[i][j] * 3;
            if t >= 0 {
                want[i][j] = t + j as i64;
            }
        }
    }
    let args = serde_json::json!([a, vec![vec![-9i64; n]; m], true]);
    for spec in ["all", "none"] {
        let got = run(
            DOWNWARDS,
            "f",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        );
        assert_eq!(
            plain(got.unwrap()),
            serde_json::to_value(&want).unwrap(),
            "{spec}"
        );
    }
    // n unassigned: the interpreter's error, from the CPU code.
    let args = serde_json::json!([a, vec![vec![-9i64; n]; m], false]);
    let want_err = run(DOWNWARDS, "f", &args, Backend::Interp, GpuPasses::all()).unwrap_err();
    assert!(
        want_err.message.contains("unassigned"),
        "{}",
        want_err.message
    );
    for spec in ["all", "none"] {
        let got = run(
            DOWNWARDS,
            "f",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        )
        .unwrap_err();
        same_error(&got, &want_err);
    }
    // Tiled integer product from k = 1, wrapping: s = 7 - sum a[i,k] * b[k,j].
    let (a, b) = (int_matrix(19, 35, 1_000_003), int_matrix(35, 17, 999_983));
    let mut want = vec![vec![0i64; 17]; 19];
    for i in 0..19 {
        for j in 0..17 {
            let mut s = 7i64;
            for k in 1..35 {
                s = s.wrapping_sub(a[i][k].wrapping_mul(b[k][j]));
            }
            want[i][j] = s;
        }
    }
    let args = serde_json::json!([a, b, vec![vec![0i64; 17]; 19]]);
    for spec in ["all", "none"] {
        let got = run(
            DOWNWARDS,
            "g",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        );
        assert_eq!(
            plain(got.unwrap()),
            serde_json::to_value(&want).unwrap(),
            "{spec}"
        );
    }
}

/// The loop nest as R's front end writes it (`for (i in prange(n)) for (j in 1:m)`):
/// copies of the loop variables in i32, the bound in a scalar assigned before the loop,
/// R's direction step, and after the optimizer, the loop versioned by `bce-version`.
const R_NEST: &str = r#"
(module rnest :index-base 1
  (function f ((a f64[2,col]) (b f64[2,col])) (f64[2,col])
    (locals (i i32) (j i32) (m i32) (n i32) (out f64[2,col]) (_i3 i64) (_i4 i64) (_t5 i64))
    (set n (cast i32 (dim a 0)))
    (set m (cast i32 (dim b 0)))
    (set out (fill f64[2,col] -1.0 (cast i64 n) (cast i64 m)))
    (gpu
      (parfor (_i3) (range 1 n)
        (block
          (set i (cast i32 _i3))
          (set _t5 (cast i64 m))
          (for (_i4) (range 1 _t5 (- (* 2 (cast i64 (<= 1 _t5))) 1))
            (block
              (set j (cast i32 _i4))
              (set (index out i j) (- (* (index a i 1) (index b j 1)) (index b j 2))))))))
    (return out)))
"#;

#[test]
fn r_loop_nests_are_promoted_before_and_after_the_optimizer() {
    let on = fired(R_NEST, GpuPasses::all());
    assert!(on.contains(&(passes::NDRANGE_LOOPS, 1)), "{on:?}");
    // After the optimizer (bce-version puts the loop in an `if` with an unchecked copy).
    let m = backend::load(R_NEST).unwrap();
    let (optimized, _) =
        velociraptor::opt::optimize(&m, &velociraptor::opt::OptOptions::all()).unwrap();
    let counts = passes::with_passes(GpuPasses::all(), || {
        velociraptor::gpu::plan(&optimized).pass_counts()
    });
    assert_eq!(counts[passes::NDRANGE_LOOPS], 1, "{counts:?}");
    let (a, b) = (matrix(23, 2, 0.3), matrix(37, 2, 0.7));
    let want: Vec<Vec<f64>> = (0..23)
        .map(|i| (0..37).map(|j| a[i][0] * b[j][0] - b[j][1]).collect())
        .collect();
    let args = serde_json::json!([a, b]);
    for spec in ["all", "none"] {
        let got = run(
            R_NEST,
            "f",
            &args,
            Backend::Gpu,
            GpuPasses::parse(spec).unwrap(),
        );
        assert_eq!(plain(got.unwrap()), json(&want), "{spec}");
    }
}

/// growcut's shape: each `(i, j)` stores two elements of one array (`out[i, j, 0]` and
/// `out[i, j, 1]`) and counts into one integer element with an atomic-add whose result
/// is unread; `g` stores `out[i, j, 0]` and `out[i, j + 1, 0]` (iteration j + 1 writes
/// what iteration j wrote) and `h` reads the result of one of its two atomics: those
/// stay serial.
const COUNTING: &str = r#"
(module counting :index-base 0
  (function f ((a f64[2,row]) (out f64[3,row]) (n i64[1,row])) (i64 f64[3,row])
    (locals (i i64) (j i64) (m i64) (p i64) (c i64) (old i64) (v f64))
    (gpu
      (set m (dim a 0))
      (set p (dim a 1))
      (parfor (i) (range 0 (- m 1))
        (block
          (for (j) (range 0 (- p 1))
            (block
              (set v (index a i j))
              (set c 0)
              (if (> v 0.1) (block (set c 1)))
              (set (index out i j 0) v)
              (set (index out i j 1) (* v 2.0))
              (set old (atomic-add n 0 :value c)))))))
    (return (index n 0) out))
  (function g ((a f64[2,row]) (out f64[3,row])) (f64[3,row])
    (locals (i i64) (j i64) (m i64) (p i64))
    (gpu
      (set m (dim a 0))
      (set p (- (dim a 1) 1))
      (parfor (i) (range 0 (- m 1))
        (block
          (for (j) (range 0 (- p 1))
            (block
              (set (index out i j 0) (index a i j))
              (set (index out i (+ j 1) 0) (* (index a i j) 2.0)))))))
    (return out))
  (function h ((a f64[2,row]) (out f64[3,row]) (n i64[1,row])) (f64[3,row])
    (locals (i i64) (j i64) (m i64) (p i64) (old i64))
    (gpu
      (set m (dim a 0))
      (set p (dim a 1))
      (parfor (i) (range 0 (- m 1))
        (block
          (for (j) (range 0 (- p 1))
            (block
              (expr (atomic-add n 0 :value 1))
              (set old (atomic-add n 0 :value 1))
              (set (index out i j 0) (cast f64 old)))))))
    (return out)))
"#;

#[test]
fn counting_loop_nests_with_several_stores_per_array_are_promoted() {
    let on = fired(COUNTING, GpuPasses::all());
    assert!(on.contains(&(passes::NDRANGE_LOOPS, 1)), "only f's loop: {on:?}");
    let (m, n) = (7, 11);
    let a = matrix(m, n, 0.25);
    let mut want_out = vec![vec![vec![0.0; 2]; n]; m];
    let mut want_count = 0;
    for i in 0..m {
        for j in 0..n {
            want_out[i][j] = vec![a[i][j], a[i][j] * 2.0];
            want_count += (a[i][j] > 0.1) as i64;
        }
    }
    assert!(want_count > 0 && want_count < (m * n) as i64, "the input counts some cells");
    let args = serde_json::json!([a, vec![vec![vec![0.0; 2]; n]; m], [0]]);
    for p in [GpuPasses::all(), GpuPasses::none()] {
        let got = plain(run(COUNTING, "f", &args, Backend::Gpu, p).unwrap());
        assert_eq!(got, serde_json::json!([want_count, want_out]));
    }
    // g, serially: iteration j + 1's first store overwrites iteration j's second.
    let mut want_g = vec![vec![vec![0.0; 2]; n]; m];
    for i in 0..m {
        for j in 0..n - 1 {
            want_g[i][j][0] = a[i][j];
            want_g[i][j + 1][0] = a[i][j] * 2.0;
        }
    }
    let args = serde_json::json!([a, vec![vec![vec![0.0; 2]; n]; m]]);
    let got = plain(run(COUNTING, "g", &args, Backend::Gpu, GpuPasses::all()).unwrap());
    assert_eq!(got, serde_json::json!(want_g));
}

/// Serial loops of a section (`loop-kernels`): `step` is nbody1d's update after its
/// parfor (independent iterations: a kernel of its own) and returns its loop variable,
/// which holds the last point afterwards; `spread` reads `x[2 i]`, which leaves `x` in
/// the middle of the loop; `carried` reads what the previous iteration wrote and `kept`
/// leaves a scalar that is read after the loop: those two stay CPU code.
const SERIAL: &str = r#"
(module serial :index-base 0
  (function step ((x f64[1,row]) (v f64[1,row]) (acc f64[1,row]) (dt f64)) (i64 f64[1,row] f64[1,row])
    (locals (i i64) (n i64))
    (gpu
      (set n (dim x 0))
      (for (i) (range 0 (- n 1))
        (block
          (set (index v i) (+ (index v i) (* (index acc i) dt)))
          (set (index x i) (+ (index x i) (* (index v i) dt))))))
    (return i x v))
  (function spread ((x f64[1,row]) (y f64[1,row])) (f64[1,row])
    (locals (i i64) (n i64))
    (gpu
      (set n (dim y 0))
      (for (i) (range 0 (- n 1))
        (block (set (index y i) (* 3.0 (index x (* 2 i)))))))
    (return y))
  (function carried ((x f64[1,row])) (f64[1,row])
    (locals (i i64) (n i64))
    (gpu
      (set n (dim x 0))
      (for (i) (range 1 (- n 1))
        (block (set (index x i) (* 0.5 (index x (- i 1)))))))
    (return x))
  (function kept ((x f64[1,row])) (f64 f64[1,row])
    (locals (i i64) (n i64) (t f64))
    (gpu
      (set n (dim x 0))
      (set t 0.0)
      (for (i) (range 0 (- n 1))
        (block
          (set t (* (index x i) (index x i)))
          (set (index x i) t))))
    (return t x)))
"#;

#[test]
fn independent_serial_loops_of_a_section_become_kernels() {
    // step and spread only.
    let on = fired(SERIAL, GpuPasses::all());
    assert!(on.contains(&(passes::LOOP_KERNELS, 2)), "{on:?}");
    let off = fired(SERIAL, GpuPasses::parse("-loop-kernels").unwrap());
    assert!(off.contains(&(passes::LOOP_KERNELS, 0)), "{off:?}");
    let n = 37;
    let x: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin()).collect();
    let v: Vec<f64> = (0..n).map(|k| (k as f64 * 0.11).cos()).collect();
    let acc: Vec<f64> = (0..n).map(|k| (k as f64 * 0.73).sin() / 7.0).collect();
    let dt = 0.01;
    let (mut want_x, mut want_v) = (x.clone(), v.clone());
    for k in 0..n {
        want_v[k] += acc[k] * dt;
        want_x[k] += want_v[k] * dt;
    }
    let args = serde_json::json!([x, v, acc, dt]);
    for spec in ["all", "none"] {
        let p = GpuPasses::parse(spec).unwrap();
        let got = plain(run(SERIAL, "step", &args, Backend::Gpu, p).unwrap());
        assert_eq!(got, serde_json::json!([n - 1, want_x, want_v]), "{spec}");
    }
    // The same array as x and v: every iteration reads what it wrote itself, which the
    // kernel runs serially in one work item (they share a buffer).
    let mut want_xx = x.clone();
    for k in 0..n {
        want_xx[k] += acc[k] * dt;
        want_xx[k] += want_xx[k] * dt;
    }
    let m = backend::load(&format!(
        "{}\n",
        SERIAL.replace(
            "(function spread",
            "(function same ((x f64[1,row]) (acc f64[1,row]) (dt f64)) (i64 f64[1,row] f64[1,row])
    (locals (k i64) (p f64[1,row]) (q f64[1,row]))
    (mset (k p q) (call step x x acc dt))
    (return k p q))
  (function spread"
        )
    ))
    .unwrap();
    let got = passes::with_passes(GpuPasses::all(), || {
        let f = backend::lookup(&m, "same").unwrap();
        let a = backend::args_from_json(f, &serde_json::json!([x, acc, dt])).unwrap();
        backend::execute(Backend::Gpu, &m, "same", a).map(|r| backend::results_to_json(&r))
    });
    assert_eq!(
        plain(got.unwrap()),
        serde_json::json!([n - 1, want_xx, want_xx])
    );
    // spread: y[k] = 3 x[2k]; with 2n - 1 < len(x) in bounds, else the serial loop's
    // first failure, i = len(x) / 2 rounded up: the interpreter's error fields.
    let xs: Vec<f64> = (0..2 * n).map(|k| k as f64).collect();
    let args = serde_json::json!([xs, vec![0.0; n]]);
    let want: Vec<f64> = (0..n).map(|k| 3.0 * (2 * k) as f64).collect();
    let got = plain(run(SERIAL, "spread", &args, Backend::Gpu, GpuPasses::all()).unwrap());
    assert_eq!(got, serde_json::json!(want));
    let short: Vec<f64> = (0..n).map(|k| k as f64).collect();
    let args = serde_json::json!([short, vec![0.0; n]]);
    let want = run(SERIAL, "spread", &args, Backend::Interp, GpuPasses::all()).unwrap_err();
    assert_eq!((want.index, want.bound), (Some(38), Some(37)), "i = 19 first");
    for spec in ["all", "none"] {
        let p = GpuPasses::parse(spec).unwrap();
        let got = run(SERIAL, "spread", &args, Backend::Gpu, p).unwrap_err();
        same_error(&got, &want);
    }
    // carried: x[k] = x[0] / 2^k in the serial order.
    let want: Vec<f64> = (0..n).map(|k| x[0] * 0.5f64.powi(k as i32)).collect();
    let got = plain(run(SERIAL, "carried", &serde_json::json!([x]), Backend::Gpu, GpuPasses::all()).unwrap());
    assert_eq!(got, serde_json::json!(want));
    // kept: t is the last square.
    let sq: Vec<f64> = x.iter().map(|a| a * a).collect();
    let got = plain(run(SERIAL, "kept", &serde_json::json!([x]), Backend::Gpu, GpuPasses::all()).unwrap());
    assert_eq!(got, serde_json::json!([sq[n - 1], sq]));
}

/// `proven-bounds`: bce-version's unchecked copy of a parfor (`x`, `m` at least as long
/// as `acc`) runs without bounds checks on the device; where the version test fails (a
/// short `x`), the checked copy raises the interpreter's error.
const PROVEN: &str = r#"
(module proven :index-base 0
  (function f ((x f64[1,row]) (m f64[1,row]) (acc f64[1,row])) (f64[1,row])
    (locals (i i64) (j i64) (n i64) (s f64))
    (gpu
      (set n (dim acc 0))
      (parfor (i) (range 0 (- n 1))
        (block
          (set s 0.0)
          (for (j) (range 0 (- n 1))
            (block (set s (+ s (* (index m j) (- (index x j) (index x i)))))))
          (set (index acc i) s))))
    (return acc)))
"#;

#[test]
fn accesses_the_optimizer_proved_go_unchecked_on_the_device() {
    let m = backend::load(PROVEN).unwrap();
    let (optimized, _) =
        velociraptor::opt::optimize(&m, &velociraptor::opt::OptOptions::all()).unwrap();
    let counts = passes::with_passes(GpuPasses::all(), || {
        velociraptor::gpu::plan(&optimized).pass_counts()
    });
    assert_eq!(counts[passes::PROVEN_BOUNDS], 1, "the unchecked copy only: {counts:?}");
    let n = 41;
    let x: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin()).collect();
    let w: Vec<f64> = (0..n).map(|k| 1.0 + (k % 5) as f64).collect();
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let mut s = 0.0;
            for j in 0..n {
                s += w[j] * (x[j] - x[i]);
            }
            s
        })
        .collect();
    let args = serde_json::json!([x, w, vec![0.0; n]]);
    for spec in ["all", "-proven-bounds"] {
        let got = run(PROVEN, "f", &args, Backend::Gpu, GpuPasses::parse(spec).unwrap());
        assert_eq!(plain(got.unwrap()), serde_json::json!(want), "{spec}");
    }
    // x one short: the checked copy; iteration (i 0, j 40) reads x[40] first.
    let args = serde_json::json!([x[..n - 1].to_vec(), w, vec![0.0; n]]);
    let want = run(PROVEN, "f", &args, Backend::Interp, GpuPasses::all()).unwrap_err();
    assert_eq!((want.index, want.bound), (Some(40), Some(40)));
    let got = run(PROVEN, "f", &args, Backend::Gpu, GpuPasses::all()).unwrap_err();
    same_error(&got, &want);
}
