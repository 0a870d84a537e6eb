//! Host-neutral run-time pieces: structured errors, run-time values, arrays in host
//! memory (`host`), the specialization cache (`compile_cache`), the on-disk cache
//! (`disk_cache`), the complex library functions every backend computes alike
//! (`complex_math`) and who may have written it (`cache_trust`), the offload contract
//! (`offload`), and the random numbers of `random_*` draws (`rng`: a host's generator
//! or R's default built in).

pub mod cache_trust;
pub mod compile_cache;
pub mod complex_math;
pub mod disk_cache;
pub mod error;
pub mod host;
pub mod offload;
pub mod rng;
pub mod value;
