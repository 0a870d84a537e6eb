//! `vr-bench-par`: the code quality of parallel loops without parallel noise. Each
//! kernel with a parfor is compiled after the optimizer for `cpu` (the parfor as a
//! serial loop) and for `cpu-par`, and called at one thread (the outlined body runs
//! the whole domain as one chunk on the calling thread, no pool involved): what is left
//! of the difference is the outlined body's code. Prints medians of wall times; under
//! `valgrind --tool=callgrind` the functions `run_serial` and `run_par` give
//! deterministic instruction counts (`scripts/par-insns.sh` does that).
//!
//! Usage: vr-bench-par [--kernel NAME] [--reps R] [--scale S] [--threads T] [--out DIR]
//! (S divides each kernel's full size, for callgrind; T: cpu-par's thread count, 1 by
//! default). The optimizer and the backend's switches follow `VR_PASSES`
//! (`VR_PASSES=-atomic-privatize` keeps growcut's atomics). Every repetition's time is
//! also written as CSV (`vr-bench-par.csv`, configs `cpu-optimized` and `cpu-par` at T
//! threads; see `record`) into the run's folder (`--out DIR`, see `record::RunInfo`).

#[path = "../kernels.rs"]
#[allow(dead_code)]
mod kernels;
#[path = "../record.rs"]
#[allow(dead_code)]
mod record;
#[path = "../timing.rs"]
#[allow(dead_code)]
mod timing;

use record::{Recorder, RunInfo, Sample};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use velociraptor::cpu::{self, CompiledModule, CpuOptions};
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::text::parse_module;

#[inline(never)]
fn run_serial(m: &CompiledModule, name: &str, args: Vec<Value>) -> Duration {
    let start = Instant::now();
    m.call(name, args).expect("serial run");
    start.elapsed()
}

#[inline(never)]
fn run_par(m: &CompiledModule, name: &str, args: Vec<Value>) -> Duration {
    let start = Instant::now();
    m.call(name, args).expect("parallel run");
    start.elapsed()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .cloned()
    };
    let only = arg("--kernel");
    let reps: usize = arg("--reps").and_then(|v| v.parse().ok()).unwrap_or(7);
    let scale: usize = arg("--scale")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let threads: usize = arg("--threads")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let run = RunInfo::new(arg("--out").map(PathBuf::from));
    let mut csv = Recorder::new();
    // VR_PASSES as users set it (`-atomic-privatize` for the atomics as written).
    let passes = OptOptions::current().expect("VR_PASSES");
    println!(
        "| kernel | size | cpu (optimized) ms | cpu-par ms ({threads} thread(s)) | cpu-par / cpu |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    for k in kernels::all() {
        if !k.vrir.contains("(parfor") || only.as_deref().is_some_and(|n| n != k.name) {
            continue;
        }
        let module = parse_module(k.vrir).expect("kernel parses");
        let (optimized, _) = optimize(&module, &passes).expect("optimizes");
        let serial = cpu::compile_with(&optimized, CpuOptions::default().following(&passes))
            .expect("compiles for cpu");
        let mut par = cpu::compile_with(&optimized, CpuOptions::parallel().following(&passes))
            .expect("compiles for cpu-par");
        par.set_threads(threads);
        let size = (k.size / scale).max(k.quick_size);
        let inputs = (k.inputs)(size);
        let (mut ts, mut tp) = (Vec::new(), Vec::new());
        // Interleaved, so load from other processes hits both alike.
        for _ in 0..reps.max(1) {
            ts.push(run_serial(&serial, k.name, kernels::fresh_copy(&inputs)));
            tp.push(run_par(&par, k.name, kernels::fresh_copy(&inputs)));
        }
        let (ts, tp) = (Sample { times: ts }, Sample { times: tp });
        csv.push(k.name, size, "cpu-optimized", 1, &ts);
        csv.push(k.name, size, "cpu-par", threads, &tp);
        let (s, p) = (ts.median(), tp.median());
        println!(
            "| {} | {size} | {:.3} | {:.3} | {:.2} |",
            k.name,
            s.as_secs_f64() * 1e3,
            p.as_secs_f64() * 1e3,
            p.as_secs_f64() / s.as_secs_f64()
        );
    }
    let path = csv.write(&run, "vr-bench-par.csv").expect("the CSV is written");
    eprintln!("vr-bench-par: results in {}", path.display());
}
