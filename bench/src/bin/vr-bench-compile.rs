//! `vr-bench-compile`: where a cold compile's time goes (issue 18 part 3). For each bench
//! kernel, in its VRIR form (bench/kernels) and its R form (bench/r), compiles REPS times
//! in this process and prints the median wall time of each phase
//! (`velociraptor::compile_phases`) and of the whole compile, text in -> callable
//! out. Modes:
//! - `vrir-cpu`: parse, verify, `cpu::compile` (vr-bench's compile column);
//! - `vrir-par`: parse, verify, optimizer (all passes), `cpu-par` (as `backend::execute`
//!   compiles);
//! - `r-par`: R front end, optimizer (`VR_PASSES`), `cpu-par` with parameters that never
//!   alias (as the R package compiles, like `vr-bench-rvec --as-r`).
//! - `r-vec`: as `r-par`, for the array-style versions (`NAME_vec`, bench/r/array_style.R
//!   and `vr-bench-rvec`), where first calls are slowest; not in the default modes'
//!   medians (ask for it with `--mode r-vec`), so earlier runs' medians stay comparable.
//!
//! - `tiers`: the quick tier against the full one (`cpu::tiers`, `VR_TIERS=quick-first`):
//!   each VRIR kernel after the optimizer, on `cpu`, compiled at both tiers, their
//!   results checked bit for bit against each other, then run at the bench size
//!   (alternating, REPS runs each): compile ms, run ms, and compile + first run.
//!
//! `--tier quick`: the other modes compile at the quick tier (the compile a host
//! compiling quick first waits for), labelled `MODE quick`.
//!
//! The first compile of the process also pays LLVM's one-time target initialisation: it
//! is printed apart (`first ms`) and left out of the medians, which are what each later
//! first call of a new function costs in an interactive session.
//!
//! Besides wall times, `total cpu` is the compile's CPU time, every thread of the process
//! (LLVM's phases run on a thread of their own; the steadier of the two on a machine
//! shared with other jobs).
//!
//! Every compile is also one CSV row (`vr-bench-compile.csv`, the columns of `record`
//! with reps 1: config = the mode, its whole wall time; the process's first compile as
//! `process-first`), so that the report draws the distribution of single compiles, not
//! of medians. Into the run's folder: `--out DIR`, see `record::RunInfo`.
//!
//! Usage: vr-bench-compile [--quick] [--reps R] [--kernel NAME] [--mode MODE] [--tier quick] [--out DIR]
//! (--quick: 2 compiles of each, not 5)

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
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use velociraptor::compile_phases;
use velociraptor::cpu::{self, CpuOptions};
use velociraptor::frontend::r;
use velociraptor::frontend::types::Ty;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::ScalarType;
use velociraptor::vrir::verify::verify_module;

/// The R kernels and the argument types bench/r/run.R calls them with.
fn r_kernels() -> Vec<(&'static str, Vec<Ty>)> {
    let (f, i) = (ScalarType::F64, ScalarType::I32);
    let (s, v, m) = (Ty::scalar(f), Ty::array(f, 1), Ty::array(f, 2));
    vec![
        ("arc_distance", vec![v; 4]),
        ("julia_set", vec![s, s, s, s, Ty::scalar(i), s]),
        (
            "growcut",
            vec![Ty::array(f, 3), Ty::array(f, 3), Ty::scalar(i)],
        ),
        ("rosen_der", vec![v]),
        ("stencil5", vec![m]),
        ("matmul_loops", vec![m, m]),
        ("nbody1d", vec![v, v, v, s, s]),
        ("black_scholes", vec![v, v, v, s, s]),
    ]
}

/// The array-style R kernels (mode `r-vec`): function, file in bench/r, argument types
/// (those of bench/r/array_style.R's calls).
fn r_vec_kernels() -> Vec<(&'static str, &'static str, Vec<Ty>)> {
    let f = ScalarType::F64;
    let (s, v, m) = (Ty::scalar(f), Ty::array(f, 1), Ty::array(f, 2));
    vec![
        ("arc_distance_vec", "arc_distance", vec![v; 4]),
        ("rosen_der_vec", "rosen_der", vec![v]),
        ("black_scholes_vec", "black_scholes", vec![v, v, v, s, s]),
        ("stencil5_vec", "stencil5", vec![m]),
        ("matmul_vec", "matmul_loops", vec![m, m]),
        ("nbody1d_vec", "nbody1d", vec![v, v, v, s, s]),
        ("pi_sum_vec", "pi_sum", vec![s, s]),
    ]
}

type Phases = Vec<(&'static str, Duration)>;

/// CPU time of the process, all threads (Linux `CLOCK_PROCESS_CPUTIME_ID`). A compile
/// runs on its caller's thread and LLVM's phases on a thread of their own
/// (`cpu::interrupt::off_thread`), and nothing else runs here meanwhile, so this is the
/// compile's work without the time spent waiting for a core: on a machine shared with
/// other jobs, the steadier of the two totals.
fn process_cpu() -> Duration {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: a valid out-pointer; the clock id is Linux's.
    if unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.sec.max(0) as u64, ts.nsec.clamp(0, 999_999_999) as u32)
}

/// One compile in `mode` of kernel `name`: its phases, front end and optimizer included.
fn compile_once(mode: &str, quick_tier: bool, name: &str, vrir: &str, rsrc: &str, rargs: &[Ty]) -> Phases {
    compile_phases::take();
    let mut pre = Vec::new();
    let cpu0 = process_cpu();
    let t = Instant::now();
    let module = if mode == "r-par" || mode == "r-vec" {
        let m = r::compile(rsrc, name, rargs.to_vec()).unwrap_or_else(|e| panic!("{name}: {e}"));
        pre.push(("front end", t.elapsed()));
        m
    } else {
        let m = parse_module(vrir).unwrap_or_else(|e| panic!("{name}: {e}"));
        verify_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        pre.push(("front end", t.elapsed()));
        m
    };
    let compiled = match mode {
        "vrir-cpu" => cpu::compile_with(&module, CpuOptions { quick: quick_tier, ..CpuOptions::default() }),
        _ => {
            let r_mode = mode == "r-par" || mode == "r-vec";
            let mut passes = if r_mode {
                OptOptions::current().expect("VR_PASSES")
            } else {
                OptOptions::all()
            };
            if r_mode {
                passes.parallel_loops = true;
                passes.params_never_alias = true;
            }
            let t = Instant::now();
            let (optimized, _) = optimize(&module, &passes).expect("optimizes");
            pre.push(("optimizer", t.elapsed()));
            let opts = CpuOptions { quick: quick_tier, ..CpuOptions::parallel().following(&passes) };
            cpu::compile_with(&optimized, opts)
        }
    };
    let total = t.elapsed();
    let cpu = process_cpu().saturating_sub(cpu0);
    compiled.unwrap_or_else(|e| panic!("{name}: {e}"));
    pre.extend(compile_phases::take());
    pre.push(("total cpu", cpu));
    pre.push(("total", total));
    pre
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1))
            .cloned()
    };
    let quick = argv.iter().any(|a| a == "--quick");
    let reps: usize = arg("--reps")
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 2 } else { 5 })
        .max(1);
    let quick_tier = arg("--tier").is_some_and(|t| t == "quick");
    let run = RunInfo::new(arg("--out").map(PathBuf::from));
    if arg("--mode").as_deref() == Some("tiers") {
        return tiers(reps.max(3), arg("--kernel"), &run, &mut Recorder::new());
    }
    let mut csv = Recorder::new();
    let only = arg("--kernel");
    let modes: Vec<String> = match arg("--mode") {
        Some(m) => vec![m],
        None => ["vrir-cpu", "vrir-par", "r-par"].map(String::from).to_vec(),
    };
    let rdir = concat!(env!("CARGO_MANIFEST_DIR"), "/r");
    let vrir: BTreeMap<&str, &str> = kernels::all().iter().map(|k| (k.name, k.vrir)).collect();
    let mut first = None;
    let mut order: Vec<&'static str> = Vec::new();
    let mut rows = Vec::new();
    for mode in &modes {
        let list: Vec<(&'static str, &'static str, Vec<Ty>)> = if mode == "r-vec" {
            r_vec_kernels()
        } else {
            r_kernels().into_iter().map(|(n, a)| (n, n, a)).collect()
        };
        let label = if quick_tier { format!("{mode} quick") } else { mode.clone() };
        for (name, file, rargs) in list {
            if only.as_deref().is_some_and(|n| n != name) {
                continue;
            }
            let rsrc = std::fs::read_to_string(format!("{rdir}/{file}.R")).expect("R source");
            let vrir_src = vrir.get(name).copied().unwrap_or("");
            let mut samples: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
            for _ in 0..reps {
                if first.is_none() {
                    // The process's first compile initialises LLVM: measured apart.
                    let phases = compile_once(mode, quick_tier, name, vrir_src, &rsrc, &rargs);
                    let total = phases.last().expect("total").1;
                    csv.push(name, 0, "process-first", 1, &Sample { times: vec![total] });
                    first = Some(total);
                }
                let phases = compile_once(mode, quick_tier, name, vrir_src, &rsrc, &rargs);
                let total = phases.last().expect("total").1;
                csv.push(name, 0, &label, 1, &Sample { times: vec![total] });
                let mut sums: BTreeMap<&'static str, Duration> = BTreeMap::new();
                for (p, d) in phases {
                    if !order.contains(&p) {
                        order.push(p);
                    }
                    *sums.entry(p).or_default() += d;
                }
                for (p, d) in sums {
                    samples.entry(p).or_default().push(d);
                }
            }
            rows.push((label.clone(), name, samples));
        }
    }
    order.retain(|p| *p != "total" && *p != "total cpu");
    order.push("total cpu");
    order.push("total");
    println!(
        "process's first compile (LLVM initialisation included): {:.1} ms",
        first.map_or(0.0, |d| d.as_secs_f64() * 1e3)
    );
    println!("medians of {reps} compiles, ms:");
    println!("| mode | kernel | {} |", order.join(" | "));
    println!("|---|---|{}", "---:|".repeat(order.len()));
    let mut totals: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut cpu_totals: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (mode, name, samples) in rows {
        let cells: Vec<String> = order
            .iter()
            .map(|p| {
                samples
                    .get(p)
                    .map_or("-".into(), |v| format!("{:.1}", median(v.clone())))
            })
            .collect();
        totals
            .entry(mode.clone())
            .or_default()
            .push(median(samples["total"].clone()));
        cpu_totals
            .entry(mode.clone())
            .or_default()
            .push(median(samples["total cpu"].clone()));
        println!("| {mode} | {name} | {} |", cells.join(" | "));
    }
    for (what, all) in [("wall", totals), ("cpu", cpu_totals)] {
        for (mode, mut t) in all {
            t.sort_by(f64::total_cmp);
            println!(
                "{mode}: {what} median over kernels {:.1} ms (min {:.1}, max {:.1})",
                t[t.len() / 2],
                t[0],
                t[t.len() - 1]
            );
        }
    }
    let path = csv.write(&run, "vr-bench-compile.csv").expect("the CSV is written");
    eprintln!("vr-bench-compile: results in {}", path.display());
}

/// `--mode tiers`: each bench kernel (VRIR, after the optimizer, serial `cpu`) compiled
/// at the full and the quick tier; both must return the same bits; then REPS runs of
/// each at the bench size, alternating. Prints compile, run and compile + first run.
fn tiers(reps: usize, only: Option<String>, run: &RunInfo, csv: &mut Recorder) {
    use velociraptor::cpu::CompiledModule;
    let full_opts = CpuOptions::default();
    let quick_opts = CpuOptions { quick: true, ..full_opts };
    // LLVM's one-time initialisation, outside every figure.
    let warm = kernels::all().remove(0);
    let m = parse_module(warm.vrir).expect("parses");
    cpu::compile_with(&m, quick_opts).expect("compiles");
    println!("| kernel | full: compile ms | quick: compile ms | full: run ms | quick: run ms | quick/full run | full: compile + run ms | quick: compile + run ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut ratios = Vec::new();
    let mut compiles: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    for k in kernels::all() {
        if only.as_deref().is_some_and(|n| n != k.name) {
            continue;
        }
        let m = parse_module(k.vrir).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        verify_module(&m).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        let (optimized, _) = optimize(&m, &OptOptions::all()).expect("optimizes");
        let timed = |opts: CpuOptions| {
            let t = Instant::now();
            let c = cpu::compile_with(&optimized, opts).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            (c, t.elapsed())
        };
        let (full, full_compile) = timed(full_opts);
        let (quick, quick_compile) = timed(quick_opts);
        let inputs = (k.inputs)(k.size);
        let run_once = |c: &CompiledModule| {
            let args = kernels::fresh_copy(&inputs);
            let t = Instant::now();
            let results = c.call(k.name, args.clone()).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            (t.elapsed(), kernels::observed(&args, &results))
        };
        let (mut full_runs, mut quick_runs) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let (tf, of) = run_once(&full);
            let (tq, oq) = run_once(&quick);
            let same = of.len() == oq.len() && of.iter().zip(&oq).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{}: the quick tier's results differ from the full tier's", k.name);
            full_runs.push(tf);
            quick_runs.push(tq);
        }
        csv.push(k.name, k.size, "tier-full-run", 1, &Sample { times: full_runs.clone() });
        csv.push(k.name, k.size, "tier-quick-run", 1, &Sample { times: quick_runs.clone() });
        csv.push(k.name, 0, "tier-full-compile", 1, &Sample { times: vec![full_compile] });
        csv.push(k.name, 0, "tier-quick-compile", 1, &Sample { times: vec![quick_compile] });
        let (fc, qc) = (full_compile.as_secs_f64() * 1e3, quick_compile.as_secs_f64() * 1e3);
        let (fr, qr) = (median(full_runs), median(quick_runs));
        ratios.push(qr / fr);
        compiles.0.push(fc);
        compiles.1.push(qc);
        println!(
            "| {} | {fc:.1} | {qc:.1} | {fr:.2} | {qr:.2} | {:.2} | {:.1} | {:.1} |",
            k.name,
            qr / fr,
            fc + fr,
            qc + qr
        );
    }
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "medians over kernels: compile full {:.1} ms, quick {:.1} ms; quick/full run time {:.2} (max {:.2})",
        mid(compiles.0),
        mid(compiles.1),
        mid(ratios.clone()),
        ratios.iter().copied().fold(f64::NAN, f64::max)
    );
    match csv.write(run, "vr-bench-compile-tiers.csv") {
        Ok(path) => eprintln!("vr-bench-compile: results in {}", path.display()),
        Err(e) => eprintln!("vr-bench-compile: {e}"),
    }
}
