//! The MATLAB front end: MATLAB/Octave function files (`.m`) to VRIR. `lexer` and
//! `parser` read the file into MATLAB's syntax tree (`ast`); `resolve` decides what
//! MATLAB decides by name (variables, calls, `end`, `nargout`) and produces the shared
//! HIR; `rules` is MATLAB's rule table for the shared engine, with `ops` (operators and
//! classes), `index` (indexing and growth), `builtins` (the library) and `helpers`
//! (scalar VRIR functions that give Octave's rounding). See docs/frontend-matlab.md.

pub mod ast;
pub mod builtins;
pub mod helpers;
pub mod index;
pub mod lexer;
pub mod ops;
pub mod parser;
pub mod resolve;
pub mod rules;

use super::infer::Program;
use super::types::Ty;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::{Module, ScalarType};
use serde_json::Value as Json;

/// Every function of a MATLAB function file, one program function per number of
/// outputs a call can ask for (`resolve`).
pub fn program(src: &str) -> VrResult<Program> {
    program_with(src, &rules::RULES)
}

fn program_with(src: &str, rules: &'static rules::Matlab) -> VrResult<Program> {
    let funcs = parser::parse_file(src)?;
    let mut p = Program::new(rules);
    p.defs = resolve::resolve(&funcs);
    Ok(p)
}

/// The number of outputs function `name` of the file declares (None: no such function).
pub fn outputs_of(src: &str, name: &str) -> VrResult<Option<usize>> {
    Ok(parser::parse_file(src)?.iter().find(|f| f.name == name).map(|f| f.outputs.len()))
}

/// Compile function `entry` of a MATLAB file for these argument types (one per leading
/// parameter given; `nargin` is their number) and every output it declares. The VRIR
/// function keeps the name `entry`.
pub fn compile(src: &str, entry: &str, args: Vec<Ty>) -> VrResult<Module> {
    compile_outputs(src, entry, args, None)
}

/// `compile` for `nargout` outputs (None: all it declares). The VRIR function is
/// `entry` for all outputs, `entry.nargoutN` for fewer.
pub fn compile_outputs(src: &str, entry: &str, args: Vec<Ty>, nargout: Option<usize>) -> VrResult<Module> {
    compile_classes(src, entry, args, nargout).map(|(m, _)| m)
}

/// Does the source or an argument use an integer class held in a wider element type?
fn uses_classes(src: &str, args: &[Ty]) -> bool {
    args.iter().any(|t| t.class.is_some()) || crate::frontend::types::IntClass::ALL.iter().any(|c| src.contains(c.name()))
}

/// `compile_outputs`, with each result's MATLAB class (`class(r)`: "int8", "double",
/// "logical", "complex double" for a complex result, ...): how a host hands int8,
/// int16, uint8, uint16 and uint32 results back (their values come in their storage
/// types, i32 and i64).
pub fn compile_classes(src: &str, entry: &str, args: Vec<Ty>, nargout: Option<usize>) -> VrResult<(Module, Vec<String>)> {
    let mut p = program(src)?;
    let k = outputs_of(src, entry)?.ok_or_else(|| {
        let mut names: Vec<String> = p.defs.keys().filter(|n| !n.contains('.')).cloned().collect();
        names.sort();
        VrError::new(ErrorKind::InvalidArgument, format!("no function `{entry}` in the file (it defines: {})", names.join(", ")))
    })?;
    // Every MATLAB array has at least two dimensions; the rules assume it (a 1-d array
    // gave a module the verifier rejects: `size(x, 2)` of a vector).
    if let Some((i, t)) = args.iter().enumerate().find(|(_, t)| t.rank == 1) {
        return Err(VrError::new(
            ErrorKind::InvalidArgument,
            format!("argument {} of `{entry}` is a {t}: MATLAB arrays have at least two dimensions", i + 1),
        ));
    }
    let n = nargout.unwrap_or(k);
    if n > k {
        return Err(VrError::new(ErrorKind::InvalidArgument, format!("`{entry}` has {k} output(s), {n} requested")));
    }
    let name = resolve::variant(entry, n, k);
    let classes = uses_classes(src, &args);
    let int64 = args.iter().any(|t| t.elem == rules::INT64 && t.class.is_none()) || src.contains("int64");
    if int64 || classes {
        p = program_with(src, rules::rules_for(true, int64, classes))?;
    }
    let types: Vec<_> = args.into_iter().map(|t| Some(crate::frontend::types::AnyTy::Value(t))).collect();
    let module = match p.compile(&name, &name, types.clone()) {
        // `for c = M` makes `c` a column; a function that uses it as a scalar compiles
        // with loops over the elements of rows instead (`rules::ROW_LOOP_RULES`).
        Err(_) if resolve::has_array_loops(&parser::parse_file(src)?) => {
            p = program_with(src, rules::rules_for(false, int64, classes))?;
            p.compile(&name, &name, types)?
        }
        done => done?,
    };
    let results = p.result_types(&name).unwrap_or_default();
    let mut names = Vec::with_capacity(results.len());
    for (k, t) in results.iter().enumerate() {
        if classes && t.class.is_none() && matches!(t.elem, rules::INT32 | rules::INT64) {
            // The guard of `rules::Matlab::classes` refuses such values where they are
            // used; a result is the one place left to check.
            return Err(VrError::new(
                ErrorKind::Unsupported,
                format!("output {} of `{entry}` is an {} value in a function with int8, int16, uint8, uint16 or uint32 values (not compiled together)", k + 1, ops::class_name(t.elem)),
            ));
        }
        names.push(match t.class {
            Some(c) => c.name().to_string(),
            None => ops::class_name(t.elem).to_string(),
        });
    }
    Ok((module, names))
}

/// The MATLAB type of a JSON argument (`vr run f.m F --args [...]`): a number is a
/// double scalar, `true`/`false` a logical, `{"re","im"}` a complex; a flat list is a
/// row vector, nested lists a matrix (outer list = rows); `{"dtype","shape","data"}` an
/// array of `f64` (double), `i32` (int32), `bool` (logical) or `c128` (complex).
pub fn json_arg_type(j: &Json) -> VrResult<Ty> {
    let bad = |m: String| VrError::new(ErrorKind::InvalidArgument, m);
    let elem_of = |d: &str| -> VrResult<ScalarType> {
        match d {
            "f64" => Ok(rules::DOUBLE),
            "i32" => Ok(rules::INT32),
            "i64" => Ok(rules::INT64),
            "bool" => Ok(rules::LOGICAL),
            "c128" => Ok(rules::COMPLEX),
            other => Err(bad(format!("dtype `{other}` has no MATLAB class here (f64 double, i32 int32, i64 int64, bool logical, c128 complex)"))),
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
                Some(Json::Array(s)) if !s.is_empty() => Ok(Ty::array(elem, (s.len() as u32).max(2))),
                _ if !m["data"].is_array() => Ok(Ty::scalar(elem)),
                _ => Ok(Ty::array(elem, nesting(&m["data"]).max(2))),
            }
        }
        Json::Array(_) => Ok(Ty::array(rules::DOUBLE, nesting(j).max(2))),
        other => Err(bad(format!("argument {other} has no MATLAB type"))),
    }
}

fn nesting(j: &Json) -> u32 {
    let mut rank = 0;
    let mut d = j;
    while let Json::Array(items) = d {
        rank += 1;
        match items.first() {
            Some(x) => d = x,
            None => break,
        }
    }
    rank
}

/// A JSON argument as the value of type `t`: a flat list (or a 1-d shape) is a row.
fn json_value(j: &Json, t: &Ty) -> VrResult<Value> {
    let layout = crate::vrir::Layout::Col;
    let vt = t.vrir(layout);
    match j {
        Json::Object(o) if o.contains_key("data") => {
            if t.rank == 0 {
                return Value::from_json(&o["data"], &vt);
            }
            let mut o = o.clone();
            if let Some(Json::Array(s)) = o.get("shape").cloned() {
                if s.len() == 1 {
                    o.insert("shape".into(), Json::Array(vec![Json::from(1), s[0].clone()]));
                    let data = o["data"].clone();
                    o.insert("data".into(), Json::Array(vec![data]));
                }
            } else if nesting(&o["data"]) == 1 {
                let data = o["data"].clone();
                o.insert("data".into(), Json::Array(vec![data]));
            }
            Value::from_json(&Json::Object(o), &vt)
        }
        Json::Array(_) if nesting(j) == 1 => Value::from_json(&Json::Array(vec![j.clone()]), &vt),
        _ => Value::from_json(j, &vt),
    }
}

/// The values of JSON arguments, typed as `json_arg_type` says.
pub fn json_values(args: &[Json]) -> VrResult<Vec<Value>> {
    args.iter().map(|j| json_value(j, &json_arg_type(j)?)).collect()
}

/// Compile `entry` of a MATLAB file for JSON arguments: the module and the values.
pub fn compile_for_json(src: &str, entry: &str, args: &[Json]) -> VrResult<(Module, Vec<Value>)> {
    let types = args.iter().map(json_arg_type).collect::<VrResult<Vec<Ty>>>()?;
    let m = compile(src, entry, types)?;
    Ok((m, json_values(args)?))
}

/// A run-time error raised by a MATLAB check in MATLAB's words, naming the function and
/// line; `unsupported` where Octave has an answer (its adapter then runs the function in
/// Octave). Other errors pass through. `explain_error_in` knows the module too.
pub fn explain_error(e: VrError) -> VrError {
    super::lower::explain_error(&rules::RULES, e)
}

/// `explain_error` for an error of module `m`: an index past the end of an array in a
/// statement that stores into that array is MATLAB's growth by assignment, which
/// compiled code does only for the arrays `resolve` finds growing (those that start
/// empty or are written at `end + k`): for any other array it is `unsupported`, and
/// Octave runs the function and grows it. (A read past the end in the same statement
/// then runs in Octave too, which raises its own error.)
pub fn explain_error_in(m: &Module, e: VrError) -> VrError {
    let e = explain_error(e);
    if e.kind != ErrorKind::OutOfBounds {
        return e;
    }
    let (Some(f), Some(var), Some(line), Some(index), Some(bound)) = (e.function.as_deref(), e.variable.as_deref(), e.line, e.index, e.bound) else { return e };
    if index <= bound || !stores_into(m, f, var, line) {
        return e;
    }
    let mut out = VrError::new(
        ErrorKind::Unsupported,
        format!("an assignment past the end of `{var}` (index {index}, extent {bound}): MATLAB grows the array; compiled code grows only arrays that start empty or are written at `end + k`, so Octave runs the function"),
    )
    .with_function(f)
    .with_line(Some(line))
    .with_variable(var);
    out.index = Some(index);
    out.bound = Some(bound);
    out.dim = e.dim;
    out
}

/// Does function `f` of `m` store into array `var` at source line `line`?
fn stores_into(m: &Module, f: &str, var: &str, line: u32) -> bool {
    fn walk(stmts: &[crate::vrir::Stmt], var: &str, line: u32) -> bool {
        use crate::vrir::{LValue, StmtKind};
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Assign { targets, .. } => s.line == Some(line) && targets.iter().any(|t| matches!(t, LValue::Index { array, .. } if array == var)),
            StmtKind::Block(b) => walk(&b.stmts, var, line),
            StmtKind::If { then, els, .. } => walk(&then.stmts, var, line) || els.as_ref().is_some_and(|b| walk(&b.stmts, var, line)),
            StmtKind::For { body, .. } | StmtKind::Parfor { body, .. } | StmtKind::While { body, .. } => walk(&body.stmts, var, line),
            _ => false,
        })
    }
    m.function(f).is_some_and(|func| walk(&func.body, var, line))
}
