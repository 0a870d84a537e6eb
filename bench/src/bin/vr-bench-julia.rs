//! `vr-bench-julia`: the benchmark kernels written in Julia (bench/julia/*.jl), compiled
//! through the Julia front end, against the hand-written VRIR kernels (bench/kernels)
//! and their C references, all on `vr`'s cpu backends (issue 17, item 4). Each Julia
//! kernel is the VRIR kernel's algorithm as a Julia user writes it: 1-based, column-major
//! (columns outermost), `Threads.@threads` where the VRIR kernel has a `parfor`, the
//! output array mutated in place. Inputs are the VRIR kernel's (row-major), copied to
//! column-major with the same logical values; results must equal C's (within 1e-12)
//! before any time is printed.
//!
//! Columns: C, the VRIR kernel and the Julia kernel on `cpu` (serial) and `cpu-par`
//! (medians; the ratios also of CPU time, steadier on a shared machine)
//! (after the optimizer, as `backend::execute` and the C API compile), the ratio
//! Julia / VRIR of each, the inner-loop bounds checks the optimizer removed of those
//! emitted (VRIR, then Julia) and the
//! Julia front end's compile time (front end, optimizer and LLVM). Never a timed test.
//!
//! Every timed version is also written as CSV (`vr-bench-julia.csv`, the columns of
//! `record`; configs `c`, `vrir-cpu`, `julia-cpu`, `vrir-par`, `julia-par`, and
//! `julia-compile`) into the run's folder (`--out DIR`, see `record::RunInfo`).
//!
//! Usage: vr-bench-julia [--quick] [--kernel NAME] [--reps N] [--out DIR]

#[path = "../c_ref.rs"]
#[allow(dead_code)]
mod c_ref;
#[path = "../kernels.rs"]
#[allow(dead_code)]
mod kernels;
#[path = "../record.rs"]
#[allow(dead_code)]
mod record;
#[path = "../timing.rs"]
#[allow(dead_code)]
mod timing;

use kernels::{fresh_copy, observed, Kernel};
use record::{Recorder, RunInfo, Sample};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use velociraptor::cpu::{self, CompiledModule, CpuOptions};
use velociraptor::frontend::julia;
use velociraptor::frontend::types::Ty;
use velociraptor::opt::explain::inner_loop_checks;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::ast::Module;
use velociraptor::vrir::types::Layout;
use velociraptor::vrir::verify::verify_module;

const TOLERANCE: f64 = 1e-12;

/// The Julia source of each kernel (bench/julia/NAME.jl; the function is `NAME!`).
fn julia_source(name: &str) -> Option<&'static str> {
    Some(match name {
        "arc_distance" => include_str!("../../julia/arc_distance.jl"),
        "black_scholes" => include_str!("../../julia/black_scholes.jl"),
        "growcut" => include_str!("../../julia/growcut.jl"),
        "julia_set" => include_str!("../../julia/julia_set.jl"),
        "matmul_loops" => include_str!("../../julia/matmul_loops.jl"),
        "nbody1d" => include_str!("../../julia/nbody1d.jl"),
        "rosen_der" => include_str!("../../julia/rosen_der.jl"),
        "stencil5" => include_str!("../../julia/stencil5.jl"),
        _ => return None,
    })
}

/// The arguments with every array copied to column-major (same logical values).
fn column_major(args: &[Value]) -> Vec<Value> {
    args.iter()
        .map(|v| match v {
            Value::Array(a) => Value::Array(a.copy_as(Layout::Col)),
            other => other.clone(),
        })
        .collect()
}

/// `observed` in logical (row-major) order, whatever the layout.
fn observed_logical(args: &[Value], results: &[Value]) -> Vec<f64> {
    let row = |vs: &[Value]| -> Vec<Value> {
        vs.iter()
            .map(|v| match v {
                Value::Array(a) => Value::Array(a.copy_as(Layout::Row)),
                other => other.clone(),
            })
            .collect()
    };
    observed(&row(args), &row(results))
}

fn type_of(v: &Value) -> Result<Ty, String> {
    match v {
        Value::Scalar(s) => Ok(Ty::scalar(s.ty())),
        Value::Array(a) => Ok(Ty::array(a.ty.elem, a.ty.ndims)),
        _ => Err("an argument that is neither a scalar nor an array".into()),
    }
}

fn compare(got: &[f64], want: &[f64]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} numbers, C has {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !(g == w || (g - w).abs() <= TOLERANCE * g.abs().max(w.abs())) {
            return Err(format!("number {i}: {g} vs C {w}"));
        }
    }
    Ok(())
}

/// CPU time of the process (every thread), from `clock_gettime`: unlike wall time it
/// does not grow while other processes hold the cores, so ratios of it are steady on a
/// shared machine (Linux; the workspace has no libc dependency to call it through).
fn cpu_time() -> Duration {
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
    // SAFETY: a valid out-pointer; the call only writes it.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.sec as u64, ts.nsec as u32)
}

/// One version to time: its inputs (copied fresh for each run, outside the timing) and
/// the call.
type Run<'a> = (&'a Vec<Value>, Box<dyn Fn(Vec<Value>) -> Result<(), String> + 'a>);

/// `reps` timed runs of each version, the versions taking turns: every wall time, and the
/// median CPU time (of every thread).
fn interleaved<const N: usize>(reps: usize, runs: &[Run<'_>; N]) -> Result<[(Sample, Duration); N], String> {
    let mut wall: Vec<Vec<Duration>> = vec![Vec::new(); N];
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::new(); N];
    for _ in 0..reps.max(1) {
        for (k, (inputs, run)) in runs.iter().enumerate() {
            let args = fresh_copy(inputs);
            let (start, start_cpu) = (Instant::now(), cpu_time());
            run(args)?;
            cpu[k].push(cpu_time().saturating_sub(start_cpu));
            wall[k].push(start.elapsed());
        }
    }
    Ok(std::array::from_fn(|k| {
        let cpu_median = timing::median(&mut cpu[k]);
        (Sample { times: std::mem::take(&mut wall[k]) }, cpu_median)
    }))
}

struct Row {
    kernel: &'static str,
    size: usize,
    c: (Sample, Duration),
    vrir: (Sample, Duration),
    julia: (Sample, Duration),
    vrir_par: (Sample, Duration),
    julia_par: (Sample, Duration),
    checks: ((u64, u64), (u64, u64)),
    compile: Duration,
}

impl Row {
    /// The CSV rows of every timed version (cpu-par's at its thread count).
    fn record(&self, csv: &mut Recorder, threads: usize) {
        for (config, (wall, _), t) in [
            ("c", &self.c, 1),
            ("vrir-cpu", &self.vrir, 1),
            ("julia-cpu", &self.julia, 1),
            ("vrir-par", &self.vrir_par, threads),
            ("julia-par", &self.julia_par, threads),
        ] {
            csv.push(self.kernel, self.size, config, t, wall);
        }
        csv.push(self.kernel, self.size, "julia-compile", 1, &Sample { times: vec![self.compile] });
    }
}

/// Compile a verified module: optimized, serial and parallel.
fn build(m: &Module) -> Result<(Module, CompiledModule, CompiledModule), String> {
    verify_module(m).map_err(|e| e.to_string())?;
    let (opt, _) = optimize(m, &OptOptions::all()).map_err(|e| e.to_string())?;
    let serial = cpu::compile(&opt).map_err(|e| e.to_string())?;
    let par = cpu::compile_with(&opt, CpuOptions::parallel()).map_err(|e| e.to_string())?;
    Ok((opt, serial, par))
}

fn measure(k: &Kernel, quick: bool, reps: usize, dir: &c_ref::BuildDir) -> Result<Row, String> {
    let size = if quick { k.quick_size } else { k.size };
    let src = julia_source(k.name).ok_or("no Julia version")?;
    let entry = format!("{}!", k.name);
    let inputs = (k.inputs)(size);
    let col_inputs = column_major(&inputs);
    let types = col_inputs.iter().map(type_of).collect::<Result<Vec<_>, _>>()?;

    let start = Instant::now();
    let jm = julia::compile(src, &entry, types).map_err(|e| format!("Julia front end: {e}"))?;
    let (_, julia_serial, julia_par) = build(&jm)?;
    let compile = start.elapsed();
    let jname = julia::entry_name(&entry);
    let vm = velociraptor::vrir::text::parse_module(k.vrir).map_err(|e| e.to_string())?;
    let (_, vrir_serial, vrir_par) = build(&vm)?;

    // Results first: C, then each compiled version must agree.
    let lib = c_ref::build_and_load(dir, k.name, k.c_source, false)?;
    let c_args = fresh_copy(&inputs);
    let c_results = (k.call_c)(&lib, &c_args)?;
    let expected = observed(&c_args, &c_results);
    for (label, m, name, args) in [
        ("VRIR cpu", &vrir_serial, k.name, &inputs),
        ("VRIR cpu-par", &vrir_par, k.name, &inputs),
        ("Julia cpu", &julia_serial, jname.as_str(), &col_inputs),
        ("Julia cpu-par", &julia_par, jname.as_str(), &col_inputs),
    ] {
        let a = fresh_copy(args);
        let r = m.call(name, a.clone()).map_err(|e| format!("{label}: {e}"))?;
        compare(&observed_logical(&a, &r), &expected).map_err(|e| format!("{label} differs from C: {e}"))?;
    }

    // The five versions take turns in each repetition, so that a busy spell of the
    // machine slows all of them alike.
    let run_module = |m: &CompiledModule, name: &str, args: Vec<Value>| m.call(name, args).map(|_| ()).map_err(|e| e.to_string());
    let runs: [Run; 5] = [
        (&inputs, Box::new(|a| (k.call_c)(&lib, &a).map(|_| ()))),
        (&inputs, Box::new(|a| run_module(&vrir_serial, k.name, a))),
        (&col_inputs, Box::new(|a| run_module(&julia_serial, &jname, a))),
        (&inputs, Box::new(|a| run_module(&vrir_par, k.name, a))),
        (&col_inputs, Box::new(|a| run_module(&julia_par, &jname, a))),
    ];
    let [c, vrir, julia, vrir_par, julia_par] = interleaved(reps, &runs)?;
    let opts = OptOptions::all();
    let checks = (inner_loop_checks(&vm, k.name, &opts).map_err(|e| e.to_string())?, inner_loop_checks(&jm, &jname, &opts).map_err(|e| e.to_string())?);
    Ok(Row { kernel: k.name, size, c, vrir, julia, vrir_par, julia_par, checks, compile })
}

fn main() -> ExitCode {
    let mut quick = false;
    let mut only: Option<String> = None;
    let mut reps = 7;
    let mut out: Option<PathBuf> = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => {
                quick = true;
                reps = 2;
            }
            "--kernel" => only = it.next(),
            "--reps" => reps = it.next().and_then(|r| r.parse().ok()).unwrap_or(reps),
            "--out" => out = it.next().map(PathBuf::from),
            other => {
                eprintln!("unknown argument `{other}`\nusage: vr-bench-julia [--quick] [--kernel NAME] [--reps N] [--out DIR]");
                return ExitCode::from(2);
            }
        }
    }
    let dir = match c_ref::BuildDir::new() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vr-bench-julia: {e}");
            return ExitCode::FAILURE;
        }
    };
    let run = RunInfo::new(out);
    let mut csv = Recorder::new();
    let threads = cpu::parallel::default_threads();
    let ms = |d: &(Sample, Duration)| d.0.median().as_secs_f64() * 1e3;
    let cpu_ms = |d: &(Sample, Duration)| d.1.as_secs_f64() * 1e3;
    println!(
        "{:<14} {:>9} {:>8} {:>9} {:>9} {:>7} {:>7} {:>9} {:>9} {:>7} {:>7} {:>11} {:>9}",
        "kernel", "size", "C ms", "VRIR ms", "Julia ms", "J/V", "cpu J/V", "VRIR par", "Julia par", "J/V par", "cpu", "checks V J", "compile"
    );
    let mut failed = false;
    for k in kernels::all().iter().filter(|k| only.as_deref().is_none_or(|o| o == k.name)) {
        eprintln!("{} ...", k.name);
        match measure(k, quick, reps, &dir) {
            Ok(r) => {
                r.record(&mut csv, threads);
                println!(
                "{:<14} {:>9} {:>8.2} {:>9.2} {:>9.2} {:>7.3} {:>7.3} {:>9.2} {:>9.2} {:>7.3} {:>7.3} {:>11} {:>7.1}ms",
                r.kernel,
                r.size,
                ms(&r.c),
                ms(&r.vrir),
                ms(&r.julia),
                ms(&r.julia) / ms(&r.vrir),
                cpu_ms(&r.julia) / cpu_ms(&r.vrir),
                ms(&r.vrir_par),
                ms(&r.julia_par),
                ms(&r.julia_par) / ms(&r.vrir_par),
                cpu_ms(&r.julia_par) / cpu_ms(&r.vrir_par),
                format!("{}/{} {}/{}", r.checks.0 .1, r.checks.0 .0, r.checks.1 .1, r.checks.1 .0),
                r.compile.as_secs_f64() * 1e3
            )
            }
            Err(e) => {
                eprintln!("{}: {e}", k.name);
                failed = true;
            }
        }
    }
    if quick {
        println!("(--quick: tiny sizes, few repetitions; the times mean nothing)");
    }
    println!(
        "cpu-par: {threads} threads. Times are wall-time medians; J/V: the Julia kernel's time over the hand-written VRIR kernel's, of wall time, then of CPU time (all threads; steady on a shared machine)."
    );
    match csv.write(&run, "vr-bench-julia.csv") {
        Ok(path) => eprintln!("vr-bench-julia: results in {}", path.display()),
        Err(e) => {
            eprintln!("vr-bench-julia: {e}");
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
