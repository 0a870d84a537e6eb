//! Velociraptor: a compiler and runtime for numerical array code shared by R, Julia,
//! Octave and any C host. See docs/architecture.md for the map of this crate.

pub mod analysis;
pub mod backend;
pub mod compile_phases;
pub mod conformance;
pub mod cpu;
pub mod driver;
pub mod frontend;
pub mod fuzz_targets;
pub mod gpu;
pub mod interp;
pub mod opt;
pub mod runtime;
pub mod vrir;

pub use runtime::error::{ErrorKind, VrError, VrResult};
/// The complex number type of `runtime::value::Scalar`, for hosts that build scalars.
pub use num_complex;
