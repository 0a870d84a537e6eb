//! `vr-bench --gpu`: each kernel with its function body in one GPU section (its callees
//! without sections of their own) on the OpenCL device, next to cpu-par, after checking that the
//! GPU's results agree with C. Per call: the wall time including transfers (every array
//! goes up and the results come back in each call: sections do not keep buffers across
//! calls), and the device's own time in kernels and in transfers (OpenCL profiling
//! stamps, summed over the call). The first call (program builds or loads from the
//! kernel cache) is not timed. A second table gives the kernel time with each of the
//! code generator's passes switched off (`VR_GPU_PASSES=-NAME`, then `none`; each
//! variant's results checked against C too), as a ratio to the time with all on. A
//! third: `--backend auto` (the cost model placing each task, docs/gpu.md "Placement"),
//! its time and choice against the better of cpu-par and gpu.

use crate::kernels::{fresh_copy, observed, Kernel};
use crate::record::{Recorder, RunInfo, Sample};
use std::sync::atomic::Ordering;
use std::time::Duration;
use velociraptor::cpu::{self, CpuOptions};
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::verify::verify_module;

struct Row {
    kernel: String,
    size: usize,
    cpu_par: f64,
    total: f64,
    kernels: f64,
    transfers: f64,
    launches: f64,
    declined: f64,
    /// Kernel seconds (median) with each code-generator pass switched off in turn
    /// (`VR_GPU_PASSES=-NAME`), then all of them (`none`).
    passes_off: Vec<f64>,
    /// The passes that fired on the kernels of this function.
    fired: String,
    /// `--backend auto` (the cost model placing each task), with transfers, and where
    /// its tasks ran per call (launches, tasks on the CPU).
    auto: f64,
    auto_launches: f64,
    auto_declined: f64,
}

/// C's values against the device's: each within `TOLERANCE` of itself, or of the
/// largest magnitude among C's values. OpenCL's `exp`, `log`, ... may differ from the
/// C library's by a few ulps, and a difference of nearly equal terms magnifies that
/// (black_scholes' put `disc (1 - c2) - s (1 - c1)` of a deep out-of-the-money option
/// is 1e-32 made of terms near 1): the peers' measure (bench/peers, "max diff / term
/// magnitude").
fn compare_device(got: &[f64], want: &[f64]) -> Result<(), String> {
    let scale = want.iter().filter(|w| w.is_finite()).fold(0.0f64, |m, w| m.max(w.abs()));
    let relaxed: Vec<f64> = got
        .iter()
        .zip(want)
        .map(|(g, w)| {
            let near = (g - w).abs() <= crate::TOLERANCE * scale;
            if near { *w } else { *g }
        })
        .collect();
    crate::compare(&relaxed, want)
}

/// The variants of the passes-off columns: `-NAME` per pass, then `none`.
fn pass_variants() -> Vec<String> {
    velociraptor::gpu::kernel::passes::ALL
        .iter()
        .map(|p| format!("-{p}"))
        .chain(std::iter::once("none".to_string()))
        .collect()
}

/// Process-wide device counters: kernel ns, transfer ns, launches, declined tasks.
pub(crate) fn device_ns() -> (u64, u64, u64, u64) {
    let c = velociraptor::gpu::engine::counters();
    (
        c.kernel_ns.load(Ordering::Relaxed),
        c.transfer_ns.load(Ordering::Relaxed),
        c.launches.load(Ordering::Relaxed),
        c.declined.load(Ordering::Relaxed),
    )
}

pub fn run(
    selected: &[Kernel],
    quick: bool,
    reps: usize,
    out: Option<std::path::PathBuf>,
    dir: &crate::c_ref::BuildDir,
) -> Result<(), String> {
    let device = velociraptor::gpu::device()
        .map(|d| d.describe())
        .unwrap_or_else(|why| format!("no OpenCL device ({why}): sections run on the CPU"));
    let info = RunInfo::new(out);
    let mut csv = Recorder::new();
    let mut rows = Vec::new();
    for k in selected {
        eprintln!("{} (gpu) ...", k.name);
        let size = if quick { k.quick_size } else { k.size };
        let m = parse_module(k.vrir).map_err(|e| e.to_string())?;
        verify_module(&m).map_err(|e| e.to_string())?;
        let par_opts = OptOptions {
            parallel_loops: true,
            ..OptOptions::all()
        };
        let (optimized, _) = optimize(&m, &par_opts).map_err(|e| e.to_string())?;
        let parallel =
            cpu::compile_with(&optimized, CpuOptions::parallel()).map_err(|e| e.to_string())?;
        let wrapped = velociraptor::gpu::wrap_function_in_section(&m, k.name);
        let (wrapped, _) = optimize(&wrapped, &par_opts).map_err(|e| e.to_string())?;
        let gpu = velociraptor::driver::compile_gpu(&wrapped, CpuOptions::parallel())
            .map_err(|e| format!("{}: {e}", k.name))?;
        let fired: Vec<String> = velociraptor::gpu::plan(&wrapped)
            .pass_counts()
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(p, _)| p.to_string())
            .collect();
        let fired = if fired.is_empty() {
            "-".to_string()
        } else {
            fired.join(" ")
        };
        let lib = crate::c_ref::build_and_load(dir, k.name, k.c_source, false)?;
        let inputs = (k.inputs)(size);
        let c_args = fresh_copy(&inputs);
        let c_results = (k.call_c)(&lib, &c_args)?;
        let expected = observed(&c_args, &c_results);
        // The first call builds (or loads) the programs: untimed, and its results checked.
        let args = fresh_copy(&inputs);
        let results = gpu
            .call(k.name, args.clone())
            .map_err(|e| format!("{}: gpu: {e}", k.name))?;
        compare_device(&observed(&args, &results), &expected)
            .map_err(|e| format!("{}: gpu differs from C: {e}", k.name))?;
        let par = crate::timing::sample(
            reps,
            || fresh_copy(&inputs),
            |a| {
                parallel
                    .call(k.name, a)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            },
        )?;
        let (mut kern, mut xfer) = (Vec::new(), Vec::new());
        let (mut launches, mut declined) = (0u64, 0u64);
        let mut totals = Vec::new();
        for _ in 0..reps.max(1) {
            let a = fresh_copy(&inputs);
            let before = device_ns();
            let start = std::time::Instant::now();
            gpu.call(k.name, a).map_err(|e| e.to_string())?;
            totals.push(start.elapsed());
            let after = device_ns();
            kern.push(Duration::from_nanos(after.0 - before.0));
            xfer.push(Duration::from_nanos(after.1 - before.1));
            launches += after.2 - before.2;
            declined += after.3 - before.3;
        }
        // The cost model's placement: results checked, then timed like gpu (the first
        // call, untimed, also calibrates the machine or reads the calibration).
        let auto = velociraptor::driver::compile_auto(&wrapped, CpuOptions::parallel())
            .map_err(|e| format!("{} (auto): {e}", k.name))?;
        let args = fresh_copy(&inputs);
        let results = auto
            .call(k.name, args.clone())
            .map_err(|e| format!("{}: auto: {e}", k.name))?;
        compare_device(&observed(&args, &results), &expected)
            .map_err(|e| format!("{}: auto differs from C: {e}", k.name))?;
        let mut auto_times = Vec::new();
        let (mut auto_launches, mut auto_declined) = (0u64, 0u64);
        for _ in 0..reps.max(1) {
            let a = fresh_copy(&inputs);
            let before = device_ns();
            let start = std::time::Instant::now();
            auto.call(k.name, a).map_err(|e| e.to_string())?;
            auto_times.push(start.elapsed());
            let after = device_ns();
            auto_launches += after.2 - before.2;
            auto_declined += after.3 - before.3;
        }
        let auto_sample = Sample { times: auto_times };
        csv.push(k.name, size, "auto", cpu::parallel::default_threads(), &auto_sample);
        for line in auto.offload_report().lines() {
            if line.contains("placement") {
                eprintln!("{}: {line}", k.name);
            }
        }
        // The same section with passes switched off: results checked, kernels timed.
        let mut passes_off = Vec::new();
        for spec in pass_variants() {
            let p = velociraptor::gpu::kernel::passes::GpuPasses::parse(&spec)?;
            let variant = velociraptor::gpu::kernel::passes::with_passes(p, || {
                velociraptor::driver::compile_gpu(&wrapped, CpuOptions::parallel())
                    .map_err(|e| format!("{} ({spec}): {e}", k.name))
            })?;
            let args = fresh_copy(&inputs);
            let results = variant
                .call(k.name, args.clone())
                .map_err(|e| format!("{} ({spec}): gpu: {e}", k.name))?;
            compare_device(&observed(&args, &results), &expected)
                .map_err(|e| format!("{} ({spec}): gpu differs from C: {e}", k.name))?;
            let mut times = Vec::new();
            for _ in 0..reps.max(1) {
                let a = fresh_copy(&inputs);
                let before = device_ns();
                variant.call(k.name, a).map_err(|e| e.to_string())?;
                times.push(Duration::from_nanos(device_ns().0 - before.0));
            }
            let sample = Sample { times };
            csv.push(k.name, size, &format!("gpu-kernels{spec}"), 1, &sample);
            passes_off.push(sample.median().as_secs_f64());
        }
        let (total, kern, xfer) = (
            Sample { times: totals },
            Sample { times: kern },
            Sample { times: xfer },
        );
        let threads = cpu::parallel::default_threads();
        csv.push(k.name, size, "cpu-par", threads, &par);
        csv.push(k.name, size, "gpu-total", 1, &total);
        csv.push(k.name, size, "gpu-kernels", 1, &kern);
        csv.push(k.name, size, "gpu-transfers", 1, &xfer);
        let n = reps.max(1) as f64;
        rows.push(Row {
            kernel: k.name.to_string(),
            size,
            cpu_par: par.median().as_secs_f64(),
            total: total.median().as_secs_f64(),
            kernels: kern.median().as_secs_f64(),
            transfers: xfer.median().as_secs_f64(),
            launches: launches as f64 / n,
            declined: declined as f64 / n,
            passes_off,
            fired,
            auto: auto_sample.median().as_secs_f64(),
            auto_launches: auto_launches as f64 / n,
            auto_declined: auto_declined as f64 / n,
        });
    }
    if quick {
        println!("(--quick: tiny sizes, few repetitions; the times mean nothing)");
    }
    println!("{} ({}, {})", info.machine, info.date, info.commit);
    println!("gpu: {device}");
    println!(
        "| kernel | size | cpu-par s ({} threads) | gpu s (with transfers) | gpu kernels s | gpu transfers s | cpu-par / gpu | launches per call | tasks on the CPU per call |",
        cpu::parallel::default_threads()
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in &rows {
        println!(
            "| {} | {} | {:.5} | {:.5} | {:.5} | {:.5} | {:.2} | {:.0} | {:.0} |",
            r.kernel,
            r.size,
            r.cpu_par,
            r.total,
            r.kernels,
            r.transfers,
            r.cpu_par / r.total.max(1e-12),
            r.launches,
            r.declined
        );
    }
    // Placement: auto against the better of cpu-par and gpu (transfers counted).
    println!();
    println!("| kernel | auto s | auto placed (per call) | better of cpu-par and gpu | auto / better |");
    println!("| --- | ---: | --- | --- | ---: |");
    for r in &rows {
        let (best, name) = if r.cpu_par <= r.total { (r.cpu_par, "cpu-par") } else { (r.total, "gpu") };
        let placed = match (r.auto_launches > 0.0, r.auto_declined > 0.0) {
            (true, false) => format!("device ({:.0} launches)", r.auto_launches),
            (false, _) => format!("cpu ({:.0} tasks)", r.auto_declined),
            (true, true) => format!("both ({:.0} launches, {:.0} tasks on the CPU)", r.auto_launches, r.auto_declined),
        };
        println!(
            "| {} | {:.5} | {placed} | {name} {best:.5} | {:.2} |",
            r.kernel,
            r.auto,
            r.auto / best.max(1e-12)
        );
    }
    // The code generator's passes (VR_GPU_PASSES): kernel time with each switched off.
    println!();
    let variants = pass_variants();
    println!(
        "| kernel | passes fired | gpu kernels s | {} |",
        variants
            .iter()
            .map(|v| format!("kernels s, VR_GPU_PASSES={v}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("| --- | --- | ---:{} |", " | ---:".repeat(variants.len()));
    for r in &rows {
        let off: Vec<String> = r
            .passes_off
            .iter()
            .map(|t| format!("{t:.5} ({:.2}x)", t / r.kernels.max(1e-12)))
            .collect();
        println!(
            "| {} | {} | {:.5} | {} |",
            r.kernel,
            r.fired,
            r.kernels,
            off.join(" | ")
        );
    }
    // A streaming kernel in GB/s (issue 19 item 4).
    crate::gpu_stream::run(quick, reps, &mut csv)?;
    let path = csv.write(&info, "vr-bench-gpu.csv")?;
    eprintln!("vr-bench: results in {}", path.display());
    Ok(())
}
