//! The GPU backend: `on_gpu` sections on an OpenCL device, everything else as `cpu-par`
//! (docs/gpu.md). The only module that touches OpenCL.
//!
//! How a section runs (the design decision, docs/gpu.md "How the CPU drives a section"):
//! the module is compiled by the cpu backend as usual, and [`plan`] attaches offload
//! actions (`runtime::offload`) to the statements of every section: each parfor the
//! kernel generator compiles ([`kernel`]) and each array copy is a *task* the engine
//! ([`engine`]) may run on the device; the CPU code between tasks calls the engine at
//! *synchronisation points* for the arrays it touches; the section's exits end it.
//! VRRuntime ([`runtime`]) decides what moves where; [`opencl`] holds the device, its
//! queue and the program cache; [`errors`] words kernel errors as the interpreter does.
//! Every task keeps its compiled CPU code, which runs when the engine declines (no
//! device, no fp64, a failed build): the same results, with a note.

// VrError is the crate-wide error type (128 bytes by design), as in cpu/.
#![allow(clippy::result_large_err)]

pub mod engine;
pub mod errors;
pub mod faults;
pub mod kernel;
pub mod library;
pub mod opencl;
pub mod placement;
pub mod plan;
pub mod program_cache;
pub mod resident;
pub mod runtime;

pub use plan::{plan, section_count, wrap_function_in_section, wrap_in_sections, GpuAction, GpuPlan};

/// The device sections run on in this process, or why there is none.
pub fn device() -> Result<opencl::DeviceInfo, String> {
    opencl::gpu().map(|g| g.info.clone())
}
