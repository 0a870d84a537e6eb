//! Host-neutral run-time pieces: structured errors and run-time values.

pub mod error;
pub mod value;
