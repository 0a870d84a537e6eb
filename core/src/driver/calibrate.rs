//! Measuring the machine for the placement model (`gpu::placement`): small VRIR kernels
//! run on the device (each function body one section, tasks always on the device) and
//! on cpu-par, their work counted by the same estimator the model uses, so that rates are
//! in the estimator's units. Once per process and device; kept on disk in the kernel
//! cache's folder (same trust rules) under a key naming the device, its driver, the
//! thread count and this format, so that later processes read it instead (a few ms
//! instead of the 0.2-1 s the measurement takes).
//!
//! Here and not in `gpu/` because it compiles for both the CPU and the device (the
//! driver is where the two backends meet).

use crate::cpu::{CompiledModule, CpuOptions};
use crate::gpu::placement::estimate::{Known, Work};
use crate::gpu::placement::{Calibration, Placement};
use crate::runtime::error::{VrError, VrResult};
use crate::runtime::value::{Array, Scalar, Value};
use crate::vrir::ast::{Module, StmtKind};
use crate::vrir::types::{ArrayType, Layout, ScalarType};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

const KERNELS: &str = "(module vr_calibrate :index-base 0
  (function tasks ((x f64[1,row]) (k i64)) ()
    (locals (t i64) (i i64))
    (for (t) (range 1 k)
      (block (parfor (i) (range 0 0) (block (set (index x i) (+ (index x i) 1.0)))))))
  (function stream ((x f64[1,row]) (y f64[1,row]) (a f64)) ()
    (locals (i i64) (n i64))
    (set n (dim x 0))
    (parfor (i) (range 0 (- n 1)) (block (set (index y i) (+ (* a (index x i)) (index y i))))))
  (function compute ((out f64[1,row]) (k i64)) ()
    (locals (i i64) (j i64) (n i64) (s0 f64) (s1 f64) (s2 f64) (s3 f64))
    (set n (dim out 0))
    (parfor (i) (range 0 (- n 1))
      (block
        (set s0 (cast f64 i)) (set s1 0.5) (set s2 0.25) (set s3 0.125)
        (for (j) (range 1 k)
          (block
            (set s0 (+ (* s0 0.999) 1.0)) (set s1 (+ (* s1 0.999) 1.0))
            (set s2 (+ (* s2 0.999) 1.0)) (set s3 (+ (* s3 0.999) 1.0))))
        (set (index out i) (+ (+ s0 s1) (+ s2 s3))))))
  (function lane ((x f64[1,row]) (out f64[1,row])) ()
    (locals (i i64) (j i64) (n i64) (s f64))
    (set n (dim x 0))
    (parfor (i) (range 0 0)
      (block
        (set s 0.0)
        (for (j) (range 0 (- n 1)) (block (set s (+ s (index x j)))))
        (set (index out i) s))))
  (function syncs ((x f64[1,row]) (k i64)) ()
    (locals (i i64) (j i64) (n i64))
    (set n (dim x 0))
    (parfor (i) (range 0 (- n 1)) (block (set (index x i) 1.0)))
    (for (j) (range 1 k) (block (set (index x (mod j n)) (+ (index x (mod j n)) 1.0))))))";

/// Bump when the kernels or the formulas change: old entries are then not read.
const FORMAT: u32 = 1;

fn f64s(n: usize) -> Value {
    let ty = ArrayType { elem: ScalarType::F64, ndims: 1, layout: Layout::Row };
    Value::Array(Array::filled(ty, vec![n], Scalar::F64(1.0)))
}

fn int(v: i64) -> Value {
    Value::Scalar(Scalar::I64(v))
}

/// Device counters: kernel nanoseconds, bytes uploaded and downloaded.
fn device_counts() -> (u64, u64) {
    let c = crate::gpu::engine::counters();
    (
        c.kernel_ns.load(Ordering::Relaxed),
        c.upload_bytes.load(Ordering::Relaxed) + c.download_bytes.load(Ordering::Relaxed),
    )
}

/// Median over `reps` runs (after one untimed) of (wall s, kernel s, bytes moved).
fn measure(
    m: &CompiledModule,
    func: &str,
    args: &dyn Fn() -> Vec<Value>,
    reps: usize,
) -> VrResult<(f64, f64, f64)> {
    m.call(func, args())?;
    let mut runs = Vec::new();
    for _ in 0..reps {
        let a = args();
        let before = device_counts();
        let start = Instant::now();
        m.call(func, a)?;
        let wall = start.elapsed().as_secs_f64();
        let after = device_counts();
        runs.push((wall, (after.0 - before.0) as f64 * 1e-9, (after.1 - before.1) as f64));
    }
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(runs[runs.len() / 2])
}

/// The estimator's count for the parfor of `func` with these scalars and extents.
fn counted(m: &Module, func: &str, scalars: &[(&str, f64)], extent: f64) -> f64 {
    let f = m.function(func).expect("calibration function");
    let s = f
        .body
        .iter()
        .find(|s| matches!(s.kind, StmtKind::Parfor { .. }))
        .expect("a parfor");
    let dims = move |_: &str, _: u32| Some(extent);
    let mut k = Known::new(&dims);
    k.set("n", extent);
    for (name, v) in scalars {
        k.set(name, *v);
    }
    Work::of(m, f, s).evaluate(&mut k).ops
}

fn key(device: &str, threads: usize) -> String {
    format!("velociraptor placement calibration\nformat: {FORMAT}\ndevice: {device}\nthreads: {threads}\n")
}

/// The calibration for the process's device and `threads`, measured once per process
/// (or read from disk). `None` when there is no device: nothing to choose.
pub fn calibration(threads: usize) -> Option<Arc<Calibration>> {
    static DONE: Mutex<Vec<Arc<Calibration>>> = Mutex::new(Vec::new());
    let gpu = crate::gpu::opencl::gpu().ok()?;
    let device = gpu.info.describe();
    let mut done = DONE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = done.iter().find(|c| c.device == device && c.threads == threads) {
        return Some(c.clone());
    }
    let key = key(&device, threads);
    let from_disk = gpu
        .programs
        .load_entry(&key)
        .and_then(|b| serde_json::from_slice::<Calibration>(&b).ok())
        .filter(|c| c.device == device && c.threads == threads);
    let c = match from_disk {
        Some(mut c) => {
            c.took_s = 0.0;
            c
        }
        None => {
            let c = measure_machine(&device, threads).ok()?;
            if let Ok(bytes) = serde_json::to_vec(&c) {
                gpu.programs.store_entry(&key, &bytes);
            }
            c
        }
    };
    let c = Arc::new(c);
    done.push(c.clone());
    Some(c)
}

/// Run the calibration kernels (the measurement itself, no cache).
pub fn measure_machine(device: &str, threads: usize) -> VrResult<Calibration> {
    let start = Instant::now();
    let m = crate::vrir::text::parse_module(KERNELS)?;
    crate::vrir::verify::verify_module(&m)?;
    let opts = crate::opt::OptOptions { parallel_loops: true, ..crate::opt::OptOptions::all() };
    let (optimized, _) = crate::opt::optimize(&m, &opts)?;
    let cpu_options = CpuOptions { threads: Some(threads), ..CpuOptions::parallel() };
    let cpu = crate::cpu::compile_with(&optimized, cpu_options)?;
    let wrapped = crate::gpu::wrap_in_sections(&optimized);
    let dev = super::compile_gpu_placed(&wrapped, cpu_options, Placement::Device, None)?;
    let reps = 3;
    let small = |x: usize, k: i64| move || vec![f64s(x), int(k)];

    // Fixed costs: a section with one task, then with eleven.
    let (g1, _, _) = measure(&dev, "tasks", &small(1, 1), reps)?;
    let (g11, _, _) = measure(&dev, "tasks", &small(1, 11), reps)?;
    let (c1, _, _) = measure(&cpu, "tasks", &small(1, 1), reps)?;
    let (c11, _, _) = measure(&cpu, "tasks", &small(1, 11), reps)?;
    let cpu_task_s = (c11 / 11.0).max(1e-7);
    let task_s = ((g11 - g1 - (c11 - c1)) / 10.0).max(1e-7);
    let session_s = (g1 - c1 - task_s).max(1e-7);

    // Streaming: y = a x + y over 2^22 elements (24 bytes each).
    let n = 1usize << 22;
    let stream = || vec![f64s(n), f64s(n), Value::Scalar(Scalar::F64(0.5))];
    let (gw, gk, moved) = measure(&dev, "stream", &stream, reps)?;
    let (cw, _, _) = measure(&cpu, "stream", &stream, reps)?;
    let bytes = 24.0 * n as f64;
    let gk = gk.max(1e-7);
    let move_bw = moved / (gw - session_s - task_s - gk).max(1e-6);
    let gpu_bw = bytes / gk;
    let cpu_bw = bytes / (cw - cpu_task_s).max(1e-7);

    // Compute: 2^17 items of a 128-step loop of four independent chains.
    let items = 1usize << 17;
    let steps = 128i64;
    let ops = counted(&m, "compute", &[("k", steps as f64)], items as f64);
    let (_, ck, _) = measure(&dev, "compute", &small(items, steps), reps)?;
    let (cc, _, _) = measure(&cpu, "compute", &small(items, steps), reps)?;
    let gpu_ops = ops / ck.max(1e-7);
    let core_ops = ops / ((cc - cpu_task_s).max(1e-7) * threads.max(1) as f64);
    // One work item alone: the same loop, longer; then a walk through 2^16 doubles.
    let lone_steps = 8192i64;
    let lone_ops = counted(&m, "compute", &[("k", lone_steps as f64)], 1.0);
    let (_, lk, _) = measure(&dev, "compute", &small(1, lone_steps), reps)?;
    let lane_ops = lone_ops / lk.max(1e-7);
    let walk = 1usize << 16;
    let walk_ops = counted(&m, "lane", &[], walk as f64);
    let (_, wk, _) = measure(&dev, "lane", &|| vec![f64s(walk), f64s(1)], reps)?;
    let lane_bw = 8.0 * walk as f64 / (wk - walk_ops / lane_ops).max(1e-7);

    // Synchronisations: a serial loop of 2,000 element updates after a kernel.
    let (gs0, _, _) = measure(&dev, "syncs", &small(1024, 1), reps)?;
    let (gs, _, _) = measure(&dev, "syncs", &small(1024, 2001), reps)?;
    let (cs0, _, _) = measure(&cpu, "syncs", &small(1024, 1), reps)?;
    let (cs, _, _) = measure(&cpu, "syncs", &small(1024, 2001), reps)?;
    let sync_s = ((gs - gs0 - (cs - cs0)) / 2000.0).max(0.0);

    let c = Calibration {
        device: device.to_string(),
        threads,
        session_s,
        task_s,
        cpu_task_s,
        move_bw,
        gpu_bw,
        cpu_bw,
        gpu_ops,
        lane_ops,
        core_ops,
        lane_bw,
        sync_s,
        took_s: start.elapsed().as_secs_f64(),
    };
    let all = [c.move_bw, c.gpu_bw, c.cpu_bw, c.gpu_ops, c.lane_ops, c.core_ops, c.lane_bw];
    if all.iter().any(|v| !v.is_finite() || *v <= 0.0) {
        return Err(VrError::runtime(format!("placement calibration measured nonsense: {c:?}")));
    }
    Ok(c)
}
