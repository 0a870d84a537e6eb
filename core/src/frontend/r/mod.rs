//! The R front end: R source (files of functions, or one deparsed function) to VRIR.
//! `lexer` and `parser` read R into the shared HIR; `rules` is R's rule table for the
//! shared engine and `builtins` maps R's library onto VRIR. See docs/frontend-r.md.

pub mod bounds;
pub mod builtins;
pub mod formals;
pub mod functionals;
pub mod deparse;
pub mod lexer;
pub mod library;
pub mod parser;
pub mod recycle;
pub mod rules;
pub mod sequences;
pub mod subscripts;

use super::hir::{Expr, ExprKind, UnOp};
use super::infer::Program;
use super::rules::Language;
use super::types::Ty;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::{Module, ScalarType};
use serde_json::Value as Json;

/// The functions and constants that R source defines at top level: `name <- function`
/// definitions (and `name = function`), and names bound to constants. Functions
/// defined inside them are lifted out (`frontend::lift`).
pub fn program(src: &str) -> VrResult<Program> {
    let mut p = Program::new(&rules::RULES);
    // Base R's constants (a file may rebind them).
    for (name, value) in [("T", ExprKind::Bool(true)), ("F", ExprKind::Bool(false)), ("pi", ExprKind::Double(std::f64::consts::PI))] {
        p.constants.insert(name.into(), Expr::new(value, 0));
    }
    for e in parser::parse_program(src)? {
        let ExprKind::Assign { target, value } = &e.kind else {
            // A bare deparsed function (`function (x) ...`) is the function `f`.
            if let ExprKind::Function(def) = &e.kind {
                p.defs.insert("f".into(), def.clone());
            }
            continue;
        };
        let ExprKind::Var(name) = &target.kind else { continue };
        match &value.kind {
            ExprKind::Function(def) => {
                p.defs.insert(name.clone(), def.clone());
            }
            k if is_constant(k) => {
                p.constants.insert(name.clone(), (**value).clone());
            }
            _ => {}
        }
    }
    crate::frontend::lift::lift_program(&mut p);
    Ok(p)
}

fn is_constant(k: &ExprKind) -> bool {
    match k {
        ExprKind::Double(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Imaginary(_) => true,
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, e) => is_constant(&e.kind),
        _ => false,
    }
}

/// Compile `entry` of R source for these argument types (one per leading formal; the
/// rest take their defaults).
pub fn compile(src: &str, entry: &str, args: Vec<Ty>) -> VrResult<Module> {
    let mut p = program(src)?;
    p.compile(entry, entry, args.into_iter().map(Some).collect())
}

/// The R type of a JSON argument: a bare number is a double, a boolean a logical,
/// `{"re","im"}` a complex; `{"dtype","data"}` a typed scalar and with `"shape"` an
/// array; nested lists are double arrays.
pub fn json_arg_type(j: &Json) -> VrResult<Ty> {
    let bad = |m: String| VrError::new(ErrorKind::InvalidArgument, m);
    let elem_of = |d: &str| -> VrResult<ScalarType> {
        match d {
            "f64" => Ok(rules::DOUBLE),
            "i32" => Ok(rules::INTEGER),
            "bool" => Ok(rules::LOGICAL),
            "c128" => Ok(rules::COMPLEX),
            other => Err(bad(format!("dtype `{other}` has no R type (R has f64 double, i32 integer, bool logical, c128 complex)"))),
        }
    };
    match j {
        Json::Number(_) => Ok(Ty::scalar(rules::DOUBLE)),
        Json::String(s) if matches!(s.as_str(), "nan" | "inf" | "-inf") => Ok(Ty::scalar(rules::DOUBLE)),
        Json::Bool(_) => Ok(Ty::scalar(rules::LOGICAL)),
        Json::Object(m) if m.contains_key("re") => Ok(Ty::scalar(rules::COMPLEX)),
        Json::Object(m) if m.contains_key("data") => {
            let elem = match m.get("dtype").and_then(|d| d.as_str()) {
                Some(d) => elem_of(d)?,
                None => rules::DOUBLE,
            };
            match m.get("shape") {
                Some(Json::Array(s)) if !s.is_empty() => Ok(Ty::array(elem, s.len() as u32)),
                Some(Json::Array(_)) | None if !m["data"].is_array() => Ok(Ty::scalar(elem)),
                _ => {
                    let mut rank = 0;
                    let mut d = &m["data"];
                    while let Json::Array(items) = d {
                        rank += 1;
                        match items.first() {
                            Some(x) => d = x,
                            None => break,
                        }
                    }
                    Ok(Ty::array(elem, rank.max(1)))
                }
            }
        }
        Json::Array(_) => {
            let mut rank = 0;
            let mut d = j;
            while let Json::Array(items) = d {
                rank += 1;
                match items.first() {
                    Some(x) => d = x,
                    None => break,
                }
            }
            Ok(Ty::array(rules::DOUBLE, rank))
        }
        other => Err(bad(format!("argument {other} has no R type"))),
    }
}

/// Compile `entry` of R source for JSON arguments (`vr run FILE.R F --args [...]`):
/// the module and the argument values.
pub fn compile_for_json(src: &str, entry: &str, args: &[Json]) -> VrResult<(Module, Vec<Value>)> {
    let types = args.iter().map(json_arg_type).collect::<VrResult<Vec<Ty>>>()?;
    let m = compile(src, entry, types.clone())?;
    let values = args
        .iter()
        .zip(&types)
        .map(|(j, t)| {
            let j = match j {
                // A typed scalar `{"dtype": "i32", "data": 5}`.
                Json::Object(o) if t.rank == 0 && o.contains_key("data") => &o["data"],
                _ => j,
            };
            Value::from_json(j, &t.vrir(rules::RULES.layout()))
        })
        .collect::<VrResult<Vec<Value>>>()?;
    Ok((m, values))
}

/// Turn a run-time error raised by an R check into R's message, naming the R function
/// and line; other errors pass through.
pub fn explain_error(e: VrError) -> VrError {
    bounds::explain(super::lower::explain_error(&rules::RULES, e))
}
