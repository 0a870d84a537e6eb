//! Placement (`--backend auto`, the C API's `backend=auto`, R's `vr_options(gpu =
//! "auto")`): for each task of a section, whether the device or the CPU's threads run
//! it, from a cost model (parakeet-2011's idea: transfers can make the GPU the wrong
//! choice).
//!
//! When a task is reached the engine knows its domain, its scalar arguments and where
//! each of its arrays is fresh (VRRuntime's tables), so it estimates both times:
//!
//! - CPU: `o_cpu + max(ops / (r_core * min(threads, outer)), bytes / bw_cpu)`, plus
//!   bringing home what only the device holds (`down_now / bw_move`);
//! - device: `o_task (+ o_session for the section's first task) + up / bw_move + max(ops
//!   / r_gpu, bytes / bw_gpu, ops_per_item / r_lane + bytes_per_item / bw_lane) +
//!   down_after / bw_move`, plus the
//!   arrays the section's CPU code synchronised on the last run that used the device
//!   (`syncs * sync_cost`: a serial loop over arrays a kernel wrote pays one per array
//!   each statement names),
//!
//! and for a serial loop made a kernel (`loop-kernels`) the CPU side also pays the
//! synchronisations its own CPU code made on its last run there (`cpu_syncs *
//! sync_cost`): those are what running it on the CPU costs, not what the device costs,
//!
//! where `ops` and `bytes` are the task's work ([`estimate`]; `bytes` at most [`REUSE`]
//! times the bytes of the arrays it names, since the estimator counts every access and
//! a loop that reads a row again finds it in cache), `outer` its parallel
//! iterations on the CPU (cpu-par splits the outer loop), `ops_per_item` and
//! `bytes_per_item` the work of one work item (a domain smaller than the device cannot
//! use all of it, and a lone work item waits on memory), `up` the bytes of
//! its arrays the device lacks, `down_after` the bytes it writes (they come home at the
//! end of the section) and `down_now` the bytes only the device holds. The constants are
//! measured once per device and thread count (`driver::calibrate`) with kernels counted by the
//! same estimator, and kept on disk next to the kernel cache. The cheaper side runs the
//! task; because the arrays stay where the last task left them, the tasks after a device
//! task find their data there, and the choice holds for the section as a whole unless a
//! task's work changes it.

/// The work estimator is a VRIR analysis shared with the CPU's tier choice (`cpu::tiers`).
pub use crate::analysis::work as estimate;

use serde::{Deserialize, Serialize};

/// Who decides where a section's tasks run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Placement {
    /// On the device whenever it can run them (`--backend gpu`).
    #[default]
    Device,
    /// The cost model chooses per task between the device and the CPU (`--backend auto`).
    Model,
}

/// What the model needs to know of the machine, measured by `driver::calibrate`. Times in
/// seconds, rates per second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The device, as `DeviceInfo::describe` names it, and the CPU threads measured.
    pub device: String,
    pub threads: usize,
    /// A section's first task on the device: making the call's runtime, the launch, the
    /// wait at the end.
    pub session_s: f64,
    /// Each further task on the device (enqueue and launch).
    pub task_s: f64,
    /// A parallel loop on the CPU (waking the threads).
    pub cpu_task_s: f64,
    /// Host-device transfers (both ways, with the host-side copies), bytes per second.
    pub move_bw: f64,
    /// Device memory as a kernel streams it.
    pub gpu_bw: f64,
    /// Memory as the CPU's threads stream it.
    pub cpu_bw: f64,
    /// Estimated operations per second: the whole device, one work item, one CPU thread.
    pub gpu_ops: f64,
    pub lane_ops: f64,
    pub core_ops: f64,
    /// Bytes per second one work item alone reads (memory latency, not bandwidth, bounds
    /// it: what a domain too small for the device meets).
    pub lane_bw: f64,
    /// One array synchronised by CPU code after the device wrote it.
    pub sync_s: f64,
    /// How long the calibration took (0 when read from disk).
    #[serde(default)]
    pub took_s: f64,
}

impl Calibration {
    /// One line of the measured constants, for `explain`.
    pub fn describe(&self) -> String {
        let gb = |b: f64| format!("{:.1} GB/s", b / 1e9);
        let us = |t: f64| format!("{:.1} us", t * 1e6);
        format!(
            "cost model calibrated on {} with {} CPU thread(s){}: section start {}, task {} (CPU {}), transfers {}, device memory {}, CPU memory {}, device {:.2e} ops/s ({:.2e} one work item, {} alone), CPU thread {:.2e} ops/s, synchronisation {}",
            self.device,
            self.threads,
            if self.took_s > 0.0 { format!(" (measured in {:.0} ms)", self.took_s * 1e3) } else { " (read from the kernel cache)".to_string() },
            us(self.session_s),
            us(self.task_s),
            us(self.cpu_task_s),
            gb(self.move_bw),
            gb(self.gpu_bw),
            gb(self.cpu_bw),
            self.gpu_ops,
            self.lane_ops,
            gb(self.lane_bw),
            self.core_ops,
            us(self.sync_s),
        )
    }
}

/// One task as the model sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Task {
    pub cost: estimate::Cost,
    /// Bytes of the arrays the task names: memory traffic is taken as at most
    /// [`REUSE`] times this (a loop that reads the same row again finds it in cache;
    /// the estimator counts every access).
    pub footprint: f64,
    /// Work items on the device (its NDRange) and parallel iterations on the CPU.
    pub items: f64,
    pub outer: f64,
    /// Bytes to upload if the device runs it; bytes it writes (home at the section's
    /// end); bytes only the device holds (home before the CPU could run it).
    pub up: f64,
    pub down_after: f64,
    pub down_now: f64,
    /// The section has not used the device in this run yet.
    pub first: bool,
    /// Arrays the section's CPU code synchronised on its last run that used the device.
    pub syncs: f64,
    /// For a serial loop that is a task (`loop-kernels`): arrays its own CPU code
    /// synchronised on its last run on the CPU (a statement's call into the engine each).
    pub cpu_syncs: f64,
}

/// The model's two times and its choice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub cpu_s: f64,
    pub gpu_s: f64,
    pub device: bool,
}

impl Choice {
    /// `device 1.2 ms < cpu 3.4 ms`, for notes and `explain`.
    pub fn describe(&self) -> String {
        let ms = |s: f64| format!("{:.3} ms", s * 1e3);
        if self.device {
            format!("device {} < cpu {}", ms(self.gpu_s), ms(self.cpu_s))
        } else {
            format!("cpu {} <= device {}", ms(self.cpu_s), ms(self.gpu_s))
        }
    }
}

/// Memory traffic of a task: at most this many times its arrays' bytes.
pub const REUSE: f64 = 2.0;

/// Both estimates for `t` on the machine `c` describes, and the cheaper side.
pub fn choose(t: &Task, c: &Calibration) -> Choice {
    let ops = t.cost.ops.max(0.0);
    let touched = t.cost.bytes.max(0.0);
    let bytes = touched.min(REUSE * t.footprint.max(0.0));
    let threads = (c.threads as f64).min(t.outer.max(1.0)).max(1.0);
    let cpu_s = c.cpu_task_s
        + (ops / (c.core_ops * threads)).max(bytes / c.cpu_bw)
        + t.down_now / c.move_bw
        + t.cpu_syncs * c.sync_s;
    let items = t.items.max(1.0);
    // One work item alone meets every access's latency, cached or not.
    let one_item = ops / items / c.lane_ops + touched / items / c.lane_bw;
    let kernel = (ops / c.gpu_ops).max(bytes / c.gpu_bw).max(one_item);
    let fixed = c.task_s + if t.first { c.session_s } else { 0.0 };
    let gpu_s = fixed + (t.up + t.down_after) / c.move_bw + kernel + t.syncs * c.sync_s;
    Choice { cpu_s, gpu_s, device: gpu_s < cpu_s }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round numbers of the order the H200 box measured (docs/gpu.md, "Placement").
    fn machine() -> Calibration {
        Calibration {
            device: "test".into(),
            threads: 16,
            session_s: 1e-3,
            task_s: 2e-5,
            cpu_task_s: 1e-5,
            move_bw: 5e9,
            gpu_bw: 3e12,
            cpu_bw: 6e10,
            gpu_ops: 1e13,
            lane_ops: 1e9,
            core_ops: 2e9,
            lane_bw: 5e7,
            sync_s: 5e-7,
            took_s: 0.0,
        }
    }

    fn task(ops: f64, bytes: f64, items: f64, moved: f64) -> Task {
        Task {
            cost: estimate::Cost { ops, bytes, guessed: false },
            footprint: bytes,
            items,
            outer: items,
            up: moved,
            down_after: moved / 2.0,
            first: true,
            ..Task::default()
        }
    }

    #[test]
    fn element_wise_work_stays_on_the_cpu_once_transfers_count() {
        // rosen_der at 4e6: ~20 ops and 32 bytes an element, 64 MB to move.
        let c = choose(&task(8e7, 1.3e8, 4e6, 6.4e7), &machine());
        assert!(!c.device, "{}", c.describe());
        // The same with its arrays already on the device and read back later only.
        let mut t = task(8e7, 1.3e8, 4e6, 0.0);
        t.first = false;
        let c = choose(&t, &machine());
        assert!(c.device, "{}", c.describe());
    }

    #[test]
    fn compute_heavy_work_goes_to_the_device() {
        // julia-like: 160,000 items of ~2,000 ops, 1.3 MB written.
        let c = choose(&task(3.2e8, 1.3e6, 1.6e5, 1.3e6), &machine());
        assert!(c.device, "{}", c.describe());
    }

    #[test]
    fn few_work_items_cannot_fill_the_device() {
        // growcut-like: 500 items of 1e5 ops and 2e5 bytes each: the device runs each item
        // at one work item's speed, which memory latency bounds.
        let c = choose(&task(5e7, 1e8, 500.0, 1e6), &machine());
        assert!(!c.device, "{}", c.describe());
        assert!(c.gpu_s >= 1e5 / 1e9 + 2e5 / 5e7);
    }

    #[test]
    fn reused_bytes_do_not_count_as_memory_traffic() {
        // matmul-like, 300 x 300: 432 MB of accesses to 2.2 MB of arrays; on the CPU that
        // is compute (8.6 ms here), not 7 ms of streaming at 60 GB/s on top.
        let mut t = task(5.5e8, 4.32e8, 9e4, 2.2e6);
        t.footprint = 2.2e6;
        let c = choose(&t, &machine());
        assert!((c.cpu_s - (1e-5 + 5.5e8 / 3.2e10)).abs() < 1e-9, "{}", c.describe());
    }

    #[test]
    fn synchronisations_of_the_last_run_count_against_the_device() {
        let mut t = task(3.0e8, 1e5, 3000.0, 1e5);
        let before = choose(&t, &machine());
        assert!(before.device, "{}", before.describe());
        t.syncs = 6000.0 * 4.0;
        let after = choose(&t, &machine());
        assert!(!after.device, "{}", after.describe());
    }

    #[test]
    fn a_serial_loops_own_synchronisations_count_against_its_cpu_run() {
        // nbody1d's update loop as a kernel: 3,000 items of a few operations. Alone it
        // is cheaper on the CPU; its CPU code calls the engine before each of its two
        // statements (12,000 arrays a call), which only the CPU choice pays.
        let mut t = task(3e4, 1.4e5, 3000.0, 0.0);
        t.first = false;
        let alone = choose(&t, &machine());
        assert!(!alone.device, "{}", alone.describe());
        t.cpu_syncs = 12_000.0;
        let with_syncs = choose(&t, &machine());
        assert!(with_syncs.device, "{}", with_syncs.describe());
        assert!((with_syncs.cpu_s - alone.cpu_s - 12_000.0 * 5e-7).abs() < 1e-12);
    }
}
