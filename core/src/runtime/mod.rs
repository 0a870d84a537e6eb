//! Host-neutral run-time pieces: structured errors, run-time values, arrays in host
//! memory (`host`), and the specialization cache (`compile_cache`).

pub mod compile_cache;
pub mod disk_cache;
pub mod error;
pub mod host;
pub mod offload;
pub mod value;
