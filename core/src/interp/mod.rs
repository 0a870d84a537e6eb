//! The reference interpreter: the semantic oracle for every backend.

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::ast::Module;

// stub: replaced by branch interp
/// Run `func` of a verified module on `args`, returning its results.
pub fn run(_m: &Module, func: &str, _args: Vec<Value>) -> VrResult<Vec<Value>> {
    Err(VrError::new(ErrorKind::Unsupported, format!("cannot run `{func}`: the interpreter is not merged yet")))
}
