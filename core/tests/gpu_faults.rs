//! When the device fails (issue 15 item 3, docs/gpu.md "When the device fails"): a
//! kernel build failure, a device out of memory or a lost device, injected with the test
//! hook `VR_GPU_FAULT` (`gpu::faults::with_faults` for one thread), gives the results of
//! a run on the CPU and one note saying why; where the only fresh copy of an array was
//! on the device and cannot come home, the call stops with a device error naming it,
//! never a wrong number.
//!
//! Runs on PoCL here and in CI (each test asserts that without a fault the device really
//! ran the kernels); without an OpenCL device each test prints why it is skipped.
//! Expected values are hand-computed; each injected run is also compared with the
//! interpreter.

#![allow(clippy::result_large_err)]

use std::sync::atomic::Ordering;
use velociraptor::backend::{self, Backend};
use velociraptor::gpu::faults::with_faults;
use velociraptor::runtime::error::ErrorKind;

// The launch counter and the notes are process-wide: one test at a time (`serial`).
mod common;
use common::gpu::{device_or_skip, serial};

fn launches() -> u64 {
    velociraptor::gpu::engine::counters()
        .launches
        .load(Ordering::Relaxed)
}

fn run(src: &str, func: &str, args: &str, b: Backend) -> Result<String, velociraptor::VrError> {
    let m = backend::load(src).unwrap();
    let f = backend::lookup(&m, func).unwrap();
    let args = backend::args_from_json(f, &serde_json::from_str(args).unwrap()).unwrap();
    backend::execute(b, &m, func, args).map(|r| plain(backend::results_to_json(&r)))
}

/// Array values as plain nested data (`{"data": ...}` -> its data).
fn plain(v: serde_json::Value) -> String {
    fn strip(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(mut m) if m.contains_key("data") => m.remove("data").unwrap(),
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(strip).collect())
            }
            other => other,
        }
    }
    strip(v).to_string()
}

/// Runs `f` on the gpu backend with `spec` injected: its result and how many kernels
/// it launched.
fn injected(
    spec: &str,
    src: &str,
    func: &str,
    args: &str,
) -> (Result<String, velociraptor::VrError>, u64) {
    let before = launches();
    let r = with_faults(spec, || run(src, func, args, Backend::Gpu));
    (r, launches() - before)
}

/// A note of this process containing every one of `parts`.
fn note_with(parts: &[&str]) -> Option<String> {
    velociraptor::gpu::engine::notes()
        .into_iter()
        .find(|n| parts.iter().all(|p| n.contains(p)))
}

/// Two parfors in one section: the first doubles `x` in place (so running it twice
/// would give 4x: a re-run of work the device already did shows), the second reads
/// what the first wrote. x = [1, 2, 3]: x = [2, 4, 6], y = x + 1 = [3, 5, 7].
///
/// Device operations of one call, in order (what the fault numbers below pick):
/// kernel 1: alloc 1 (error slot), upload 1 (its header), alloc 2 + upload 2 (x),
/// launch 1; kernel 2: download 1 (kernel 1's error slot), alloc 3 + upload 3 (slot),
/// alloc 4 + upload 4 (y), launch 2; end of section: download 2 (kernel 2's slot),
/// downloads 3 and 4 (x, y).
const TWO_KERNELS: &str = r#"
(module faults :index-base 0
  (function f ((x f64[1,row])) (f64[1,row] f64[1,row])
    (locals (y f64[1,row]) (i i64))
    (set y (zeros f64[1,row] (len x)))
    (gpu
      (parfor (i) (range 0 (- (len x) 1))
        (block (set (index x i) (* (index x i) 2.0))))
      (parfor (i) (range 0 (- (len x) 1))
        (block (set (index y i) (+ (index x i) 1.0)))))
    (return x y)))
"#;
const TWO_KERNELS_ARGS: &str = "[[1.0, 2.0, 3.0]]";
const TWO_KERNELS_WANT: &str = "[[2.0,4.0,6.0],[3.0,5.0,7.0]]";

#[test]
fn without_a_fault_both_kernels_run_on_the_device() {
    let _s = serial();
    if !device_or_skip("without_a_fault_both_kernels_run_on_the_device") {
        return;
    }
    let (got, launched) = injected("", TWO_KERNELS, "f", TWO_KERNELS_ARGS);
    assert_eq!(got.unwrap(), TWO_KERNELS_WANT);
    assert_eq!(launched, 2, "both parfors ran as kernels");
    assert_eq!(
        run(TWO_KERNELS, "f", TWO_KERNELS_ARGS, Backend::Interp).unwrap(),
        TWO_KERNELS_WANT
    );
}

/// Out of device memory (or resources) before any kernel ran, and after the first one
/// ran: the device's work so far comes home, nothing is done twice, the rest runs on the
/// CPU, and one note names the failure.
#[test]
fn out_of_memory_before_or_between_kernels_gives_the_cpus_results() {
    let _s = serial();
    if !device_or_skip("out_of_memory_before_or_between_kernels_gives_the_cpus_results") {
        return;
    }
    // (spec, kernels that ran on the device before the failure, what the note names)
    let cases = [
        (
            "alloc:1",
            0,
            "CL_MEM_OBJECT_ALLOCATION_FAILURE (alloc number 1",
        ),
        (
            "alloc:2",
            0,
            "CL_MEM_OBJECT_ALLOCATION_FAILURE (alloc number 2",
        ),
        ("upload:2", 0, "CL_OUT_OF_RESOURCES (upload number 2"),
        // Between the kernels: x, doubled by the device, must come home once.
        (
            "alloc:3",
            1,
            "CL_MEM_OBJECT_ALLOCATION_FAILURE (alloc number 3",
        ),
        (
            "alloc:4",
            1,
            "CL_MEM_OBJECT_ALLOCATION_FAILURE (alloc number 4",
        ),
        ("upload:4", 1, "CL_OUT_OF_RESOURCES (upload number 4"),
        ("launch:2", 1, "CL_OUT_OF_RESOURCES (launch number 2"),
    ];
    for (spec, ran, why) in cases {
        let (got, launched) = injected(spec, TWO_KERNELS, "f", TWO_KERNELS_ARGS);
        assert_eq!(got.unwrap(), TWO_KERNELS_WANT, "{spec}");
        assert_eq!(launched, ran, "{spec}: kernels launched before the failure");
        assert!(
            note_with(&[
                why,
                "injected by VR_GPU_FAULT",
                "given up for the rest of the call",
                "the CPU runs the rest from section `f`"
            ])
            .is_some(),
            "{spec}: {:?}",
            velociraptor::gpu::engine::notes()
        );
    }
}

/// A lost device: every operation from the Nth on fails. Lost before anything only it
/// holds exists: the CPU's results; lost after the first kernel wrote `x` on the device
/// (only there): a device error naming `x`, and no result.
#[test]
fn a_lost_device_falls_back_or_stops_with_a_clear_error() {
    let _s = serial();
    if !device_or_skip("a_lost_device_falls_back_or_stops_with_a_clear_error") {
        return;
    }
    let (got, launched) = injected("lost:1", TWO_KERNELS, "f", TWO_KERNELS_ARGS);
    assert_eq!(got.unwrap(), TWO_KERNELS_WANT);
    assert_eq!(launched, 0);
    assert!(note_with(&["CL_DEVICE_NOT_AVAILABLE (device lost", "given up"]).is_some());
    // Operation 7 is kernel 2's slot allocation (after download 1 read kernel 1's slot):
    // x's only fresh copy is on the lost device.
    let (got, launched) = injected("lost:7", TWO_KERNELS, "f", TWO_KERNELS_ARGS);
    assert_eq!(launched, 1);
    let e = got.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Device, "{e}");
    assert_eq!(e.function.as_deref(), Some("f"));
    assert!(
        e.message.contains("only fresh copy of `x` (written by")
            && e.message.contains("CL_DEVICE_NOT_AVAILABLE")
            && e.message.contains("cannot be brought home or recomputed"),
        "{e}"
    );
}

/// A failed download: the only fresh copy of what the kernels wrote is on the device, so
/// the call stops with a device error (the kernels' error slots, or the arrays named),
/// never with the stale host values (x = [1, 2, 3], y = 0) as a result.
#[test]
fn a_failed_download_of_what_only_the_device_holds_is_a_clear_error() {
    let _s = serial();
    if !device_or_skip("a_failed_download_of_what_only_the_device_holds_is_a_clear_error") {
        return;
    }
    for spec in ["download:1", "download:2"] {
        let (got, _) = injected(spec, TWO_KERNELS, "f", TWO_KERNELS_ARGS);
        let e = got.unwrap_err();
        assert_eq!(e.kind, ErrorKind::Device, "{spec}: {e}");
        assert!(
            e.message.contains("reading a kernel's error slot")
                && e.message
                    .contains("before the kernels already launched could be checked"),
            "{spec}: {e}"
        );
    }
    let (got, launched) = injected("download:3", TWO_KERNELS, "f", TWO_KERNELS_ARGS);
    assert_eq!(launched, 2);
    let e = got.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Device, "{e}");
    assert_eq!(e.function.as_deref(), Some("f"));
    assert!(
        e.message
            .contains("ending a section: download: CL_OUT_OF_RESOURCES")
            && e.message.contains("only fresh copy of `x`, `y`"),
        "{e}"
    );
}

/// A kernel that failed a check before the device fails: its error is the call's error
/// (the serial order meets it first), not lost with the device. The reduction's partial
/// results are allocated (alloc 3) before anything reads kernel 1's error slot.
#[test]
fn a_kernels_error_before_the_fault_is_still_reported() {
    let _s = serial();
    if !device_or_skip("a_kernels_error_before_the_fault_is_still_reported") {
        return;
    }
    let src = r#"
(module err :index-base 0
  (function h ((x f64[1,row]) (k i64)) (f64)
    (locals (i i64) (s f64))
    (gpu
      (parfor (i) (range 0 (- (len x) 1))
        (block (set (index x (+ i k)) 1.0)))
      (set s (amax x)))
    (return s)))"#;
    // x has 3 elements; with k = 1, iteration 2 writes x[3].
    let args = "[[0.0, 0.0, 0.0], 1]";
    let want = run(src, "h", args, Backend::Interp).unwrap_err();
    assert_eq!(want.kind, ErrorKind::OutOfBounds);
    assert!(want.message.contains("index 3 out of bounds"), "{want}");
    for spec in ["", "alloc:3"] {
        let (got, launched) = injected(spec, src, "h", args);
        let e = got.unwrap_err();
        assert_eq!(
            (e.kind, &e.message),
            (want.kind, &want.message),
            "{spec}: {e}"
        );
        assert_eq!(launched, 1, "{spec}: the parfor ran on the device");
    }
}

/// A failed download of a reduction's scalar whose input the host also holds: nothing
/// is lost, so the CPU computes the reduction. amax of [3, -1, 7.5, 2] = 7.5.
#[test]
fn a_failed_download_of_nothing_only_the_device_holds_falls_back() {
    let _s = serial();
    if !device_or_skip("a_failed_download_of_nothing_only_the_device_holds_falls_back") {
        return;
    }
    let src = r#"
(module red :index-base 0
  (function m ((a f64[1,row])) (f64)
    (locals (s f64))
    (gpu (set s (amax a)))
    (return s)))"#;
    let args = "[[3.0, -1.0, 7.5, 2.0]]";
    let (got, launched) = injected("", src, "m", args);
    assert_eq!(got.unwrap(), "7.5");
    assert_eq!(launched, 1, "amax ran on the device");
    let (got, launched) = injected("download:1", src, "m", args);
    assert_eq!(got.unwrap(), "7.5");
    assert_eq!(launched, 1, "the kernel ran; its result could not be read");
    assert!(note_with(&["download number 1", "given up"]).is_some());
    assert_eq!(run(src, "m", args, Backend::Interp).unwrap(), "7.5");
}

/// A program that does not build, and a launch the device refuses (not a fault): that
/// task alone runs on the CPU, the other still on the device, with a note.
#[test]
fn a_failed_build_or_a_refused_launch_runs_that_task_on_the_cpu() {
    let _s = serial();
    if !device_or_skip("a_failed_build_or_a_refused_launch_runs_that_task_on_the_cpu") {
        return;
    }
    for (spec, why) in [
        (
            "build:1",
            "the program did not build (injected by VR_GPU_FAULT)",
        ),
        (
            "refuse:1",
            "CL_INVALID_WORK_GROUP_SIZE (launch number 1 refused",
        ),
    ] {
        let (got, launched) = injected(spec, TWO_KERNELS, "f", TWO_KERNELS_ARGS);
        assert_eq!(got.unwrap(), TWO_KERNELS_WANT, "{spec}");
        assert_eq!(launched, 1, "{spec}: the second kernel ran on the device");
        assert!(
            note_with(&[why, "runs on the CPU"]).is_some(),
            "{spec}: {:?}",
            velociraptor::gpu::engine::notes()
        );
    }
}

/// A library task whose target is also its operand (`b = b + 1`): the target gets a new
/// array before the kernel is enqueued, so when the task falls back (out of memory for
/// that array's buffer, or a refused launch) the variable must get its old array back,
/// or the CPU would add 1 to uninitialised memory. a = [1, 2]: b = 2a = [2, 4], then
/// b + 1 = [3, 5].
#[test]
fn a_library_task_that_falls_back_reads_its_targets_old_value() {
    let _s = serial();
    if !device_or_skip("a_library_task_that_falls_back_reads_its_targets_old_value") {
        return;
    }
    let src = r#"
(module lib :index-base 0
  (function g ((a f64[1,row])) (f64[1,row])
    (locals (b f64[1,row]))
    (set b (* a 2.0))
    (gpu (set b (+ b 1.0)))
    (return b)))"#;
    let args = "[[1.0, 2.0]]";
    let (got, launched) = injected("", src, "g", args);
    assert_eq!(got.unwrap(), "[3.0,5.0]");
    assert_eq!(launched, 1, "b + 1 ran on the device");
    // alloc 1: the result's buffer (bound before the operand).
    for (spec, ran) in [
        ("alloc:1", 0),
        ("alloc:2", 0),
        ("launch:1", 0),
        ("refuse:1", 0),
    ] {
        let (got, launched) = injected(spec, src, "g", args);
        assert_eq!(got.unwrap(), "[3.0,5.0]", "{spec}");
        assert_eq!(launched, ran, "{spec}");
    }
    assert!(note_with(&["launch number 1 refused", "runs on the CPU"]).is_some());
    assert_eq!(run(src, "g", args, Backend::Interp).unwrap(), "[3.0,5.0]");
}

/// `VR_GPU_FAULT` itself (read once per process) through `vr run`, and the module's
/// report (what R's `vr_explain()` shows) carrying the note.
#[test]
fn the_environment_variable_injects_faults_into_vr_run() {
    let _s = serial();
    if !device_or_skip("the_environment_variable_injects_faults_into_vr_run") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("faults.vrir");
    std::fs::write(&file, TWO_KERNELS).unwrap();
    let vr = |fault: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vr"))
            .args([
                "run",
                file.to_str().unwrap(),
                "f",
                "--args",
                TWO_KERNELS_ARGS,
            ])
            .args(["--backend", "gpu"])
            .env("VR_GPU_FAULT", fault)
            .output()
            .unwrap()
    };
    let out = vr("alloc:3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let got: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(plain(got), TWO_KERNELS_WANT);
    assert!(
        stderr.contains("alloc number 3, injected by VR_GPU_FAULT")
            && stderr.contains("given up for the rest of the call")
            && stderr.contains("1 kernel launches"),
        "{stderr}"
    );
    let out = vr("download:3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a lost result is an error");
    assert!(out.stdout.is_empty(), "no result printed");
    assert!(
        stderr.contains("device error in f") && stderr.contains("only fresh copy of `x`, `y`"),
        "{stderr}"
    );
    let out = vr("nonsense:1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("VR_GPU_FAULT=nonsense:1: `nonsense:1`: expected"),
        "{stderr}"
    );

    // The module's report (the C API's explain text, R's `vr_explain()`) carries it.
    let m = backend::load(TWO_KERNELS).unwrap();
    let compiled =
        velociraptor::driver::compile_gpu(&m, velociraptor::cpu::CpuOptions::parallel()).unwrap();
    let args = backend::args_from_json(
        backend::lookup(&m, "f").unwrap(),
        &serde_json::from_str(TWO_KERNELS_ARGS).unwrap(),
    )
    .unwrap();
    let got = with_faults("alloc:4", || compiled.call("f", args)).unwrap();
    assert_eq!(plain(backend::results_to_json(&got)), TWO_KERNELS_WANT);
    let report = compiled.offload_report();
    assert!(
        report.contains("1 kernel launch(es), 1 task(s) on the CPU")
            && report.contains("gpu note: gpu: ")
            && report.contains("alloc number 4, injected by VR_GPU_FAULT")
            && report.contains("given up for the rest of the call"),
        "{report}"
    );
}
