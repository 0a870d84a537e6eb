//! The verifier: the only type checker of the project.
//!
//! Every module is verified before anything runs, and nothing later re-checks types, so
//! the verifier rejects every ill-typed or ill-formed program and accepts every
//! well-typed one, by the rules of docs/vrir-semantics.md. It works in two passes over a
//! module: first the module attributes and every function's signature and declarations
//! (so that a call can trust its callee's types), then every function body.
//!
//! - [`expr`] computes the type of an expression (the "Types of expressions" and
//!   "Indexing" rules); its errors are bare descriptions of what is wrong.
//! - [`stmt`] checks statements and control flow and adds the location to those
//!   descriptions.
//!
//! Errors have kind [`ErrorKind::Type`] and the message
//! `"<function>: stmt <path>[ [line N]] (<kind>): <what is wrong>"`, where the path numbers
//! statements from 1 and nests with dots (`3.2` is the second statement in the body of
//! statement 3; an `if`'s else branch is `3.else.2`). Errors in a function's declarations
//! read `"<function>: <what is wrong>"`, errors of the module itself
//! `"module <name>: <what is wrong>"`.
//!
//! Where docs/vrir-semantics.md is silent, the verifier decides as follows:
//! - An assignment with one target is a plain assignment, even of a tuple value (the
//!   printer writes it as `set`); two or more targets take the items of a tuple.
//! - `len`, `ndims`, `copy`, `transpose` and the reductions take arrays only, not scalars.
//! - Index flags on an assignment target follow the rules for reads (`:view` included).
//! - Range endpoints and step may mix `i32` and `i64`.
//! - `free`, `refincr` and `refdecr` accept any declared variable.
//! - Loop variables of nested loops may repeat (each iteration assigns them afresh).
//! - Statements and expressions nest at most [`MAX_NESTING`] deep.
//! - Random draws (`random_*`) may not stand in a parfor body or an on_gpu block, nor
//!   may a call there reach a function that draws; a map's function may not draw at all
//!   (`random.rs`).

mod expr;
pub mod random;
mod stmt;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use super::ast::{Expr, Function, Module};
use super::text::is_plain_name;
use super::types::{ArrayType, Layout, Type};
use crate::runtime::error::{ErrorKind, VrError, VrResult};

use expr::{ExprChecker, Position};

/// How deeply statements and expressions may nest, together. Parsed input never exceeds
/// it (the text parser stops at 256 nested lists, serde_json at 128 levels); it exists so
/// that a module built in memory cannot exhaust the stack of the recursive checks, which
/// stay within a 2 MiB thread stack at this depth even in unoptimized builds.
pub const MAX_NESTING: usize = 256;

/// Check a whole module. Returns the first error found, of kind [`ErrorKind::Type`].
pub fn verify_module(m: &Module) -> VrResult<()> {
    if m.index_base > 1 {
        return Err(module_error(
            m,
            format!("index_base must be 0 or 1, got {}", m.index_base),
        ));
    }
    let mut names = HashSet::new();
    for f in &m.functions {
        if !is_plain_name(&f.name) {
            return Err(module_error(m, format!("function name {:?} is not a name", f.name)));
        }
        if !names.insert(f.name.as_str()) {
            return Err(module_error(
                m,
                format!("duplicate function name {}", f.name),
            ));
        }
    }
    for f in &m.functions {
        check_signature(f).map_err(|msg| function_error(f, msg))?;
    }
    for f in &m.functions {
        stmt::check_body(m, f)?;
    }
    Ok(())
}

/// The type of `e` in the scope of `f` (its parameters and locals), by the verifier's
/// rules. Backends call it on expressions of verified modules; it accepts what may
/// appear anywhere in a verified function: atomics (legal inside parfor bodies) and
/// ranges with absent endpoints (legal as indices). A call of a void function has type
/// `void`.
pub fn expr_type(m: &Module, f: &Function, e: &Expr) -> VrResult<Type> {
    ExprChecker::new(m, f)
        .type_of(e, Position::anywhere())
        .map_err(|msg| {
            VrError::type_error(format!("{}: {msg}", f.name))
                .with_function(&f.name)
                .with_line(f.line)
        })
}

/// Unique variable names and well-formed types for parameters, results and locals.
fn check_signature(f: &Function) -> Result<(), String> {
    let mut names = HashSet::new();
    let declared = f
        .params
        .iter()
        .map(|p| (&p.name, &p.ty, "parameter"))
        .chain(f.locals.iter().map(|l| (&l.name, &l.ty, "local")));
    for (name, ty, what) in declared {
        // Names must read back from the text form; JSON could carry anything.
        if !is_plain_name(name) {
            return Err(format!("{what} name {name:?} is not a name"));
        }
        if !names.insert(name.as_str()) {
            return Err(format!("duplicate variable name {name}"));
        }
        check_value_type(ty).map_err(|why| format!("{what} {name}: {why}"))?;
    }
    for (i, ty) in f.results.iter().enumerate() {
        check_value_type(ty).map_err(|why| format!("result {}: {why}", i + 1))?;
    }
    Ok(())
}

/// Types a variable, parameter or result may have: scalars, arrays and domains of at least
/// one dimension, ranges, and tuples of those. `void` and function types are not values.
fn check_value_type(ty: &Type) -> Result<(), String> {
    match ty {
        Type::Scalar { .. } | Type::Range => Ok(()),
        Type::Array(a) => check_array_type(a),
        Type::Domain { ndims: 0 } => {
            Err("domain[0] has no dimensions; a domain has at least 1".to_string())
        }
        Type::Domain { .. } => Ok(()),
        Type::Tuple { items } => items.iter().try_for_each(check_value_type),
        Type::Void | Type::Func { .. } => Err(format!("{ty} is not the type of a value")),
    }
}

/// Arrays have at least one dimension.
fn check_array_type(a: &ArrayType) -> Result<(), String> {
    if a.ndims == 0 {
        Err(format!("{a} has no dimensions; an array has at least 1"))
    } else {
        Ok(())
    }
}

/// Whether a value of type `from` may be stored in a variable (or passed as a parameter,
/// or returned as a result) of type `to`: the types are equal, or `to` is a strided array
/// and `from` an array of the same element type and rank.
pub(crate) fn assignable(from: &Type, to: &Type) -> bool {
    match (from, to) {
        (Type::Array(a), Type::Array(b)) if b.layout == Layout::Strided => {
            a.elem == b.elem && a.ndims == b.ndims
        }
        _ => from == to,
    }
}

fn module_error(m: &Module, msg: String) -> VrError {
    VrError::type_error(format!("module {}: {msg}", m.name))
}

fn function_error(f: &Function, msg: String) -> VrError {
    VrError::new(ErrorKind::Type, format!("{}: {msg}", f.name))
        .with_function(&f.name)
        .with_line(f.line)
}
