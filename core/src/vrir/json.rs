//! The JSON form of VRIR: the interchange form of the C API (docs/vrir-json.md).
//! It is serde's rendering of the AST; this module adds error positions.

use super::ast::Module;
use crate::runtime::error::{VrError, VrResult};

/// Parse a module from JSON. Errors name the line and column.
pub fn from_json(src: &str) -> VrResult<Module> {
    serde_json::from_str(src).map_err(|e| {
        // serde_json ends its message with the position; we put the position first.
        let position = format!(" at line {} column {}", e.line(), e.column());
        let text = e.to_string();
        let what = text.strip_suffix(&position).unwrap_or(&text);
        VrError::parse(format!("JSON at line {} column {}: {what}", e.line(), e.column()))
    })
}

/// The module as pretty-printed JSON.
pub fn to_json(m: &Module) -> String {
    serde_json::to_string_pretty(m).expect("VRIR modules always serialize")
}
