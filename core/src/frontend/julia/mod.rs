//! The Julia front end: Julia source (a script file, or the function text the
//! Velociraptor.jl macro prints) to VRIR. `lexer` and `parser` read Julia into the
//! shared HIR (`desugar` rewrites the forms the syntax decides, `passes` what needs a
//! whole function: results, annotations, scopes, views); `rules` is Julia's rule table
//! for the engine, `ops` its arithmetic, `ranges` its integer ranges, `builtins` its
//! library and `types` its annotations. See docs/frontend-julia.md.

pub mod builtins;
pub mod desugar;
pub mod lexer;
pub mod ops;
pub mod parser;
pub mod passes;
pub mod ranges;
pub mod rules;
pub mod types;

use super::hir::{Expr, ExprKind, FunctionDef};
use super::infer::Program;
use super::types::Ty;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::{Module, ScalarType};
use rules::{BOOL, COMPLEX, FLOAT, INT};
use serde_json::Value as Json;
use std::collections::{HashMap, HashSet};

/// A Julia source file read for compiling: the engine's program, and the functions
/// that did not parse (compiling one reports its parse error).
pub struct JuliaProgram {
    pub program: Program,
    pub broken: HashMap<String, VrError>,
}

/// The functions and constants a Julia file defines (everything else is stepped over).
pub fn program(src: &str) -> VrResult<JuliaProgram> {
    let source = parser::parse_source(src)?;
    let mut p = Program::new(&rules::RULES);
    // Base's constants (a file may rebind them).
    let pi = ExprKind::Double(std::f64::consts::PI);
    for (name, value) in [
        ("pi", pi.clone()),
        ("π", pi),
        ("ℯ", ExprKind::Double(std::f64::consts::E)),
        ("Inf", ExprKind::Double(f64::INFINITY)),
        ("Inf64", ExprKind::Double(f64::INFINITY)),
        ("NaN", ExprKind::Double(f64::NAN)),
        ("NaN64", ExprKind::Double(f64::NAN)),
        ("im", ExprKind::Imaginary(1.0)),
    ] {
        p.constants.insert(name.into(), Expr::new(value, 0));
    }
    for (name, value) in source.constants {
        p.constants.insert(name, value);
    }
    for g in &source.globals {
        p.constants.remove(g);
    }
    // A constant defined through itself (`n = n + 1`, or `a = b` and `b = a`) is no
    // constant: reading it expanded without end (a stack overflow, found by fuzzing).
    // It is a global like any other name assigned a value that is not a constant.
    let cyclic: Vec<String> = p.constants.keys().filter(|n| reaches(&p.constants, n, n, &mut HashSet::new())).cloned().collect();
    for n in cyclic {
        p.constants.remove(&n);
    }
    let names: HashSet<String> = source.functions.iter().map(|f| f.name.clone()).collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in &source.functions {
        *seen.entry(f.name.clone()).or_default() += 1;
    }
    for f in &source.functions {
        let def = if seen[&f.name] > 1 {
            let what = format!("function `{}` with {} methods (multiple dispatch)", f.name, seen[&f.name]);
            FunctionDef { params: f.def.params.clone(), body: Box::new(Expr::new(ExprKind::Unsupported(what), f.line)) }
        } else {
            passes::prepare(f, &names)
        };
        // Several methods: the first definition's line is the one named.
        p.defs.entry(f.name.clone()).or_insert(def);
    }
    let mut broken = HashMap::new();
    for (name, e) in source.broken {
        if !p.defs.contains_key(&name) {
            let what = format!("function `{name}`, which does not parse ({})", e.message);
            p.defs.insert(name.clone(), FunctionDef { params: vec![], body: Box::new(Expr::new(ExprKind::Unsupported(what), 0)) });
        }
        broken.insert(name, e);
    }
    Ok(JuliaProgram { program: p, broken })
}

/// Does constant `from`'s value read `target`, directly or through other constants?
fn reaches(constants: &HashMap<String, Expr>, from: &str, target: &str, seen: &mut HashSet<String>) -> bool {
    fn names(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Var(n) => out.push(n.clone()),
            ExprKind::Unary(_, a) => names(a, out),
            ExprKind::Binary(_, a, b) => {
                names(a, out);
                names(b, out);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| names(&a.value, out)),
            _ => {}
        }
    }
    if !seen.insert(from.to_string()) {
        return false;
    }
    let Some(value) = constants.get(from) else { return false };
    let mut read = Vec::new();
    names(value, &mut read);
    read.iter().any(|n| n == target || reaches(constants, n, target, seen))
}

/// Compile `entry` of Julia source for these argument types (one per leading
/// parameter; the rest take their defaults).
pub fn compile(src: &str, entry: &str, args: Vec<Ty>) -> VrResult<Module> {
    let mut jp = program(src)?;
    if let Some(e) = jp.broken.get(entry) {
        return Err(e.clone());
    }
    jp.program.compile(&rules::vrir_name(entry), entry, args.into_iter().map(|t| Some(crate::frontend::types::AnyTy::Value(t))).collect())
}

/// The VRIR name of the function compiled for Julia's `entry` (what `backend::execute`
/// and the C API look up).
pub fn entry_name(entry: &str) -> String {
    rules::vrir_name(entry)
}

fn elem_of(dtype: &str) -> VrResult<ScalarType> {
    Ok(match dtype {
        "f64" | "Float64" => FLOAT,
        "i64" | "Int64" | "Int" => INT,
        "bool" | "Bool" => BOOL,
        "c128" | "ComplexF64" => COMPLEX,
        other => {
            return Err(VrError::new(
                ErrorKind::InvalidArgument,
                format!("dtype `{other}` has no compiled Julia type (f64 Float64, i64 Int64, bool Bool, c128 ComplexF64)"),
            ))
        }
    })
}

/// The element type of the leaves of a JSON array (Int64 when every number is an
/// integer, as Julia's `[1, 2]`).
fn leaf_elem(j: &Json) -> ScalarType {
    match j {
        Json::Array(items) => items.iter().map(leaf_elem).fold(BOOL, ops::promote),
        Json::Number(n) if n.is_i64() => INT,
        Json::Bool(_) => BOOL,
        Json::Object(m) if m.contains_key("re") => COMPLEX,
        _ => FLOAT,
    }
}

fn rank_of(mut d: &Json) -> u32 {
    let mut rank = 0;
    while let Json::Array(items) = d {
        rank += 1;
        match items.first() {
            Some(x) => d = x,
            None => break,
        }
    }
    rank
}

/// The Julia type of a JSON argument: `2` is an Int64 and `2.0` a Float64 (as Julia
/// reads them), `true` a Bool, `{"re","im"}` a ComplexF64, `{"dtype","data"}` a typed
/// scalar and with `"shape"` an array; nested lists are arrays of their numbers' type.
pub fn json_arg_type(j: &Json) -> VrResult<Ty> {
    match j {
        Json::Number(n) if n.is_i64() => Ok(Ty::scalar(INT)),
        Json::Number(n) if n.is_u64() => Err(VrError::new(ErrorKind::InvalidArgument, format!("argument {n} is beyond Int64"))),
        Json::Number(_) => Ok(Ty::scalar(FLOAT)),
        Json::String(s) if matches!(s.as_str(), "nan" | "inf" | "-inf") => Ok(Ty::scalar(FLOAT)),
        Json::Bool(_) => Ok(Ty::scalar(BOOL)),
        Json::Object(m) if m.contains_key("re") => Ok(Ty::scalar(COMPLEX)),
        Json::Object(m) if m.contains_key("data") => {
            let elem = match m.get("dtype").and_then(|d| d.as_str()) {
                Some(d) => elem_of(d)?,
                None => leaf_elem(&m["data"]),
            };
            match m.get("shape") {
                Some(Json::Array(s)) if !s.is_empty() => Ok(Ty::array(elem, s.len() as u32)),
                Some(Json::Array(_)) | None if !m["data"].is_array() => Ok(Ty::scalar(elem)),
                _ => Ok(Ty::array(elem, rank_of(&m["data"]).max(1))),
            }
        }
        Json::Array(_) => Ok(Ty::array(leaf_elem(j), rank_of(j))),
        other => Err(VrError::new(ErrorKind::InvalidArgument, format!("argument {other} has no Julia type"))),
    }
}

/// Compile `entry` of Julia source for JSON arguments (`vr run FILE.jl F --args
/// [...]`): the module and the argument values.
pub fn compile_for_json(src: &str, entry: &str, args: &[Json]) -> VrResult<(Module, Vec<Value>)> {
    let types = args.iter().map(json_arg_type).collect::<VrResult<Vec<Ty>>>()?;
    let m = compile(src, entry, types.clone())?;
    let values = args
        .iter()
        .zip(&types)
        .map(|(j, t)| {
            let j = match j {
                Json::Object(o) if t.rank == 0 && o.contains_key("data") => &o["data"],
                _ => j,
            };
            Value::from_json(j, &t.vrir(crate::vrir::Layout::Col))
        })
        .collect::<VrResult<Vec<Value>>>()?;
    Ok((m, values))
}

/// A run-time error in Julia's terms: the front end's own checks with Julia's message,
/// VRIR's errors as the exception Julia raises (`BoundsError`, `DivideError`,
/// `DimensionMismatch`, `InexactError`, `ArgumentError`), function and variable names
/// as the source spells them.
pub fn explain_error(e: VrError) -> VrError {
    let mut e = super::lower::explain_error(&rules::RULES, e);
    let variable = e.variable.as_deref().map(rules::julia_name);
    e.function = e.function.as_deref().map(rules::julia_name);
    e.variable = variable.clone();
    let m = e.message.clone();
    let prefixed = |p: &str| if m.starts_with(p) { m.clone() } else { format!("{p}: {m}") };
    e.message = match e.kind {
        ErrorKind::OutOfBounds => match (&variable, e.index, e.bound) {
            (Some(v), Some(i), Some(b)) => {
                let dim = e.dim.map_or(String::new(), |d| format!(" in dimension {}", d + 1));
                format!("BoundsError: attempt to access `{v}` at index [{i}]{dim}, whose extent is {b}")
            }
            _ => prefixed("BoundsError"),
        },
        ErrorKind::DivisionByZero => "DivideError: integer division error".into(),
        ErrorKind::ShapeMismatch => prefixed("DimensionMismatch"),
        ErrorKind::Runtime if m.contains("invalid cast") => prefixed("InexactError"),
        ErrorKind::Runtime if m.contains("empty reduction") => "ArgumentError: reducing over an empty collection is not allowed".into(),
        ErrorKind::Runtime if m.contains("zero step") => "ArgumentError: step cannot be zero".into(),
        ErrorKind::Runtime if m.contains("negative dimension") => "ArgumentError: invalid Array dimensions".into(),
        ErrorKind::Runtime if m.contains("negative integer exponent") || m.contains("negative exponent") => prefixed("DomainError"),
        _ => m,
    };
    e
}
