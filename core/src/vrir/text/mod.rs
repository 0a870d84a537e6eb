//! The S-expression text form of VRIR (docs/vrir-text.md): parser and printer.
//!
//! `lexer` reads characters into atoms and lists, `parser` turns those into the AST
//! (syntax only: types are the verifier's job), `printer` writes the canonical form, and
//! `literal` spells constants both ways.
//! For every module `m` with plain names (see [`is_plain_name`]),
//! `parse_module(&print_module(&m)) == Ok(m)` and printing is stable.

mod lexer;
mod literal;
mod parser;
mod printer;

use super::ast::{Expr, Module};
use super::types::Type;
use crate::runtime::error::VrResult;

pub use lexer::MAX_DEPTH;
pub use parser::is_plain_name;

/// Parse a module. Errors are parse errors whose message starts with
/// "line L column C: "; no input makes this panic.
pub fn parse_module(src: &str) -> VrResult<Module> {
    parser::parse_module(src).map_err(Into::into)
}

/// The canonical text of a module: two-space indentation, one statement per line,
/// expressions on one line where they fit in 100 columns. Ends with a newline.
pub fn print_module(m: &Module) -> String {
    printer::print_module(m)
}

/// Parse one type, e.g. `f64[2,col]` or `(tuple i64 f64)`.
pub fn parse_type(src: &str) -> VrResult<Type> {
    parser::parse_type(src).map_err(Into::into)
}

/// An expression on one line, for error messages.
pub fn print_expr(e: &Expr) -> String {
    printer::print_expr(e)
}
