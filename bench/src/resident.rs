//! `vr-bench --gpu-resident`: what residency saves (issue 19, docs/gpu.md "Residency").
//! Two programs on the OpenCL device, each timed per call (wall time, transfers
//! included) with residency on and off (`VR_GPU_RESIDENT=off`), with the uploads per
//! call from the section reports:
//!
//! - `loop`: `s = amax(a)` in a GPU section, called again and again with the same
//!   array `a` (n f64) passed as stable, as R passes a vector it calls a function with in
//!   a loop: with residency `a` goes up at the first call only; a third column passes it
//!   not stable (a host that vouches for nothing).
//! - `two-sections`: `b = a * 2 + 1` in one section and `s = amax(b)` in the next, one
//!   call: with residency `b` stays on the device between them.
//!
//! The reduction's scalar is the only thing read back, so the difference is the upload.

#![allow(clippy::result_large_err)]

use std::sync::Arc;
use std::time::{Duration, Instant};
use velociraptor::cpu::{compile_offloaded, CompiledModule, CpuOptions, RawResult};
use velociraptor::gpu::engine::GpuEngine;
use velociraptor::runtime::host::{HostArg, HostArray};
use velociraptor::runtime::offload::Offload;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

const LOOP: &str = r#"
(module resident_loop :index-base 0
  (function g ((a f64[1,row])) (f64)
    (locals (s f64))
    (gpu (set s (amax a)))
    (return s)))
"#;

const TWO: &str = r#"
(module resident_two :index-base 0
  (function h ((a f64[1,row])) (f64)
    (locals (b f64[1,row]) (s f64))
    (gpu (set b (+ (* a 2.0) 1.0)))
    (gpu (set s (amax b)))
    (return s)))
"#;

fn compile(src: &str) -> Result<(CompiledModule, Arc<GpuEngine>), String> {
    let m = velociraptor::backend::load(src).map_err(|e| e.to_string())?;
    let plan = Arc::new(velociraptor::gpu::plan(&m));
    let engine = Arc::new(GpuEngine::new(plan.clone(), m.index_base));
    let c = compile_offloaded(
        &m,
        CpuOptions::default(),
        Offload { plan: Arc::new(plan.offload.clone()), engine: engine.clone() },
    )
    .map_err(|e| e.to_string())?;
    Ok((c, engine))
}

fn uploads(e: &GpuEngine) -> (u64, u64) {
    e.section_stats().iter().fold((0, 0), |(n, b), (_, s)| (n + s.uploads, b + s.upload_bytes))
}

/// Median wall time per call over `reps` calls (after one untimed call), and uploads
/// and bytes up per call.
fn time(c: &CompiledModule, e: &GpuEngine, func: &str, a: &mut [f64], stable: bool, resident: bool, reps: usize) -> Result<(Duration, f64, f64), String> {
    if resident {
        std::env::remove_var("VR_GPU_RESIDENT");
    } else {
        std::env::set_var("VR_GPU_RESIDENT", "off");
    }
    velociraptor::gpu::resident::forget_all();
    let arg = HostArg::Array(HostArray {
        data: a.as_mut_ptr() as *mut u8,
        ty: ArrayType::new(ScalarType::F64, 1, Layout::Row),
        dims: vec![a.len() as i64],
        strides: vec![1],
        writeable: false,
        stable,
    });
    let expected = a.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let call = || -> Result<f64, String> {
        // SAFETY: `a` is a live slice for the whole call, not written by it.
        unsafe {
            c.call_host(func, std::slice::from_ref(&arg), None, |r| match r.first() {
                Some(RawResult::Scalar(s)) => Ok(s.as_f64().unwrap_or(f64::NAN)),
                _ => Ok(f64::NAN),
            })
        }
        .map_err(|e| e.to_string())
    };
    call()?;
    let before = uploads(e);
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let s = call()?;
        times.push(t.elapsed());
        let want = if func == "h" { expected * 2.0 + 1.0 } else { expected };
        if s != want {
            return Err(format!("{func}: got {s}, expected {want}"));
        }
    }
    let after = uploads(e);
    std::env::remove_var("VR_GPU_RESIDENT");
    velociraptor::gpu::resident::forget_all();
    times.sort();
    let n = reps.max(1) as f64;
    Ok((times[times.len() / 2], (after.0 - before.0) as f64 / n, (after.1 - before.1) as f64 / n))
}

pub fn run(quick: bool, reps: usize) -> Result<(), String> {
    let device = velociraptor::gpu::device()
        .map(|d| d.describe())
        .unwrap_or_else(|why| format!("no OpenCL device ({why}): sections run on the CPU"));
    let n: usize = if quick { 1 << 14 } else { 1 << 24 };
    let mut a: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 / 7.0).collect();
    let (gl, el) = compile(LOOP)?;
    let (gt, et) = compile(TWO)?;
    println!("gpu: {device}; n = {n} f64 ({:.1} MB)", (n * 8) as f64 / 1e6);
    println!("| program | resident: s per call | uploads per call | off: s per call | uploads per call | off / resident |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let on = time(&gl, &el, "g", &mut a, true, true, reps)?;
    let off = time(&gl, &el, "g", &mut a, true, false, reps)?;
    let unstable = time(&gl, &el, "g", &mut a, false, true, reps)?;
    println!("| loop (a stable) | {:.6} | {:.2} | {:.6} | {:.2} | {:.2} |", on.0.as_secs_f64(), on.1, off.0.as_secs_f64(), off.1, off.0.as_secs_f64() / on.0.as_secs_f64());
    println!("| loop (a not stable) | {:.6} | {:.2} | | | |", unstable.0.as_secs_f64(), unstable.1);
    let on = time(&gt, &et, "h", &mut a, false, true, reps)?;
    let off = time(&gt, &et, "h", &mut a, false, false, reps)?;
    println!("| two-sections | {:.6} | {:.2} | {:.6} | {:.2} | {:.2} |", on.0.as_secs_f64(), on.1, off.0.as_secs_f64(), off.1, off.0.as_secs_f64() / on.0.as_secs_f64());
    if quick {
        println!("(--quick: tiny sizes, few repetitions; the times mean nothing)");
    }
    Ok(())
}
