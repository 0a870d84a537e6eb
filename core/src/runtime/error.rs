//! Structured errors shared by every stage: parse, verify, run time. A run-time error
//! names the function, source line, variable, index and bound so that every host can
//! raise a precise error of its own kind.

use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Malformed text or JSON.
    Parse,
    /// The verifier rejected the program.
    Type,
    /// A construct or value outside what this backend handles.
    Unsupported,
    OutOfBounds,
    DivisionByZero,
    /// Operand shapes that do not conform (element-wise, matmul, assignment of a slice).
    ShapeMismatch,
    /// Any other run-time failure of the program (invalid cast, empty reduction, bad dims).
    Runtime,
    /// Wrong arguments handed in by the caller (count, type).
    InvalidArgument,
    Device,
    Internal,
    /// The host asked a running call to stop (a user interrupt: Ctrl-C in R).
    Interrupted,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Parse => "parse error",
            ErrorKind::Type => "type error",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::OutOfBounds => "index out of bounds",
            ErrorKind::DivisionByZero => "integer division by zero",
            ErrorKind::ShapeMismatch => "shape mismatch",
            ErrorKind::Runtime => "runtime error",
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::Device => "device error",
            ErrorKind::Internal => "internal error",
            ErrorKind::Interrupted => "interrupted",
        }
    }
}

/// One error, with whatever location it can name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VrError {
    pub kind: ErrorKind,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// The offending index as the program wrote it (in the module's index base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    /// The extent of the dimension that was indexed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<i64>,
    /// Which dimension (0-based) was indexed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dim: Option<u32>,
}

impl VrError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> VrError {
        VrError {
            kind,
            message: message.into(),
            function: None,
            line: None,
            variable: None,
            index: None,
            bound: None,
            dim: None,
        }
    }
    pub fn parse(message: impl Into<String>) -> VrError {
        VrError::new(ErrorKind::Parse, message)
    }
    pub fn type_error(message: impl Into<String>) -> VrError {
        VrError::new(ErrorKind::Type, message)
    }
    pub fn runtime(message: impl Into<String>) -> VrError {
        VrError::new(ErrorKind::Runtime, message)
    }
    pub fn with_function(mut self, f: &str) -> VrError {
        if self.function.is_none() {
            self.function = Some(f.to_string());
        }
        self
    }
    pub fn with_line(mut self, line: Option<u32>) -> VrError {
        if self.line.is_none() {
            self.line = line;
        }
        self
    }
    pub fn with_variable(mut self, v: &str) -> VrError {
        if self.variable.is_none() {
            self.variable = Some(v.to_string());
        }
        self
    }
}

impl fmt::Display for VrError {
    /// `index out of bounds in f (line 3): A[0, 7]: index 7 out of bounds 0..5 in dimension 1`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if let Some(func) = &self.function {
            write!(f, " in {func}")?;
            if let Some(line) = self.line {
                write!(f, " (line {line})")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VrError {}

pub type VrResult<T> = Result<T, VrError>;
