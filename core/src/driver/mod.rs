//! The compile pipeline that knows every backend: the one place where the cpu backend
//! and the GPU's engine meet (backends never import each other). The `gpu` backend,
//! which compiles a module for `cpu-par` with the GPU's offload plan and engine
//! attached, and the specialization cache's compile step ([`compile::compile_unit`]:
//! which backend, through the on-disk cache).

#![allow(clippy::result_large_err)]

pub mod calibrate;
pub mod compile;

pub use compile::{compile_unit, Tiering, Unit};

use crate::cpu::{CompiledModule, CpuOptions};
use crate::gpu::placement::{Calibration, Placement};
use crate::runtime::error::VrResult;
use crate::runtime::offload::Offload;
use crate::vrir::ast::Module;
use std::sync::Arc;

/// Compile `m` (verified, optimized) for the `gpu` backend: `on_gpu` sections through the
/// GPU's engine, everything else as `cpu-par` with `options`.
pub fn compile_gpu(m: &Module, options: CpuOptions) -> VrResult<CompiledModule> {
    compile_gpu_placed(m, options, Placement::Device, None)
}

/// [`compile_gpu`] with tasks placed by the cost model (`--backend auto`): the machine
/// is calibrated first (once per process and device, or read from disk; see
/// [`calibrate`]). Without a device there is nothing to choose and it is `compile_gpu`.
pub fn compile_auto(m: &Module, options: CpuOptions) -> VrResult<CompiledModule> {
    let threads = options
        .threads
        .unwrap_or_else(crate::cpu::parallel::default_threads);
    let calibration = if crate::gpu::section_count(m) > 0 {
        calibrate::calibration(threads)
    } else {
        None
    };
    compile_gpu_placed(m, options, Placement::Model, calibration)
}

/// The gpu backend with `placement` deciding where tasks run (`Model` needs
/// `calibration`; without one every task goes to the device, as `Device`).
pub fn compile_gpu_placed(
    m: &Module,
    options: CpuOptions,
    placement: Placement,
    calibration: Option<Arc<Calibration>>,
) -> VrResult<CompiledModule> {
    let plan = Arc::new(crate::gpu::plan(m));
    for n in &plan.notes {
        crate::gpu::engine::note(n.clone());
    }
    let engine = Arc::new(
        crate::gpu::engine::GpuEngine::new(plan.clone(), m.index_base)
            .placed(placement, calibration),
    );
    crate::cpu::compile_offloaded(
        m,
        options,
        Offload {
            plan: Arc::new(plan.offload.clone()),
            engine,
        },
    )
}
