//! Placement by the cost model (`--backend auto`, docs/gpu.md "Placement"): the engine
//! asks the model at every task and runs it where the model says, with the results of
//! the other side (each run checked against hand-computed values); a section's
//! synchronisations on its last device run count against the device next time; the
//! calibration measures finite positive figures and is kept on disk; `auto` gives the
//! interpreter's results on a conformance sample.
//!
//! The plumbing tests give the engine made-up machines (a device that costs nothing, or
//! one far slower than the CPU) so the choice is known in advance; the model's formulas
//! are unit-tested in `gpu::placement`. On PoCL here and in CI; without an OpenCL device
//! each test prints why it is skipped.

#![allow(clippy::result_large_err)]

use std::sync::atomic::Ordering;
use std::sync::Arc;
use velociraptor::backend::{self, Backend};
use velociraptor::cpu::CpuOptions;
use velociraptor::gpu::placement::{Calibration, Placement};
use velociraptor::runtime::value::Value;

mod common;
use common::gpu::{device_or_skip, serial};

fn counts() -> (u64, u64) {
    let c = velociraptor::gpu::engine::counters();
    (c.launches.load(Ordering::Relaxed), c.declined.load(Ordering::Relaxed))
}

/// A machine whose device is `factor` times the CPU's speed in everything, with no
/// fixed costs other than `sync_s` per synchronisation.
fn machine(factor: f64, sync_s: f64) -> Calibration {
    Calibration {
        device: "made up".into(),
        threads: 2,
        session_s: 0.0,
        task_s: 0.0,
        cpu_task_s: 0.0,
        move_bw: 1e10 * factor,
        gpu_bw: 1e10 * factor,
        cpu_bw: 1e10,
        gpu_ops: 1e9 * factor,
        lane_ops: 1e9 * factor,
        core_ops: 1e9,
        lane_bw: 1e10 * factor,
        sync_s,
        took_s: 0.0,
    }
}

/// y = 2 x + 1 in a section, then (when `serial`) a serial loop adding 1 to each y on
/// the CPU: one synchronisation per iteration.
const SRC: &str = "(module m :index-base 0
  (function f ((x f64[1,row]) (y f64[1,row]) (serial i64)) (f64[1,row])
    (locals (i i64) (j i64) (n i64))
    (set n (dim x 0))
    (gpu
      (parfor (i) (range 0 (- n 1)) (block (set (index y i) (+ (* 2.0 (index x i)) 1.0))))
      (if (> serial 0)
        (block (for (j) (range 0 (- n 1)) (block (set (index y j) (+ (index y j) 1.0)))))))
    (return y)))";

fn compiled(c: Calibration) -> velociraptor::cpu::CompiledModule {
    let m = backend::load(SRC).unwrap();
    velociraptor::driver::compile_gpu_placed(&m, CpuOptions::parallel(), Placement::Model, Some(Arc::new(c)))
        .unwrap()
}

fn args(n: usize, serial: i64) -> Vec<Value> {
    let m = backend::load(SRC).unwrap();
    let f = backend::lookup(&m, "f").unwrap();
    let xs: Vec<String> = (0..n).map(|k| format!("{k}.0")).collect();
    let json = format!("[[{}], [{}], {serial}]", xs.join(","), vec!["0.0"; n].join(","));
    backend::args_from_json(f, &serde_json::from_str(&json).unwrap()).unwrap()
}

/// The result as f64s; by hand: y[k] = 2k + 1 (+ 1 with the serial loop).
fn ys(r: &[Value]) -> Vec<f64> {
    let j = backend::results_to_json(r);
    j["data"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
}

fn expected(n: usize, serial: bool) -> Vec<f64> {
    (0..n).map(|k| 2.0 * k as f64 + 1.0 + serial as i64 as f64).collect()
}

#[test]
fn the_model_sends_the_task_where_it_is_cheaper() {
    let _g = serial();
    if !device_or_skip("the_model_sends_the_task_where_it_is_cheaper") {
        return;
    }
    let fast = compiled(machine(1e6, 0.0));
    let before = counts();
    assert_eq!(ys(&fast.call("f", args(1000, 0)).unwrap()), expected(1000, false));
    let after = counts();
    assert_eq!((after.0 - before.0, after.1 - before.1), (1, 0), "a free device runs it");
    let report = fast.offload_report();
    assert!(report.contains("placement (cost model): 1 task(s) on the device, 0 on the CPU; last estimate device"), "{report}");

    let slow = compiled(machine(1e-6, 0.0));
    let before = counts();
    assert_eq!(ys(&slow.call("f", args(1000, 0)).unwrap()), expected(1000, false));
    let after = counts();
    assert_eq!((after.0 - before.0, after.1 - before.1), (0, 1), "a slow device is passed over");
    let report = slow.offload_report();
    assert!(report.contains("0 task(s) on the device, 1 on the CPU; last estimate cpu"), "{report}");
    assert!(report.contains("gpu placement: cost model calibrated on made up with 2 CPU thread(s)"), "{report}");
}

#[test]
fn synchronisations_of_the_last_device_run_count_against_the_device() {
    let _g = serial();
    if !device_or_skip("synchronisations_of_the_last_device_run_count_against_the_device") {
        return;
    }
    // Ten times the CPU's speed, but each synchronisation costs a second: the first run
    // (no history) uses the device and makes 200 of them; the second stays on the CPU.
    let m = compiled(machine(10.0, 1.0));
    for run in 0..3 {
        let before = counts();
        assert_eq!(ys(&m.call("f", args(200, 1)).unwrap()), expected(200, true), "run {run}");
        let after = counts();
        let expect = if run == 0 { (1, 0) } else { (0, 1) };
        assert_eq!((after.0 - before.0, after.1 - before.1), expect, "run {run}");
    }
    let report = m.offload_report();
    assert!(report.contains("1 task(s) on the device, 2 on the CPU"), "{report}");
    assert!(report.contains("counting 200 array synchronisations of its last run on the device"), "{report}");
}

#[test]
fn calibration_measures_the_machine_and_auto_agrees_with_the_interpreter() {
    let _g = serial();
    if !device_or_skip("calibration_measures_the_machine_and_auto_agrees_with_the_interpreter") {
        return;
    }
    let device = velociraptor::gpu::device().unwrap().describe();
    let c = velociraptor::driver::calibrate::measure_machine(&device, 2).unwrap();
    for (what, v) in [
        ("move_bw", c.move_bw),
        ("gpu_bw", c.gpu_bw),
        ("cpu_bw", c.cpu_bw),
        ("gpu_ops", c.gpu_ops),
        ("lane_ops", c.lane_ops),
        ("core_ops", c.core_ops),
        ("lane_bw", c.lane_bw),
    ] {
        assert!(v.is_finite() && v > 0.0, "{what} = {v}: {c:?}");
    }
    assert!(c.session_s >= 0.0 && c.task_s >= 0.0 && c.sync_s >= 0.0, "{c:?}");
    // Through `backend::execute` (the disk-cached calibration of this process): the
    // interpreter's values, wherever the model put the task.
    let m = backend::load(SRC).unwrap();
    for serial in [0, 1] {
        let (auto, report) = backend::execute_reporting(Backend::Auto, &m, "f", args(300, serial)).unwrap();
        let interp = backend::execute(Backend::Interp, &m, "f", args(300, serial)).unwrap();
        assert_eq!(ys(&auto), ys(&interp));
        assert_eq!(ys(&auto), expected(300, serial == 1));
        assert!(report.contains("placement (cost model): "), "{report}");
    }
}

#[test]
fn a_second_process_reads_the_calibration_from_the_kernel_cache() {
    let _g = serial();
    if !device_or_skip("a_second_process_reads_the_calibration_from_the_kernel_cache") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.vrir");
    std::fs::write(&file, SRC).unwrap();
    let run = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vr"))
            .args(["run", file.to_str().unwrap(), "f", "--args", "[[1.0, 2.0], [0.0, 0.0], 0]", "--backend", "auto"])
            .env("VR_CACHE_DIR", dir.path().join("cache"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        // By hand: y = 2 x + 1.
        assert!(String::from_utf8_lossy(&out.stdout).contains("[3.0,5.0]"), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = run();
    assert!(first.contains("(measured in "), "{first}");
    let second = run();
    assert!(second.contains("(read from the kernel cache)"), "{second}");
    // Damaged: measured again, not read.
    for e in std::fs::read_dir(dir.path().join("cache").join("opencl")).unwrap() {
        let p = e.unwrap().path();
        let mut bytes = std::fs::read(&p).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&p, bytes).unwrap();
    }
    let third = run();
    assert!(third.contains("(measured in "), "{third}");
}
