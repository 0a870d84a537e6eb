//! A failed compile or call as the R code of the package receives it: a list of class
//! `vr_failure` (never an R error raised from Rust: R's errors jump, and a jump over
//! Rust frames is undefined behaviour). The R side raises the classed condition.

use extendr_api::prelude::*;
use velociraptor::{ErrorKind, VrError};

/// Where it failed: compiling a specialization or running it; or `Cache`, not a failure
/// but the one note per process that the on-disk cache was not trusted (the R side
/// warns, class `velociraptor_cache`, and calls again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Compile,
    Run,
    Cache,
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub phase: Phase,
    pub error: VrError,
}

/// The name R sees for an error kind (`velociraptor_error`'s `kind` field).
pub fn kind_name(k: ErrorKind) -> &'static str {
    match k {
        ErrorKind::Parse => "parse",
        ErrorKind::Type => "type",
        ErrorKind::Unsupported => "unsupported",
        ErrorKind::OutOfBounds => "out_of_bounds",
        ErrorKind::DivisionByZero => "division_by_zero",
        ErrorKind::ShapeMismatch => "shape_mismatch",
        ErrorKind::Runtime => "runtime",
        ErrorKind::InvalidArgument => "invalid_argument",
        ErrorKind::Device => "device",
        ErrorKind::Internal => "internal",
        ErrorKind::Interrupted => "interrupted",
    }
}

impl Failure {
    pub fn new(phase: Phase, error: VrError) -> Failure {
        Failure { phase, error }
    }
    pub fn internal(msg: impl Into<String>) -> Failure {
        Failure::new(Phase::Run, VrError::new(ErrorKind::Internal, msg.into()))
    }
    pub fn invalid(msg: impl Into<String>) -> Failure {
        Failure::new(Phase::Run, VrError::new(ErrorKind::InvalidArgument, msg.into()))
    }
    /// The compiled function's external pointer is gone (it came back from
    /// `serialize()`): the R side makes a new one from the source it kept.
    pub fn stale() -> Failure {
        Failure::new(Phase::Compile, VrError::new(ErrorKind::InvalidArgument, "stale".to_string()))
    }

    pub fn into_robj(self) -> Robj {
        let e = self.error;
        let opt_str = |s: Option<String>| -> Robj { s.map(Robj::from).unwrap_or(Robj::from(())) };
        let opt_num = |v: Option<i64>| -> Robj { v.map(|v| Robj::from(v as f64)).unwrap_or(Robj::from(())) };
        let mut l = list!(
            phase = match self.phase {
                Phase::Compile => "compile",
                Phase::Run => "run",
                Phase::Cache => "cache",
            },
            kind = kind_name(e.kind),
            message = e.message,
            function = opt_str(e.function),
            line = opt_num(e.line.map(i64::from)),
            variable = opt_str(e.variable),
            index = opt_num(e.index),
            bound = opt_num(e.bound)
        );
        let _ = l.set_class(["vr_failure"]);
        l.into()
    }
}

impl From<VrError> for Failure {
    fn from(e: VrError) -> Failure {
        Failure::new(Phase::Run, e)
    }
}
