//! The cpu-par backend: parfor loops and large element-wise operators on a thread pool.
//! Every expected value is computed by hand (closed forms, or plain Rust arithmetic that
//! performs the same IEEE operations); every case runs on several thread counts, more
//! than this machine's cores included, so chunks really interleave.
#![allow(clippy::result_large_err)] // VrError, the crate's error type, is large by design

use velociraptor::cpu::{self, CompiledModule, CpuOptions};
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};
use velociraptor::ErrorKind;

const THREADS: [usize; 4] = [1, 2, 3, 8];

fn compile(src: &str, threads: usize) -> CompiledModule {
    let m = parse_module(src).expect("parses");
    cpu::compile_with(
        &m,
        CpuOptions {
            parallel: true,
            threads: Some(threads),
            ..CpuOptions::default()
        },
    )
    .expect("compiles")
}

fn i64s(v: &Value) -> Vec<i64> {
    match v {
        Value::Array(a) => a.elements().iter().map(|s| s.as_i64().unwrap()).collect(),
        other => panic!("not an array: {other:?}"),
    }
}

fn f64s(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.elements().iter().map(|s| s.as_f64().unwrap()).collect(),
        other => panic!("not an array: {other:?}"),
    }
}

fn scalar(v: &Value) -> Scalar {
    match v {
        Value::Scalar(s) => *s,
        other => panic!("not a scalar: {other:?}"),
    }
}

fn int(n: i64) -> Value {
    Value::Scalar(Scalar::I64(n))
}

fn f64_vector(xs: &[f64]) -> Value {
    let elems: Vec<Scalar> = xs.iter().map(|x| Scalar::F64(*x)).collect();
    Value::Array(Array::from_logical(
        ArrayType::new(ScalarType::F64, 1, Layout::Row),
        vec![xs.len()],
        &elems,
    ))
}

#[test]
fn a_two_dimensional_parfor_fills_every_point() {
    let src = "(module m :index-base 0
      (function f ((n i64) (m i64)) (i64[2,row] i64 i64)
        (locals (a i64[2,row]) (i i64) (j i64))
        (set a (zeros i64[2,row] n m))
        (parfor (i j) (domain (range 0 (- n 1)) (range 0 (- m 1)))
          (block (set (index a i j) (+ (* 1000 i) j))))
        (return a i j)))";
    let (n, m) = (301, 257);
    for t in THREADS {
        let r = compile(src, t).call("f", vec![int(n), int(m)]).unwrap();
        let want: Vec<i64> = (0..n)
            .flat_map(|i| (0..m).map(move |j| 1000 * i + j))
            .collect();
        assert_eq!(i64s(&r[0]), want, "{t} threads");
        // The loop variables hold the last point, as after a serial loop.
        assert_eq!(scalar(&r[1]), Scalar::I64(n - 1));
        assert_eq!(scalar(&r[2]), Scalar::I64(m - 1));
    }
}

/// A chunk runs as rows of the innermost range (parfor.rs), starting and ending inside a
/// row: three dimensions, a stepped middle range, `continue` on some points, sizes whose
/// chunks are a single point (3 x 5 x 7 on 8 threads) or cut rows anywhere.
#[test]
fn a_three_dimensional_parfor_cut_into_chunks_anywhere_visits_every_point_once() {
    let src = "(module m :index-base 0
      (function f ((n i64) (m i64) (p i64)) (i64[3,row])
        (locals (a i64[3,row]) (i i64) (j i64) (k i64))
        (set a (zeros i64[3,row] n m p))
        (parfor (i j k) (domain (range 0 (- n 1)) (range 0 (- (* 2 m) 1) 2) (range 1 p))
          (block
            (if (== (mod (+ i k) 5) 0) (block (continue)))
            (set (index a i (/ j 2) (- k 1)) (+ (index a i (/ j 2) (- k 1)) (+ (* 10000 i) (+ (* 100 j) k))))))
        (return a)))";
    for (n, m, p) in [(3i64, 5i64, 7i64), (17, 13, 11), (1, 1, 300)] {
        let want: Vec<i64> = (0..n)
            .flat_map(|i| {
                (0..m).flat_map(move |jj| {
                    (1..=p).map(move |k| {
                        if (i + k) % 5 == 0 { 0 } else { 10000 * i + 100 * (2 * jj) + k }
                    })
                })
            })
            .collect();
        for t in THREADS {
            let r = compile(src, t).call("f", vec![int(n), int(m), int(p)]).unwrap();
            assert_eq!(i64s(&r[0]), want, "{n} x {m} x {p}, {t} threads");
        }
    }
}

#[test]
fn the_error_reported_is_the_one_the_serial_order_meets_first() {
    // Iterations 60000 and n-5..n-1 fail; the serial order meets index -1 first.
    let src = "(module m :index-base 0
      (function f ((n i64)) (f64[1,row])
        (locals (a f64[1,row]) (i i64) (k i64))
        (set a (zeros f64[1,row] n))
        (parfor (i) (range 0 (- n 1))
          (block
            (set k (+ i 5))
            (if (== i 60000) (block (set k -1)))
            (set (index a k) 1.0)))
        (return a)))";
    for t in THREADS {
        let e = compile(src, t).call("f", vec![int(100_000)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfBounds, "{t} threads: {e}");
        assert_eq!(e.index, Some(-1), "{t} threads: {e}");
        assert_eq!(e.bound, Some(100_000));
        assert_eq!(e.variable.as_deref(), Some("a"));
        assert_eq!(e.function.as_deref(), Some("f"));
    }
}

#[test]
fn arrays_made_by_iterations_outlive_the_loop() {
    // Each iteration allocates; the array variable is private and after the loop holds
    // the last iteration's array (stored back by the chunk that ran it).
    let src = "(module m :index-base 0
      (function f ((n i64)) (f64[1,row] f64[1,row])
        (locals (out f64[1,row]) (tmp f64[1,row]) (i i64))
        (set out (zeros f64[1,row] n))
        (parfor (i) (range 0 (- n 1))
          (block
            (set tmp (fill f64[1,row] (cast f64 i) 3))
            (set (index out i) (sum tmp))))
        (return out tmp)))";
    let n = 5000;
    for t in THREADS {
        let r = compile(src, t).call("f", vec![int(n)]).unwrap();
        let want: Vec<f64> = (0..n).map(|i| 3.0 * i as f64).collect();
        assert_eq!(f64s(&r[0]), want);
        assert_eq!(f64s(&r[1]), vec![(n - 1) as f64; 3]);
    }
}

#[test]
fn nested_parfors_with_atomics_count_every_pair() {
    let src = "(module m :index-base 0
      (function f ((n i64)) (i64[1,row] f64)
        (locals (h i64[1,row]) (s f64[1,row]) (i i64) (j i64) (o i64) (p f64))
        (set h (zeros i64[1,row] 7))
        (set s (zeros f64[1,row] 1))
        (parfor (i) (range 1 n)
          (block
            (parfor (j) (range 1 n)
              (block
                (set o (atomic-add h (mod (* i j) 7) :value 1))
                (set p (atomic-add s 0 :value 0.5))))))
        (return h (index s 0))))";
    let n = 300i64;
    let mut want = vec![0i64; 7];
    for i in 1..=n {
        for j in 1..=n {
            want[((i * j) % 7) as usize] += 1;
        }
    }
    for t in THREADS {
        let r = compile(src, t).call("f", vec![int(n)]).unwrap();
        assert_eq!(i64s(&r[0]), want, "{t} threads");
        // Halves of small integers: every order of additions is exact.
        assert_eq!(scalar(&r[1]), Scalar::F64(0.5 * (n * n) as f64));
    }
}

#[test]
fn atomic_cas_elects_exactly_one_winner() {
    let src = "(module m :index-base 0
      (function f ((n i64)) (i64 bool)
        (locals (flag bool[1,row]) (wins i64[1,row]) (i i64) (old bool) (o i64))
        (set flag (fill bool[1,row] false 1))
        (set wins (zeros i64[1,row] 1))
        (parfor (i) (range 1 n)
          (block
            (set old (atomic-cas flag 0 :expected false :new true))
            (if (not old) (block (set o (atomic-add wins 0 :value 1))))))
        (return (index wins 0) (index flag 0))))";
    for t in THREADS {
        let r = compile(src, t).call("f", vec![int(200_000)]).unwrap();
        assert_eq!(scalar(&r[0]), Scalar::I64(1), "{t} threads");
        assert_eq!(scalar(&r[1]), Scalar::Bool(true));
    }
}

#[test]
fn calls_recurse_inside_workers_up_to_the_limit() {
    let src = "(module m :index-base 0
      (function depth ((k i64)) (i64)
        (locals)
        (if (== k 0) (block (return 0)))
        (return (+ 1 (call depth (- k 1)))))
      (function f ((n i64) (k i64)) (i64[1,row])
        (locals (a i64[1,row]) (i i64))
        (set a (zeros i64[1,row] n))
        (parfor (i) (range 0 (- n 1))
          (block (set (index a i) (call depth (+ k i)))))
        (return a)))";
    for t in THREADS {
        let c = compile(src, t);
        let r = c.call("f", vec![int(64), int(5000)]).unwrap();
        assert_eq!(i64s(&r[0]), (5000..5064).collect::<Vec<i64>>());
        let e = c.call("f", vec![int(64), int(9990)]).unwrap_err();
        assert!(e.message.contains("recursion too deep"), "{e}");
    }
}

#[test]
fn large_element_wise_operators_match_serial_ieee_arithmetic() {
    // 2^17 elements: above the threshold for the pool.
    let src = "(module m :index-base 0
      (function f ((a f64[1,row])) (f64[1,row])
        (locals)
        (return (+ (* a 2.0) (sqrt a))))
      (function g ((a f64[1,row])) (i32[1,row])
        (locals)
        (return (cast i32[1,row] a))))";
    let n = 1 << 17;
    let xs: Vec<f64> = (0..n).map(|i| i as f64 / 7.0).collect();
    let want: Vec<f64> = xs.iter().map(|x| x * 2.0 + x.sqrt()).collect();
    let mut bad = xs.clone();
    bad[70_000] = 1e30;
    bad[100_000] = 2e30;
    for t in THREADS {
        let c = compile(src, t);
        let r = c.call("f", vec![f64_vector(&xs)]).unwrap();
        let got = f64s(&r[0]);
        assert!(
            got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()),
            "{t} threads"
        );
        // The first element that does not fit is reported, as in the serial loop.
        let e = c.call("g", vec![f64_vector(&bad)]).unwrap_err();
        assert!(e.message.contains("1000000000000000000000000000000 does not fit i32"), "{e}");
    }
}

#[test]
fn the_thread_count_can_be_set() {
    let mut c = compile("(module m :index-base 0 (function f () () (locals)))", 3);
    assert_eq!(c.threads(), 3);
    c.set_threads(0);
    assert_eq!(c.threads(), 1);
    let serial = cpu::compile(&parse_module("(module m :index-base 0 (function f () () (locals)))").unwrap()).unwrap();
    assert_eq!(serial.threads(), 1);
}

/// A fused element-wise chain over more elements than the parallel threshold becomes a
/// `parfor` for cpu-par (opt/elementwise.rs); its result must be every element of the
/// chain, computed here with the same IEEE operations, on every thread count, with the
/// matrices column-major (the loop nest walks storage order; values compared in logical
/// order).
#[test]
fn fused_element_wise_loops_run_on_the_pool() {
    let n = 300usize;
    let m = 301usize; // 90,300 elements: above the 65,536 threshold
    let src = "(module m :index-base 1
      (function f ((a f64[2,col]) (b f64[2,col])) (f64[2,col])
        (locals (d f64[2,col]))
        (set d (+ (* a 2.0) (sqrt b)))
        (return d)))";
    let module = parse_module(src).expect("parses");
    let opts = velociraptor::opt::OptOptions { parallel_loops: true, ..velociraptor::opt::OptOptions::all() };
    let (optimized, stats) = velociraptor::opt::optimize(&module, &opts).expect("optimizes");
    assert!(stats.to_string().contains("ops_fused="), "{stats}");
    assert!(velociraptor::vrir::text::print_module(&optimized).contains("(parfor"), "no parfor");
    let a: Vec<f64> = (0..n * m).map(|k| k as f64 * 0.25 - 7.0).collect();
    let b: Vec<f64> = (0..n * m).map(|k| (k % 97) as f64 + 0.5).collect();
    let matrix = |xs: &[f64]| {
        let elems: Vec<Scalar> = xs.iter().map(|x| Scalar::F64(*x)).collect();
        Value::Array(Array::from_logical(ArrayType::new(ScalarType::F64, 2, Layout::Col), vec![n, m], &elems))
    };
    for threads in THREADS {
        let compiled = cpu::compile_with(
            &optimized,
            CpuOptions { parallel: true, threads: Some(threads), ..CpuOptions::default() },
        )
        .expect("compiles");
        let out = compiled.call("f", vec![matrix(&a), matrix(&b)]).expect("runs");
        let got = f64s(&out[0]);
        assert_eq!(got.len(), n * m);
        for (k, g) in got.iter().enumerate() {
            assert_eq!(g.to_bits(), (a[k] * 2.0 + b[k].sqrt()).to_bits(), "element {k}, {threads} threads");
        }
    }
}

/// What a parfor body only reads travels by value (scalars) or as a copy of the
/// descriptor (array variables): each launch must see the values of that moment (s
/// changes between the launches of the outer loop), the "assigned" flags too (`maybe`
/// and `t` are assigned only when k > 0, `w` is complex, `b` a bool); a private
/// variable dead after the loop (`last`) is not stored back, a live one (`i`) is.
#[test]
fn what_a_parfor_body_reads_is_the_value_at_its_launch() {
    let src = "(module m :index-base 0
      (function f ((n i64) (z c128) (k i64) (strict bool)) (f64[1,row] f64 i64)
        (locals (out f64[1,row]) (s f64) (maybe f64) (w c128) (b bool) (t f64[1,row])
                (r i64) (i i64) (last f64))
        (set out (zeros f64[1,row] n))
        (if (> k 0) (block (set maybe 2.5) (set t (fill f64[1,row] 1.5 n))))
        (set w (* z z))
        (set b (> k 1))
        (for (r) (range 1 3)
          (block
            (set s (cast f64 r))
            (parfor (i) (range 0 (- n 1))
              (block
                (if b (block (set last (+ s (index t i)))) (block (set last s)))
                (if (or strict (> k 0)) (block (set last (+ last maybe))))
                (set (index out i) (+ (index out i) (+ last (real w))))))))
        (return out s i)))";
    let n = 10_000;
    let z = Value::Scalar(Scalar::C128(num_complex::Complex64::new(1.0, 2.0)));
    // (1+2i)^2 = -3+4i; the sum over r = 1..3 of (r + extra - 3).
    for (k, extra) in [(2, 4.0), (1, 2.5), (0, 0.0)] {
        for t in THREADS {
            let args = vec![int(n), z.clone(), int(k), Value::Scalar(Scalar::Bool(false))];
            let r = compile(src, t).call("f", args).unwrap();
            let want = vec![6.0 + 3.0 * extra - 9.0; n as usize];
            assert_eq!(f64s(&r[0]), want, "k = {k}, {t} threads");
            assert_eq!(scalar(&r[1]), Scalar::F64(3.0));
            assert_eq!(scalar(&r[2]), Scalar::I64(n - 1));
        }
    }
    // Reading `maybe` while it is unassigned is the error the serial loop raises.
    for t in THREADS {
        let args = vec![int(n), z.clone(), int(0), Value::Scalar(Scalar::Bool(true))];
        let e = compile(src, t).call("f", args).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime, "{t} threads: {e}");
        assert_eq!(e.variable.as_deref(), Some("maybe"), "{t} threads: {e}");
    }
}

/// A fused chain inside a loop, above the parallel threshold, is written into the
/// previous iteration's buffer by the parfor of its cpu-par form (`reuse`, with
/// `(if (>= COUNT N) (parfor L) (for L))`): c = c * 0.5 + x, three times, computed here
/// with the same IEEE operations.
#[test]
fn a_fused_parallel_loop_writes_into_the_previous_iterations_buffer() {
    let n = 70_000usize; // above the 65,536 threshold
    let src = "(module m :index-base 0
      (function f ((x f64[1,row]) (n i64)) (f64[1,row])
        (locals (c f64[1,row]) (i i64))
        (set c (zeros f64[1,row] (dim x 0)))
        (for (i) (range 1 n)
          (block (set c (+ (* c 0.5) x))))
        (return c)))";
    let module = parse_module(src).expect("parses");
    let opts = velociraptor::opt::OptOptions { parallel_loops: true, ..velociraptor::opt::OptOptions::all() };
    let (optimized, stats) = velociraptor::opt::optimize(&module, &opts).expect("optimizes");
    assert_eq!(stats.total("reuse", "buffers_reused"), 1, "{stats}");
    let text = velociraptor::vrir::text::print_module(&optimized);
    assert!(text.contains("(parfor") && text.contains("(set (index c "), "{text}");
    let x: Vec<f64> = (0..n).map(|k| (k % 1013) as f64 * 0.375 - 11.0).collect();
    let mut want = vec![0.0f64; n];
    for _ in 0..3 {
        for (w, xk) in want.iter_mut().zip(&x) {
            *w = *w * 0.5 + xk;
        }
    }
    for threads in THREADS {
        let compiled = cpu::compile_with(
            &optimized,
            CpuOptions { parallel: true, threads: Some(threads), ..CpuOptions::default() },
        )
        .expect("compiles");
        let out = compiled.call("f", vec![f64_vector(&x), int(3)]).expect("runs");
        let got = f64s(&out[0]);
        assert_eq!(got.len(), n);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits(), w.to_bits(), "element {k}, {threads} threads");
        }
    }
}
