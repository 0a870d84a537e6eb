//! The R front end: R source (files of functions, or one deparsed function) to VRIR.
//! `lexer` and `parser` read R into the shared HIR; `rules` is R's rule table for the
//! shared engine and `builtins` maps R's library onto VRIR (`random`: R's random number
//! functions, drawing from R's own stream). See docs/frontend-r.md.

pub mod arith;
pub mod bounds;
pub mod builtins;
pub mod formals;
pub mod functionals;
pub mod deparse;
pub mod lexer;
pub mod library;
pub mod parser;
pub mod random;
pub mod recycle;
pub mod rules;
pub mod sequences;
pub mod subscripts;

use super::hir::{Expr, ExprKind, UnOp};
use super::infer::Program;
use super::rules::Language;
use super::signature::Signature;
use super::types::{AnyTy, Field, ListTy, Ty};
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
    let mut outlined = Vec::new();
    for e in parser::parse_program(src)? {
        if let Some(o) = section_directive(&e) {
            outlined.push(o);
            continue;
        }
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
    // Sections are cut from the lifted functions, as `sections::analyze` sees them
    // (the R package's outliner asks for them from this same program).
    for (name, of, number, fresh) in outlined {
        let def = p.defs.get(&of).and_then(|def| super::sections::outline(&p, &of, def, number, rules::RESULTS_MARKER, fresh)).ok_or_else(|| {
            VrError::new(ErrorKind::InvalidArgument, format!("`{name}`: `{of}` has no section {number}"))
        })?;
        p.closures.sections.insert(name.clone(), of);
        p.defs.insert(name, def);
    }
    Ok(p)
}

/// The host's request for a section as a function of its own (the R adapter appends
/// `name <- .vr_section_of("f", k)` to the source, `.vr_section_of("f", k, TRUE)` for the
/// variant without the inputs it only keeps; `frontend::sections`): the name, the
/// function, the section's number and whether it is that variant.
fn section_directive(e: &Expr) -> Option<(String, String, usize, bool)> {
    let ExprKind::Assign { target, value } = &e.kind else { return None };
    let (ExprKind::Var(name), ExprKind::Call { func, args }) = (&target.kind, &value.kind) else { return None };
    if func != SECTION_DIRECTIVE {
        return None;
    }
    let (of, number, fresh) = match args.as_slice() {
        [a, b] => (&a.value, &b.value, false),
        [a, b, c] => match c.value.kind {
            ExprKind::Bool(fresh) => (&a.value, &b.value, fresh),
            _ => return None,
        },
        _ => return None,
    };
    let number = match number.kind {
        ExprKind::Int(k) if k > 0 => k as usize,
        ExprKind::Double(k) if k >= 1.0 && k.fract() == 0.0 => k as usize,
        _ => return None,
    };
    match &of.kind {
        ExprKind::Str(of) => Some((name.clone(), of.clone(), number, fresh)),
        _ => None,
    }
}

/// See `section_directive`.
pub const SECTION_DIRECTIVE: &str = ".vr_section_of";

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
    compile_sig(src, entry, &Signature::of_values(args))
}

/// Compile `entry` of R source for a signature: arguments that may be lists (and data
/// frames), and the globals it reads from its environment (hidden parameters after the
/// arguments' elements; see `frontend::lists`).
pub fn compile_sig(src: &str, entry: &str, sig: &Signature) -> VrResult<Module> {
    Ok(compile_entry(src, entry, sig)?.module)
}

/// A compiled R function: the module, and the list the entry returns when it returns
/// one (`list(a = ..., b = ...)`: its results are the list's elements, in
/// `ListTy::leaves` order; the host rebuilds the list from them and these names).
pub struct Compiled {
    pub module: Module,
    pub result_list: Option<ListTy>,
}

/// `compile_sig`, with what the entry returns.
pub fn compile_entry(src: &str, entry: &str, sig: &Signature) -> VrResult<Compiled> {
    for (k, t) in sig.args.iter().enumerate() {
        check_r_type(t, &|| format!("argument {} of `{entry}`", k + 1))?;
    }
    for (g, t) in &sig.globals {
        check_r_type(t, &|| format!("global `{g}` of `{entry}`"))?;
    }
    let mut p = program(src)?;
    p.globals = sig.globals.clone();
    let module = p.compile(entry, entry, sig.args.iter().cloned().map(Some).collect())?;
    random::check_placement(&module)?;
    Ok(Compiled { module, result_list: p.result_list(entry) })
}

/// Is every scalar and array in `t` of an R type (double, integer, logical, complex; at
/// most 3 dimensions)?
fn check_r_type(t: &AnyTy, what: &dyn Fn() -> String) -> VrResult<()> {
    let ok = |v: &Ty| [rules::DOUBLE, rules::INTEGER, rules::LOGICAL, rules::COMPLEX].contains(&v.elem) && v.rank <= 3;
    let leaves = match t {
        AnyTy::Value(v) => vec![*v],
        AnyTy::List(l) => l.leaves().into_iter().map(|(_, v)| v).collect(),
        AnyTy::Opaque(_) => vec![],
    };
    match leaves.iter().find(|v| !ok(v)) {
        None => Ok(()),
        Some(v) => Err(VrError::new(
            ErrorKind::InvalidArgument,
            format!(
                "{}: type {} has no R counterpart (R has f64 double, i32 integer, bool logical, c128 complex; scalars and arrays up to rank 3)",
                what(),
                v.vrir(rules::RULES.layout())
            ),
        )),
    }
}

/// The R type of a JSON argument: `json_value_type`, or a list `{"list": [["name",
/// value], [null, value], ...]}` (`"frame": true`: a data frame) whose elements are such
/// arguments, or `{"opaque": "what"}`, a value compiled code cannot read (a character
/// vector, say).
pub fn json_arg_type(j: &Json) -> VrResult<AnyTy> {
    match j {
        Json::Object(m) if m.contains_key("list") => {
            let frame = m.get("frame").and_then(|f| f.as_bool()).unwrap_or(false);
            let Some(Json::Array(items)) = m.get("list") else {
                return Err(VrError::new(ErrorKind::InvalidArgument, format!("`list` must be an array of [name, value], not {}", m["list"])));
            };
            let mut fields = Vec::new();
            for item in items {
                let Some([name, value]) = item.as_array().map(|a| a.as_slice()) else {
                    return Err(VrError::new(ErrorKind::InvalidArgument, format!("a list element is [name, value], not {item}")));
                };
                fields.push(Field { name: name.as_str().map(|s| s.to_string()), ty: json_arg_type(value)? });
            }
            Ok(AnyTy::List(ListTy { frame, fields }))
        }
        Json::Object(m) if m.contains_key("opaque") => Ok(AnyTy::Opaque(m["opaque"].as_str().unwrap_or("a value compiled code cannot read").to_string())),
        _ => Ok(AnyTy::Value(json_value_type(j)?)),
    }
}

/// The R type of a JSON scalar or array: a bare number is a double, a boolean a
/// logical, `{"re","im"}` a complex; `{"dtype","data"}` a typed scalar and with `"shape"`
/// an array; nested lists are double arrays.
pub fn json_value_type(j: &Json) -> VrResult<Ty> {
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
/// A list argument's values are its scalar and array elements in order.
pub fn compile_for_json(src: &str, entry: &str, args: &[Json]) -> VrResult<(Module, Vec<Value>)> {
    let (c, values) = compile_entry_for_json(src, entry, args)?;
    Ok((c.module, values))
}

/// `compile_for_json`, with what the entry returns.
pub fn compile_entry_for_json(src: &str, entry: &str, args: &[Json]) -> VrResult<(Compiled, Vec<Value>)> {
    let types = args.iter().map(json_arg_type).collect::<VrResult<Vec<AnyTy>>>()?;
    let c = compile_entry(src, entry, &Signature { args: types.clone(), globals: Vec::new() })?;
    let mut values = Vec::new();
    for (j, t) in args.iter().zip(&types) {
        json_values(j, t, &mut values)?;
    }
    Ok((c, values))
}

/// Results as JSON: one item per result, or, for a function returning a list, the list
/// `{"list": [["name", value], [null, value], ...]}` rebuilt from them.
pub fn results_to_json(results: &[Value], list: Option<&ListTy>) -> Json {
    fn build(l: &ListTy, it: &mut dyn Iterator<Item = &Value>) -> Json {
        let items: Vec<Json> = l
            .fields
            .iter()
            .map(|f| {
                let v = match &f.ty {
                    AnyTy::Value(_) => it.next().map_or(Json::Null, |v| v.to_json()),
                    AnyTy::List(sub) => build(sub, it),
                    AnyTy::Opaque(_) => Json::Null,
                };
                serde_json::json!([f.name, v])
            })
            .collect();
        serde_json::json!({ "list": items })
    }
    match list {
        Some(l) => build(l, &mut results.iter()),
        None => Json::Array(results.iter().map(|v| v.to_json()).collect()),
    }
}

/// The values a JSON argument of type `t` passes (a list: its elements', in order).
pub fn json_values(j: &Json, t: &AnyTy, out: &mut Vec<Value>) -> VrResult<()> {
    match t {
        AnyTy::Value(t) => {
            let j = match j {
                // A typed scalar `{"dtype": "i32", "data": 5}`.
                Json::Object(o) if t.rank == 0 && o.contains_key("data") => &o["data"],
                _ => j,
            };
            out.push(Value::from_json(j, &t.vrir(rules::RULES.layout()))?);
        }
        AnyTy::List(l) => {
            let items = j["list"].as_array().expect("json_arg_type checked it");
            for (item, f) in items.iter().zip(&l.fields) {
                json_values(&item[1], &f.ty, out)?;
            }
        }
        AnyTy::Opaque(_) => {}
    }
    Ok(())
}

/// Turn a run-time error raised by an R check into R's message, naming the R function
/// and line; other errors pass through.
pub fn explain_error(e: VrError) -> VrError {
    empty_extreme(bounds::explain(super::lower::explain_error(&rules::RULES, e)))
}

/// `max`, `min` or `range` of an empty vector: R answers (-Inf, Inf, with a warning),
/// so VRIR's `empty reduction` error becomes kind `unsupported` and the call runs in R.
/// It was a plain run-time error, an error where R has a value (random R programs,
/// issue 21).
fn empty_extreme(mut e: VrError) -> VrError {
    if e.kind == ErrorKind::Runtime && (e.message.starts_with("empty reduction: amax") || e.message.starts_with("empty reduction: amin")) {
        e.kind = ErrorKind::Unsupported;
        e.message = "max or min of an empty vector: R's result is -Inf or Inf (with a warning), which compiled code leaves to R".into();
    }
    e
}
