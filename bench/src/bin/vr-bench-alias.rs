//! `vr-bench-alias`: what `alias-version` is worth where aliasing decides the code:
//! matrix-vector `y[i] += A[i,j] * x[j]` and its transposed-access twin, compiled for the
//! `cpu` backend with no-alias versions on and off, timed interleaved (one repetition
//! of each, then the next) so load from other processes hits both alike; medians.
//! Without the no-alias version LLVM must store and reload y[i] on every j (a store
//! through y may change A or x); with it y[i] stays in a register. Results are checked
//! equal (bit for bit: same operations, same order) before timing. Also reports
//! `noalias_calls` to show which version ran.
//!
//! Usage: vr-bench-alias [--n N] [--reps R]

use std::time::Instant;
use velociraptor::cpu::{self, CpuOptions};
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::{Array, Buffer, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

const KERNELS: &str = "(module k :index-base 0
  (function matvec ((a f64[2,row]) (x f64[1,row]) (y f64[1,row])) ()
    (locals (i i64) (j i64))
    (for (i) (range 0 (- (dim a 0) 1))
      (block (for (j) (range 0 (- (dim a 1) 1))
        (block (set (index y i) (+ (index y i) (* (index a i j) (index x j)))))))))
  (function matvec_t ((a f64[2,row]) (x f64[1,row]) (y f64[1,row])) ()
    (locals (i i64) (j i64))
    (for (j) (range 0 (- (dim a 1) 1))
      (block (for (i) (range 0 (- (dim a 0) 1))
        (block (set (index y j) (+ (index y j) (* (index a i j) (index x i))))))))))";

fn array(dims: Vec<usize>, f: impl Fn(usize) -> f64) -> Array {
    let n: usize = dims.iter().product();
    let ty = ArrayType::new(ScalarType::F64, dims.len() as u32, Layout::Row);
    let mut a = Array::zeros(ty, dims);
    a.data = std::rc::Rc::new(std::cell::RefCell::new(Buffer::F64(
        (0..n).map(f).collect(),
    )));
    a
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (n, reps) = (arg("--n", 2000), arg("--reps", 9));
    let m = parse_module(KERNELS).expect("kernels parse");
    let (optimized, _) = optimize(&m, &OptOptions::all()).expect("optimizes");
    let build = |on: bool| {
        cpu::compile_with(
            &optimized,
            CpuOptions {
                alias_versions: on,
                ..CpuOptions::default()
            },
        )
        .expect("compiles")
    };
    let (with, without) = (build(true), build(false));
    let a = array(vec![n, n], |k| ((k % 17) as f64) * 0.25 - 1.0);
    let x = array(vec![n], |k| ((k % 5) as f64) - 2.0);
    println!("n = {n}, medians of {reps} runs, cpu backend");
    println!(
        "{:<10}{:>14}{:>14}{:>8}",
        "kernel", "noalias ms", "original ms", "ratio"
    );
    for func in ["matvec", "matvec_t"] {
        let run = |c: &cpu::CompiledModule| {
            let y = array(vec![n], |_| 0.0);
            let t = Instant::now();
            c.call(
                func,
                vec![
                    Value::Array(a.clone()),
                    Value::Array(x.clone()),
                    Value::Array(y.clone()),
                ],
            )
            .expect("runs");
            (t.elapsed().as_secs_f64() * 1e3, y.elements())
        };
        let (_, r1) = run(&with);
        let (_, r2) = run(&without);
        assert!(
            r1.iter().zip(&r2).all(|(p, q)| p.same(q)),
            "{func}: versions differ"
        );
        let (mut t1, mut t2) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            t1.push(run(&with).0);
            t2.push(run(&without).0);
        }
        t1.sort_by(f64::total_cmp);
        t2.sort_by(f64::total_cmp);
        let (m1, m2) = (t1[reps / 2], t2[reps / 2]);
        println!("{func:<10}{m1:>14.3}{m2:>14.3}{:>8.2}", m2 / m1);
    }
    println!(
        "no-alias entries: {} of {} calls (with), {} (without)",
        with.noalias_calls(),
        2 * (reps + 1),
        without.noalias_calls()
    );
}
