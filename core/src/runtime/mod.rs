//! Host-neutral run-time pieces: structured errors, run-time values, arrays in host
//! memory (`host`), the specialization cache (`compile_cache`), the on-disk cache
//! (`disk_cache`) and who may have written it (`cache_trust`).

pub mod cache_trust;
pub mod compile_cache;
pub mod disk_cache;
pub mod error;
pub mod host;
pub mod offload;
pub mod value;
