//! `vr-bench --passes`: what each optimizer pass is worth. Every kernel is compiled for
//! the cpu backend with all passes, with each pass of `opt::PASSES` off in turn, and
//! with none; each build's results are checked against the C reference before it is
//! timed; the table gives medians relative to "all passes" (above 1.00: the kernel is
//! slower without that pass) and the inner-loop bounds checks the optimizer removed.
//! Passes added to `opt::PASSES` appear here without changes.

use crate::kernels::{fresh_copy, observed, Kernel};
use crate::{c_ref, compare, timing, Options};
use velociraptor::cpu::{self, CompiledModule};
use velociraptor::opt::explain::inner_loop_checks;
use velociraptor::opt::{optimize, OptOptions, PASSES};
use velociraptor::vrir::text::parse_module;

/// The configurations timed: a label and the pass options.
fn configurations() -> Vec<(String, OptOptions)> {
    let mut v = vec![("all".to_string(), OptOptions::all())];
    for p in PASSES {
        let mut o = OptOptions::all();
        o.set(p.name, false).expect("a pass of the table");
        v.push((format!("-{}", p.name), o));
    }
    v.push(("none".to_string(), OptOptions::none()));
    v
}

pub fn run(kernels: &[Kernel], opts: &Options, dir: &c_ref::BuildDir) -> Result<(), String> {
    let configs = configurations();
    let mut header = format!("{:<14}{:>11}", "kernel", "all (ms)");
    for (label, _) in &configs[1..] {
        header.push_str(&format!("{:>16}", label));
    }
    header.push_str("  inner checks removed");
    println!("{header}");
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    for k in kernels {
        eprintln!("{} ...", k.name);
        let size = if opts.quick { k.quick_size } else { k.size };
        let module = parse_module(k.vrir).map_err(|e| format!("{}: {e}", k.name))?;
        let lib = c_ref::build_and_load(dir, k.name, k.c_source, false)?;
        let inputs = (k.inputs)(size);
        let c_args = fresh_copy(&inputs);
        let c_results = (k.call_c)(&lib, &c_args)?;
        let expected = observed(&c_args, &c_results);
        let mut times = Vec::new();
        for (label, o) in &configs {
            let (optimized, _) = optimize(&module, o).map_err(|e| format!("{}: {label}: {e}", k.name))?;
            // `alias-version` and `atomic-privatize` are carried out by the backend: it
            // follows the switches.
            let cpu_opts = cpu::CpuOptions::default().following(o);
            let compiled: CompiledModule = cpu::compile_with(&optimized, cpu_opts)
                .map_err(|e| format!("{}: {label}: {e}", k.name))?;
            let args = fresh_copy(&inputs);
            let results = compiled.call(k.name, args.clone()).map_err(|e| format!("{}: {label}: {e}", k.name))?;
            compare(&observed(&args, &results), &expected)
                .map_err(|e| format!("{}: {label} differs from C: {e}", k.name))?;
            let t = timing::median_time(opts.reps(), || fresh_copy(&inputs), |a| {
                compiled.call(k.name, a.clone()).map(|results| (a, results)).map_err(|e| e.to_string())
            })?;
            times.push(t.as_secs_f64());
        }
        let (before, removed) =
            inner_loop_checks(&module, k.name, &OptOptions::all()).map_err(|e| e.to_string())?;
        let mut line = format!("{:<14}{:>11.2}", k.name, times[0] * 1e3);
        for (i, t) in times.iter().enumerate().skip(1) {
            let r = t / times[0];
            ratios[i].push(r);
            line.push_str(&format!("{:>16.2}", r));
        }
        let pct = if before == 0 { 100.0 } else { 100.0 * removed as f64 / before as f64 };
        line.push_str(&format!("  {removed}/{before} ({pct:.0}%)"));
        println!("{line}");
    }
    let mut line = format!("{:<14}{:>11}", "median", "");
    for r in ratios.iter_mut().skip(1) {
        line.push_str(&format!("{:>16.2}", timing::median(r)));
    }
    println!("{line}");
    println!("columns after `all`: time with that configuration / time with all passes (cpu backend, medians of {} runs)", opts.reps());
    Ok(())
}
