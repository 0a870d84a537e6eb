//! `vr-bench`: times each benchmark kernel on the interpreter, the cpu backend (bounds
//! checks as emitted, after the optimizer, and off), the cpu-par backend (parfor loops
//! on every core, after the optimizer, as users get it) and its C reference, after checking that compiled and C
//! results agree, and prints one table. Never used for timed assertions.
//!
//! Kernels with a parfor are also timed as their C reference built with OpenMP (the
//! same loop under `#pragma omp parallel for`), at the same thread count as cpu-par.
//! `--threads 1,2,4,8,16` adds a thread sweep of cpu-par and OpenMP for a scaling curve.
//! STREAM's triad is measured at the same thread counts, and the memory-bound kernels'
//! achieved bandwidth printed against it (see `stream`).
//! Every timed configuration is also written as CSV (`vr-bench.csv`, see `record`) into
//! the run's folder (`--out DIR`).
//!
//! Usage: vr-bench [--quick] [--kernel NAME] [--passes | --gpu] [--threads LIST] [--out DIR]
//! (`--passes`: each optimizer pass's worth instead, see `passes`; `--gpu`: the kernels
//! in GPU sections on the OpenCL device next to cpu-par, see `gpu`; `--gpu-resident`:
//! calls with arrays kept on the device against residency off, see `resident`).

mod c_ref;
mod gpu;
mod gpu_stream;
mod resident;
mod kernels;
mod nocheck;
mod passes;
mod record;
mod stream;
mod table;
mod timing;

use kernels::{fresh_copy, observed, Kernel};
use record::{Recorder, RunInfo, Sample};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use velociraptor::cpu::{self, CompiledModule, CpuOptions};
use velociraptor::interp;
use velociraptor::opt::explain::inner_loop_checks;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::ast::Module;
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::verify::verify_module;

/// Relative tolerance between compiled and C results.
const TOLERANCE: f64 = 1e-12;

struct Options {
    quick: bool,
    kernel: Option<String>,
    /// Time each optimizer pass off in turn instead of the backend table.
    passes: bool,
    /// The GPU table instead (`gpu.rs`).
    gpu: bool,
    /// What GPU residency saves instead (`resident.rs`).
    gpu_resident: bool,
    /// Thread counts of the scaling sweep (empty: none).
    sweep: Vec<usize>,
    /// The run's folder for the CSV (default: see `record::RunInfo`).
    out: Option<PathBuf>,
}

impl Options {
    /// Timed repetitions of compiled code and C (the median is reported).
    fn reps(&self) -> usize {
        if self.quick {
            2
        } else {
            7
        }
    }
    fn interp_reps(&self) -> usize {
        if self.quick {
            1
        } else {
            3
        }
    }
    fn compile_reps(&self) -> usize {
        if self.quick {
            2
        } else {
            10
        }
    }
}

fn main() -> ExitCode {
    // `--gpu-present`: whether `--gpu` would measure a GPU (not a CPU OpenCL such as
    // PoCL), so that scripts/bench.sh --report runs the GPU benchmark only where it means
    // something.
    if std::env::args().nth(1).as_deref() == Some("--gpu-present") {
        return match velociraptor::gpu::device() {
            Ok(d) if d.is_gpu => {
                println!("{}", d.describe());
                ExitCode::SUCCESS
            }
            Ok(d) => {
                println!("not a GPU: {}", d.describe());
                ExitCode::FAILURE
            }
            Err(why) => {
                println!("no OpenCL device: {why}");
                ExitCode::FAILURE
            }
        };
    }
    let opts = match parse_args(std::env::args().skip(1).collect()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\nusage: vr-bench [--quick] [--kernel NAME] [--passes | --gpu] [--threads 1,2,4] [--out DIR]\n       vr-bench --gpu-present   (exit 0 when the OpenCL device is a GPU)");
            return ExitCode::from(2);
        }
    };
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vr-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: Vec<String>) -> Result<Options, String> {
    let mut opts = Options {
        quick: false,
        kernel: None,
        passes: false,
        gpu: false,
        gpu_resident: false,
        sweep: Vec::new(),
        out: None,
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => opts.quick = true,
            "--passes" => opts.passes = true,
            "--gpu" => opts.gpu = true,
            "--gpu-resident" => opts.gpu_resident = true,
            "--kernel" => opts.kernel = Some(it.next().ok_or("--kernel needs a name")?),
            "--out" => opts.out = Some(PathBuf::from(it.next().ok_or("--out needs a folder")?)),
            "--threads" => {
                let list = it.next().ok_or("--threads needs a list such as 1,2,4,8,16")?;
                opts.sweep = list
                    .split(',')
                    .map(|t| t.trim().parse::<usize>().ok().filter(|n| *n > 0).ok_or(format!("bad thread count `{t}`")))
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(opts)
}

fn run(opts: &Options) -> Result<(), String> {
    let selected: Vec<Kernel> = kernels::all()
        .into_iter()
        .filter(|k| opts.kernel.is_none() || opts.kernel.as_deref() == Some(k.name))
        .collect();
    if selected.is_empty() {
        return Err(format!(
            "no kernel named `{}`",
            opts.kernel.as_deref().unwrap_or("")
        ));
    }
    if opts.gpu_resident {
        return resident::run(opts.quick, opts.reps());
    }
    let dir = c_ref::BuildDir::new()?;
    if opts.passes {
        return passes::run(&selected, opts, &dir);
    }
    if opts.gpu {
        return gpu::run(&selected, opts.quick, opts.reps(), opts.out.clone(), &dir);
    }
    let run = RunInfo::new(opts.out.clone());
    let mut csv = Recorder::new();
    let mut rows = Vec::new();
    let mut sweeps = Vec::new();
    for k in &selected {
        eprintln!("{} ...", k.name);
        let (row, sweep) = measure(k, opts, &dir, &mut csv).map_err(|e| format!("{}: {e}", k.name))?;
        rows.push(row);
        sweeps.extend(sweep);
    }
    if opts.quick {
        println!("(--quick: tiny sizes, few repetitions; the times mean nothing)");
    }
    println!("{} ({}, {})", run.machine, run.date, run.commit);
    table::print(&rows);
    if !sweeps.is_empty() {
        println!();
        table::print_sweep(&sweeps);
    }
    println!(
        "interp: timed at the reduced size shown, scaled to the full size by work (ops ~ size^d)."
    );
    println!(
        "cpu-par: {} threads (VR_THREADS, else every core); cpu/cpu-par is its speedup over cpu (optimized; both after the optimizer).",
        cpu::parallel::default_threads()
    );
    let memory_bound = selected.iter().any(|k| stream::kernel_bytes(k.name, 1).is_some());
    if memory_bound {
        let threads = cpu::parallel::default_threads();
        let counts = if opts.sweep.is_empty() { vec![threads] } else { opts.sweep.clone() };
        eprintln!("STREAM triad ...");
        let triad = stream::triad(&dir, &counts, opts.quick, opts.reps(), &mut csv)?;
        // The sweep's timings where there is one, else the table's at cpu-par's threads.
        let size_of = |k: &str| rows.iter().find(|r| r.kernel == k).map_or(0, |r| r.size);
        let timings: Vec<_> = if sweeps.is_empty() {
            rows.iter()
                .map(|r| (r.kernel.clone(), r.size, threads, r.cpu_par.as_secs_f64(), r.openmp.map(|o| o.as_secs_f64())))
                .collect()
        } else {
            sweeps
                .iter()
                .map(|s| (s.kernel.clone(), size_of(&s.kernel), s.threads, s.cpu_par.as_secs_f64(), Some(s.openmp.as_secs_f64())))
                .collect()
        };
        println!();
        stream::print(&triad, &stream::rows(&timings, &triad));
    }
    let path = csv.write(&run, "vr-bench.csv")?;
    eprintln!("vr-bench: results in {}", path.display());
    Ok(())
}

/// Text in -> callable out: parse, verify, compile.
fn compile(src: &str) -> Result<(Module, CompiledModule), String> {
    let m = parse_module(src).map_err(|e| e.to_string())?;
    verify_module(&m).map_err(|e| e.to_string())?;
    let c = cpu::compile(&m).map_err(|e| e.to_string())?;
    Ok((m, c))
}

fn measure(
    k: &Kernel,
    opts: &Options,
    dir: &c_ref::BuildDir,
    csv: &mut Recorder,
) -> Result<(table::Row, Vec<table::SweepRow>), String> {
    let (size, interp_size) = if opts.quick {
        (k.quick_size, k.quick_size)
    } else {
        (k.size, k.interp_size)
    };
    let (module, checked) = compile(k.vrir)?;
    let unchecked_module = nocheck::without_checks(&module).map_err(|e| e.to_string())?;
    verify_module(&unchecked_module).map_err(|e| e.to_string())?;
    let unchecked = cpu::compile(&unchecked_module).map_err(|e| e.to_string())?;
    let all_passes = OptOptions::all();
    let (optimized_module, _) = optimize(&module, &all_passes).map_err(|e| e.to_string())?;
    let optimized = cpu::compile(&optimized_module).map_err(|e| e.to_string())?;
    let inner_checks =
        inner_loop_checks(&module, k.name, &all_passes).map_err(|e| e.to_string())?;
    // cpu-par as users get it: after the optimizer (as `backend::execute`, the C API and
    // the R package compile), so its speedups are over `cpu (optimized)`.
    let mut parallel =
        cpu::compile_with(&optimized_module, CpuOptions::parallel()).map_err(|e| e.to_string())?;
    let lib = c_ref::build_and_load(dir, k.name, k.c_source, false)?;
    // The OpenMP reference exists where the kernel has a parallel loop to compare with.
    // Never unloaded: libgomp's idle worker threads would run unmapped code.
    let omp = if k.vrir.contains("(parfor") {
        Some(std::mem::ManuallyDrop::new(c_ref::build_and_load(dir, k.name, k.c_source, true)?))
    } else {
        None
    };
    // Each call hands its arguments and results back, to be freed after the clock stops.
    let call_c = |lib: &libloading::Library, args: Vec<Value>| (k.call_c)(lib, &args).map(|results| (args, results));
    let call_cpu = |m: &CompiledModule, args: Vec<Value>| {
        m.call(k.name, args.clone()).map(|results| (args, results)).map_err(|e| e.to_string())
    };

    // Results first: compiled code (and OpenMP) must agree with C before any time is printed.
    let inputs = (k.inputs)(size);
    let c_args = fresh_copy(&inputs);
    let c_results = (k.call_c)(&lib, &c_args)?;
    let expected = observed(&c_args, &c_results);
    for (label, m) in [
        ("cpu (checks on)", &checked),
        ("cpu (optimized)", &optimized),
        ("cpu (checks off)", &unchecked),
        ("cpu-par", &parallel),
    ] {
        let args = fresh_copy(&inputs);
        let results = m
            .call(k.name, args.clone())
            .map_err(|e| format!("{label}: {e}"))?;
        compare(&observed(&args, &results), &expected)
            .map_err(|e| format!("{label} differs from C: {e}"))?;
    }
    if let Some(omp) = &omp {
        let args = fresh_copy(&inputs);
        let results = (k.call_c)(omp, &args)?;
        compare(&observed(&args, &results), &expected)
            .map_err(|e| format!("OpenMP differs from C: {e}"))?;
    }

    let reps = opts.reps();
    let time_c = |lib: &libloading::Library| timing::sample(reps, || fresh_copy(&inputs), |a| call_c(lib, a));
    let time_cpu = |m: &CompiledModule| timing::sample(reps, || fresh_copy(&inputs), |a| call_cpu(m, a));
    let threads = cpu::parallel::default_threads();
    let c = time_c(&lib)?;
    let cpu_checked = time_cpu(&checked)?;
    let cpu_optimized = time_cpu(&optimized)?;
    let cpu_unchecked = time_cpu(&unchecked)?;
    let cpu_par = time_cpu(&parallel)?;
    let openmp = match &omp {
        Some(omp) => {
            c_ref::set_openmp_threads(omp, threads)?;
            Some(time_c(omp)?)
        }
        None => None,
    };

    let small = (k.inputs)(interp_size);
    let interp_small = timing::sample(
        opts.interp_reps(),
        || fresh_copy(&small),
        |a| {
            interp::run(&module, k.name, a)
                .map(|_| ())
                .map_err(|e| e.to_string())
        },
    )?;
    let interp = interp_small.scaled((k.work)(size) / (k.work)(interp_size));

    let mut compile_times = Vec::new();
    for _ in 0..opts.compile_reps() {
        let start = Instant::now();
        compile(k.vrir)?;
        compile_times.push(start.elapsed());
    }
    let compile = Sample { times: compile_times };

    // The scaling sweep: cpu-par and OpenMP at each thread count.
    let mut sweep = Vec::new();
    if let Some(omp) = omp.as_ref().filter(|_| !opts.sweep.is_empty()) {
        for &t in &opts.sweep {
            eprintln!("{} with {t} thread(s) ...", k.name);
            parallel.set_threads(t);
            let par = time_cpu(&parallel)?;
            c_ref::set_openmp_threads(omp, t)?;
            let om = time_c(omp)?;
            csv.push(k.name, size, "cpu-par-sweep", t, &par);
            csv.push(k.name, size, "openmp-sweep", t, &om);
            sweep.push(table::SweepRow {
                kernel: k.name.to_string(),
                threads: t,
                cpu: cpu_optimized.median(),
                cpu_par: par.median(),
                c: c.median(),
                openmp: om.median(),
            });
        }
    }

    csv.push(k.name, interp_size, "interp", 1, &interp_small);
    csv.push(k.name, size, "interp-scaled", 1, &interp);
    csv.push(k.name, size, "c", 1, &c);
    csv.push(k.name, size, "cpu-checks-on", 1, &cpu_checked);
    csv.push(k.name, size, "cpu-optimized", 1, &cpu_optimized);
    csv.push(k.name, size, "cpu-checks-off", 1, &cpu_unchecked);
    csv.push(k.name, size, "cpu-par", threads, &cpu_par);
    if let Some(om) = &openmp {
        csv.push(k.name, size, "openmp", threads, om);
    }
    csv.push(k.name, size, "compile", 1, &compile);

    let row = table::Row {
        kernel: k.name.to_string(),
        interp: interp.median(),
        interp_size,
        size,
        cpu_checked: cpu_checked.median(),
        cpu_optimized: cpu_optimized.median(),
        cpu_unchecked: cpu_unchecked.median(),
        inner_checks,
        cpu_par: cpu_par.median(),
        c: c.median(),
        openmp: openmp.map(|s| s.median()),
        compile_ms: compile.median().as_secs_f64() * 1e3,
    };
    Ok((row, sweep))
}

/// Every value within `TOLERANCE` relative (exactly equal for zeros and infinities).
fn compare(got: &[f64], want: &[f64]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} numbers, C has {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let close = g == w || (g - w).abs() <= TOLERANCE * g.abs().max(w.abs());
        if !close {
            return Err(format!("number {i}: {g} vs C {w}"));
        }
    }
    Ok(())
}
