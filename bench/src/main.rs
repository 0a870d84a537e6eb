//! `vr-bench`: times each benchmark kernel on the interpreter, the cpu backend (bounds
//! checks as emitted, after the optimizer, and off), the cpu-par backend (parfor loops
//! on every core, checks on) and its C reference, after checking that compiled and C
//! results agree, and prints one table. Never used for timed assertions.
//!
//! Usage: vr-bench [--quick] [--kernel NAME] [--passes]
//! (`--passes`: each optimizer pass's worth instead, see `passes`).

mod c_ref;
mod kernels;
mod nocheck;
mod passes;
mod table;
mod timing;

use kernels::{fresh_copy, observed, Kernel};
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
    let opts = match parse_args(std::env::args().skip(1).collect()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\nusage: vr-bench [--quick] [--kernel NAME] [--passes]");
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
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => opts.quick = true,
            "--passes" => opts.passes = true,
            "--kernel" => opts.kernel = Some(it.next().ok_or("--kernel needs a name")?),
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
    let dir = c_ref::BuildDir::new()?;
    if opts.passes {
        return passes::run(&selected, opts, &dir);
    }
    let mut rows = Vec::new();
    for k in &selected {
        eprintln!("{} ...", k.name);
        rows.push(measure(k, opts, &dir).map_err(|e| format!("{}: {e}", k.name))?);
    }
    if opts.quick {
        println!("(--quick: tiny sizes, few repetitions; the times mean nothing)");
    }
    table::print(&rows);
    println!(
        "interp: timed at the reduced size shown, scaled to the full size by work (ops ~ size^d)."
    );
    println!(
        "cpu-par: {} threads (VR_THREADS, else every core); cpu/cpu-par is its speedup over cpu (checks on).",
        cpu::parallel::default_threads()
    );
    Ok(())
}

/// Text in -> callable out: parse, verify, compile.
fn compile(src: &str) -> Result<(Module, CompiledModule), String> {
    let m = parse_module(src).map_err(|e| e.to_string())?;
    verify_module(&m).map_err(|e| e.to_string())?;
    let c = cpu::compile(&m).map_err(|e| e.to_string())?;
    Ok((m, c))
}

fn measure(k: &Kernel, opts: &Options, dir: &c_ref::BuildDir) -> Result<table::Row, String> {
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
    let parallel =
        cpu::compile_with(&module, CpuOptions::parallel()).map_err(|e| e.to_string())?;
    let lib = c_ref::build_and_load(dir, k.name, k.c_source)?;
    let call_c = |args: Vec<Value>| (k.call_c)(&lib, &args).map(|_| ());
    let call_cpu = |m: &CompiledModule, args: Vec<Value>| {
        m.call(k.name, args).map(|_| ()).map_err(|e| e.to_string())
    };

    // Results first: compiled code must agree with C before any time is printed.
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

    let reps = opts.reps();
    let c = timing::median_time(reps, || fresh_copy(&inputs), call_c)?;
    let cpu_checked = timing::median_time(reps, || fresh_copy(&inputs), |a| call_cpu(&checked, a))?;
    let cpu_optimized =
        timing::median_time(reps, || fresh_copy(&inputs), |a| call_cpu(&optimized, a))?;
    let cpu_unchecked =
        timing::median_time(reps, || fresh_copy(&inputs), |a| call_cpu(&unchecked, a))?;
    let cpu_par = timing::median_time(reps, || fresh_copy(&inputs), |a| call_cpu(&parallel, a))?;

    let small = (k.inputs)(interp_size);
    let interp_small = timing::median_time(
        opts.interp_reps(),
        || fresh_copy(&small),
        |a| {
            interp::run(&module, k.name, a)
                .map(|_| ())
                .map_err(|e| e.to_string())
        },
    )?;
    let interp = interp_small.mul_f64((k.work)(size) / (k.work)(interp_size));

    let mut compile_ms = Vec::new();
    for _ in 0..opts.compile_reps() {
        let start = Instant::now();
        compile(k.vrir)?;
        compile_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(table::Row {
        kernel: k.name.to_string(),
        interp,
        interp_size,
        size,
        cpu_checked,
        cpu_optimized,
        cpu_unchecked,
        inner_checks,
        cpu_par,
        c,
        compile_ms: timing::median(&mut compile_ms),
    })
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
