//! `vr-bench-rvec`: R's vector style against R's loop style, compiled code only (issue
//! 18 part 2). Each kernel of bench/r with an array-style version (`NAME_vec`, next to
//! the loop version in the same file) is compiled by the R front end for the same
//! arguments as the loop version, optimized (`VR_PASSES` as users set it) and run on the
//! cpu backend, interleaved with the loop version; results must agree (1e-12 relative
//! as R's `all.equal` measures it: R's `sum` adds in long double, the loops in double).
//! Prints medians of wall times; under `valgrind --tool=callgrind` the functions
//! `run_loops` and `run_vector` give instruction counts of the compiled code alone,
//! which do not depend on the machine's load (`scripts/rvec-insns.sh`).
//! bench/r/array_style.R measures the same kernels through R, with R's own time and C's.
//!
//! Usage: vr-bench-rvec [--kernel NAME] [--reps R] [--scale S] [--as-r] [--out DIR]
//! (S divides the sizes; --as-r compiles as the R package does: cpu-par, parameters
//! never alias). Every repetition's time is also written as CSV (`vr-bench-rvec.csv`,
//! configs `vr-loops` and `vr-vec`, with `-as-r` appended under --as-r; see `record`)
//! into the run's folder (`--out DIR`, see `record::RunInfo`).

#[path = "../record.rs"]
#[allow(dead_code)]
mod record;
#[path = "../timing.rs"]
#[allow(dead_code)]
mod timing;

use record::{Recorder, RunInfo, Sample};
use serde_json::{json, Value as Json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use velociraptor::cpu::{self, CompiledModule, CpuOptions};
use velociraptor::frontend::r;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::Value;

struct Kernel {
    name: &'static str,
    file: &'static str,
    loops: &'static str,
    vector: &'static str,
    size: usize,
    args: fn(usize, &mut Lcg) -> Vec<Json>,
}

/// A small deterministic generator (64-bit LCG), uniform in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Json {
        json!((0..n)
            .map(|_| lo + (hi - lo) * self.unit())
            .collect::<Vec<f64>>())
    }
    fn matrix(&mut self, n: usize, lo: f64, hi: f64) -> Json {
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|_| (0..n).map(|_| lo + (hi - lo) * self.unit()).collect())
            .collect();
        json!({"dtype": "f64", "shape": [n, n], "data": rows})
    }
}

fn kernels() -> Vec<Kernel> {
    vec![
        Kernel {
            name: "arc_distance",
            file: "arc_distance",
            loops: "arc_distance",
            vector: "arc_distance_vec",
            size: 400_000,
            args: |n, g| (0..4).map(|_| g.vec(n, -1.5, 1.5)).collect(),
        },
        Kernel {
            name: "rosen_der",
            file: "rosen_der",
            loops: "rosen_der",
            vector: "rosen_der_vec",
            size: 4_000_000,
            args: |n, g| vec![g.vec(n, 0.0, 2.0)],
        },
        Kernel {
            name: "black_scholes",
            file: "black_scholes",
            loops: "black_scholes",
            vector: "black_scholes_vec",
            size: 1_000_000,
            args: |n, g| {
                vec![
                    g.vec(n, 5.0, 30.0),
                    g.vec(n, 1.0, 100.0),
                    g.vec(n, 0.25, 10.0),
                    json!(0.02),
                    json!(0.3),
                ]
            },
        },
        Kernel {
            name: "stencil5",
            file: "stencil5",
            loops: "stencil5",
            vector: "stencil5_vec",
            size: 2000,
            args: |n, g| vec![g.matrix(n, 0.0, 1.0)],
        },
        Kernel {
            name: "matmul_loops",
            file: "matmul_loops",
            loops: "matmul_loops",
            vector: "matmul_vec",
            size: 300,
            args: |n, g| vec![g.matrix(n, -0.5, 0.5), g.matrix(n, -0.5, 0.5)],
        },
        Kernel {
            name: "nbody1d",
            file: "nbody1d",
            loops: "nbody1d",
            vector: "nbody1d_vec",
            size: 3000,
            args: |n, g| {
                vec![
                    g.vec(n, 0.0, 100.0),
                    g.vec(n, -0.5, 0.5),
                    g.vec(n, 0.5, 1.5),
                    json!(0.01),
                    json!(1e-3),
                ]
            },
        },
        Kernel {
            name: "pi_sum",
            file: "pi_sum",
            loops: "pi_sum",
            vector: "pi_sum_vec",
            size: 10_000,
            args: |n, _| vec![json!(50.0), json!(n as f64)],
        },
    ]
}

#[inline(never)]
fn run_loops(m: &CompiledModule, name: &str, args: Vec<Value>) -> (Duration, Vec<Value>) {
    let start = Instant::now();
    let out = m.call(name, args).expect("loop version runs");
    (start.elapsed(), out)
}

#[inline(never)]
fn run_vector(m: &CompiledModule, name: &str, args: Vec<Value>) -> (Duration, Vec<Value>) {
    let start = Instant::now();
    let out = m.call(name, args).expect("vector version runs");
    (start.elapsed(), out)
}

/// Compile `func` of `src` for `args` as the cpu backend gets it.
fn compile(
    src: &str,
    func: &str,
    args: &[Json],
    passes: &OptOptions,
) -> (CompiledModule, Vec<Value>) {
    let (m, values) =
        r::compile_for_json(src, func, args).unwrap_or_else(|e| panic!("{func}: {e}"));
    let (optimized, _) = optimize(&m, passes).expect("optimizes");
    let base = if passes.parallel_loops {
        CpuOptions::parallel()
    } else {
        CpuOptions::default()
    };
    let compiled = cpu::compile_with(&optimized, base.following(passes)).expect("compiles");
    (compiled, values)
}

/// Deep copies (a run may write into its arguments' buffers).
fn fresh(args: &[Value]) -> Vec<Value> {
    args.iter()
        .map(|v| match v {
            Value::Array(a) => Value::Array(a.copy_as(a.ty.layout)),
            other => other.clone(),
        })
        .collect()
}

/// Every element of two results, as f64.
fn flat(v: &[Value]) -> Vec<f64> {
    v.iter()
        .flat_map(|x| match x {
            Value::Scalar(s) => vec![s.as_f64().unwrap_or(f64::NAN)],
            Value::Array(a) => a
                .elements()
                .iter()
                .map(|s| s.as_f64().unwrap_or(f64::NAN))
                .collect(),
            _ => vec![],
        })
        .collect()
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|k| argv.get(k + 1))
            .cloned()
    };
    let only = arg("--kernel");
    let reps: usize = arg("--reps")
        .and_then(|v| v.parse().ok())
        .unwrap_or(7)
        .max(1);
    let scale: usize = arg("--scale")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let run = RunInfo::new(arg("--out").map(PathBuf::from));
    let mut csv = Recorder::new();
    let as_r = argv.iter().any(|a| a == "--as-r");
    let (loops_config, vec_config) = if as_r { ("vr-loops-as-r", "vr-vec-as-r") } else { ("vr-loops", "vr-vec") };
    let mut passes = OptOptions::current().expect("VR_PASSES");
    if as_r {
        // As the R package compiles: cpu-par, parameters never alias.
        passes.parallel_loops = true;
        passes.params_never_alias = true;
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/r");
    println!("| kernel | size | compiled loops ms | compiled array style ms | array/loops |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for k in kernels() {
        if only.as_deref().is_some_and(|n| n != k.name) {
            continue;
        }
        let src = std::fs::read_to_string(format!("{dir}/{}.R", k.file)).expect("kernel source");
        let size = (k.size / scale).max(3);
        let args = (k.args)(size, &mut Lcg(42));
        let (loops, loop_args) = compile(&src, k.loops, &args, &passes);
        let (vector, vec_args) = compile(&src, k.vector, &args, &passes);
        let (mut tl, mut tv) = (Vec::new(), Vec::new());
        for rep in 0..reps {
            let (t, a) = run_loops(&loops, k.loops, fresh(&loop_args));
            let (u, b) = run_vector(&vector, k.vector, fresh(&vec_args));
            if rep == 0 {
                let (a, b) = (flat(&a), flat(&b));
                // As R's all.equal: the mean absolute difference against the mean
                // absolute value (a sum of many terms may cancel to near 0, where an
                // element's relative difference means nothing).
                let diff: f64 = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum();
                let size: f64 = a.iter().map(|x| x.abs()).sum();
                let close = a.len() == b.len() && diff <= 1e-12 * size.max(f64::MIN_POSITIVE);
                assert!(
                    close,
                    "{}: the array-style result differs from the loops'",
                    k.name
                );
            }
            tl.push(t);
            tv.push(u);
        }
        let (tl, tv) = (Sample { times: tl }, Sample { times: tv });
        let threads = if passes.parallel_loops { cpu::parallel::default_threads() } else { 1 };
        csv.push(k.name, size, loops_config, threads, &tl);
        csv.push(k.name, size, vec_config, threads, &tv);
        let (l, v) = (tl.median(), tv.median());
        println!(
            "| {} | {size} | {:.3} | {:.3} | {:.2} |",
            k.name,
            l.as_secs_f64() * 1e3,
            v.as_secs_f64() * 1e3,
            v.as_secs_f64() / l.as_secs_f64()
        );
    }
    let path = csv.write(&run, "vr-bench-rvec.csv").expect("the CSV is written");
    eprintln!("vr-bench-rvec: results in {}", path.display());
}
