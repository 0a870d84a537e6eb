//! Host-neutral run-time pieces: structured errors, run-time values, arrays in host
//! memory (`host`), the specialization cache (`compile_cache`), and the random
//! numbers of `random_*` draws (`rng`: a host's generator or R's default built in).

pub mod compile_cache;
pub mod disk_cache;
pub mod error;
pub mod host;
pub mod rng;
pub mod value;
