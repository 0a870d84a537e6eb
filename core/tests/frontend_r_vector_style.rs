//! R's vector style compiled against R itself (issue 18 part 2): chains of vector
//! operations inside loops and out (tests/frontend_r/vector_style.R), whose recycling
//! guards `recycle-version` (core/src/opt/recycle.rs) removes or versions so that
//! `fusion` can fuse the chains. Every case runs in R (Rscript, during this test,
//! `options(warn = 2)`) and compiled on every backend this build has, and on the
//! interpreter running the optimized module: equal lengths take the versioned path, a
//! length-1 operand and unequal lengths (which R recycles, compiled code hands to R)
//! the path as written. The outcome must be R's value (bit for bit unless a case states
//! a tolerance), an error where R errs, or `unsupported` where R recycles.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::opt::{optimize, with_options, OptOptions};
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::{ErrorKind, VrError};

const SOURCE: &str = include_str!("frontend_r/vector_style.R");

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Equal to R's result (exact for floats).
    Same,
    /// R recycles (or warns) where compiled code does not: a run-time error of kind
    /// `unsupported`, after which the R adapter runs the function in R.
    Fallback,
    /// R gives NA (an error under compiled code); any error.
    Error,
}
use Expect::*;

struct Case {
    func: &'static str,
    args: Json,
    expect: Expect,
}

fn i32s(v: i32) -> Json {
    json!({"dtype": "i32", "data": v})
}

fn ivec(v: &[i32]) -> Json {
    json!({"dtype": "i32", "shape": [v.len()], "data": v})
}

fn empty_f64() -> Json {
    json!({"dtype": "f64", "shape": [0], "data": []})
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json, expect| Case { func, args, expect };
    let a32 = json!({"dtype": "f64", "shape": [3, 2], "data": [[1.0, 4.0], [2.0, -5.0], [3.0, 6.5]]});
    let b23 = json!({"dtype": "f64", "shape": [2, 3], "data": [[0.5, 1.0, -2.0], [3.0, 0.25, 1.5]]});
    let x4 = json!([1.0, 2.0, 3.5, 7.0]);
    vec![
        c("nbody_vec", json!([x4.clone(), [1.0, 1.5, 2.0, 0.5], 0.01]), Same),
        c("nbody_vec", json!([x4.clone(), [2.0], 0.01]), Same),
        c("nbody_vec", json!([[3.0], [2.0], 0.01]), Same),
        c("nbody_vec", json!([x4.clone(), [1.0, 2.0, 3.0], 0.01]), Fallback),
        c("nbody_vec", json!([x4.clone(), [1.0, 2.0], 0.01]), Fallback),
        c("chain3", json!([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [4.0, 5.0, 6.0]]), Same),
        c("chain3", json!([[1.0, 2.0, 3.0], [0.5], [4.0, 5.0, 6.0]]), Same),
        c("chain3", json!([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [4.0]]), Same),
        c("chain3", json!([[2.0], [0.5], [4.0]]), Same),
        c("chain3", json!([empty_f64(), empty_f64(), empty_f64()]), Same),
        c("chain3", json!([[1.0, 2.0, 3.0], [0.5, -1.0], [4.0, 5.0, 6.0]]), Fallback),
        c("chain3", json!([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0], [4.0, 5.0, 6.0, 7.0]]), Fallback),
        c("reassigned", json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), Same),
        c("reassigned", json!([[1.0, 2.0, 3.0], [4.0]]), Same),
        c("reassigned", json!([[1.0], [4.0, 5.0]]), Same),
        c("reassigned", json!([[1.0, 2.0, 3.0], [4.0, 5.0]]), Fallback),
        c("slices", json!([[0.5, 1.5, -0.25, 2.0, 1.0]]), Same),
        c("slices", json!([[0.5, 1.5, -0.25]]), Same),
        c("slices", json!([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]]), Same),
        c("growing", json!([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 4.0]), Same),
        c("growing", json!([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 1.0]), Same),
        c("updates", json!([[1.0, 2.0, 3.0], [0.5, 0.25, -1.0], 3.0]), Same),
        c("updates", json!([[1.0, 2.0, 3.0], [0.5], 3.0]), Same),
        c("updates", json!([[1.0], [0.5, 0.25], 2.0]), Same),
        c("updates", json!([[1.0, 2.0, 3.0], [0.5, 0.25], 2.0]), Fallback),
        c("int_chain", json!([ivec(&[1, 2, 3]), ivec(&[4, -5, 6])]), Same),
        c("int_chain", json!([ivec(&[1, 2, 3]), ivec(&[7])]), Same),
        c("int_chain", json!([ivec(&[100_000, 2, 3]), ivec(&[4, 5, 6])]), Error),
        c("int_chain", json!([ivec(&[1, 2, 3]), ivec(&[4, 5])]), Fallback),
        c("cnd_vec", json!([[-2.0, -0.5, 0.0, 0.3, 1.7]]), Same),
        c("cnd_vec", json!([[0.75]]), Same),
        c("matmul_vec", json!([a32, b23]), Same),
        c("updates", json!([empty_f64(), empty_f64(), 2.0]), Same),
        c("int_chain", json!([ivec(&[]), ivec(&[])]), Same),
        c("int_chain", json!([i32s(3), ivec(&[1, 2])]), Same),
        c("kept", json!([[1.0, 2.0, 3.0], 3.0]), Same),
        c("kept", json!([[1.0, 2.0, 3.0], 1.0]), Same),
        c("scalar_operand", json!([[1.0, 2.0, 3.0], 3.0]), Same),
        c("scalar_operand", json!([[1.0, 2.0, 3.0], 4.0]), Fallback),
        c("arc_vec", json!([[0.1, -1.2, 0.7], [0.3, 0.4, -0.9], [0.5, 1.1, 0.2], [0.7, -0.8, 1.4]]), Same),
        c("arc_vec", json!([[0.1, -1.2, 0.7], [0.3], [0.5, 1.1, 0.2], [0.7]]), Same),
        c("arc_vec", json!([[0.1, -1.2, 0.7], [0.3, 0.4], [0.5, 1.1, 0.2], [0.7, 0.1]]), Fallback),
    ]
}

/// An R expression for a JSON argument (arrays: column-major data with `dim`).
fn r_literal(j: &Json) -> String {
    fn num(v: &Json, dtype: &str) -> String {
        match (v, dtype) {
            (Json::Bool(b), _) => if *b { "TRUE" } else { "FALSE" }.into(),
            (Json::String(s), _) => match s.as_str() {
                "nan" => "NaN".into(),
                "inf" => "Inf".into(),
                _ => "-Inf".into(),
            },
            (Json::Object(o), _) => format!("complex(real = {}, imaginary = {})", num(&o["re"], "f64"), num(&o["im"], "f64")),
            (Json::Number(n), "i32") => {
                let v = n.as_i64().unwrap();
                if v == i32::MIN as i64 {
                    "NA_integer_".into()
                } else {
                    format!("{v}L")
                }
            }
            (Json::Number(n), _) => format!("{:?}", n.as_f64().unwrap()),
            other => panic!("no R literal for {other:?}"),
        }
    }
    fn flatten(j: &Json, out: &mut Vec<Json>, dims: &mut Vec<usize>, depth: usize) {
        match j {
            Json::Array(items) => {
                if dims.len() <= depth {
                    dims.push(items.len());
                }
                for i in items {
                    flatten(i, out, dims, depth + 1);
                }
            }
            other => out.push(other.clone()),
        }
    }
    let (data, dtype, shape) = match j {
        Json::Object(o) if o.contains_key("data") => (&o["data"], o["dtype"].as_str().unwrap_or("f64"), o.get("shape")),
        Json::Array(_) => (j, "f64", None),
        other => return num(other, "f64"),
    };
    if !data.is_array() {
        return num(data, dtype);
    }
    let mut flat = Vec::new();
    let mut dims = Vec::new();
    flatten(data, &mut flat, &mut dims, 0);
    if let Some(Json::Array(s)) = shape {
        dims = s.iter().map(|d| d.as_u64().unwrap() as usize).collect();
    }
    if flat.is_empty() {
        return match dtype {
            "i32" => "integer(0)".into(),
            "bool" => "logical(0)".into(),
            _ => "numeric(0)".into(),
        };
    }
    // Row-major (first index outermost) to column-major.
    let n = flat.len();
    let mut col = Vec::with_capacity(n);
    for k in 0..n {
        let mut rem = k;
        let mut idx = vec![0; dims.len()];
        for (d, e) in dims.iter().enumerate() {
            idx[d] = rem % e;
            rem /= e;
        }
        let mut pos = 0;
        for (d, e) in dims.iter().enumerate() {
            pos = pos * e + idx[d];
        }
        col.push(num(&flat[pos], dtype));
    }
    let items = col.join(", ");
    if dims.len() == 1 {
        format!("c({items})")
    } else {
        format!("array(c({items}), dim = c({}))", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
    }
}

/// A result as R's tests print it: type, dims, column-major values.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Value { ty: String, dims: Vec<usize>, values: Vec<(f64, f64)> },
    Null,
    Error(String),
}

/// R's results for every case.
fn run_r(cases: &[Case]) -> Vec<Outcome> {
    let mut script = String::from("prange <- function(n) seq_len(n)\ngpu <- function(expr) invisible(expr)\noptions(warn = 2)\n");
    script.push_str(SOURCE);
    script.push_str(
        r#"
emit <- function(id, r) {
  if (is.null(r)) { cat("CASE", id, "NULL\n"); return(invisible()) }
  d <- if (is.null(dim(r))) length(r) else dim(r)
  v <- as.vector(r)
  g <- function(x) ifelse(is.na(x) & !is.nan(x), "NaN", sprintf("%.17g", x))
  vals <- if (is.complex(v)) paste(g(Re(v)), g(Im(v)), sep = ",")
          else if (is.logical(v)) ifelse(v, "1", "0") else g(as.double(v))
  cat("CASE", id, "OK", typeof(r), length(d), d, vals, "\n")
}
run <- function(id, thunk) {
  r <- tryCatch(thunk(), error = function(e) structure(list(conditionMessage(e)), class = "r_err"))
  if (inherits(r, "r_err")) cat("CASE", id, "ERROR", gsub("\n", " ", r[[1]]), "\n") else emit(id, r)
}
"#,
    );
    for (id, c) in cases.iter().enumerate() {
        let args: Vec<String> = c.args.as_array().unwrap().iter().map(r_literal).collect();
        script.push_str(&format!("run({id}, function() {}({}))\n", c.func, args.join(", ")));
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_r_vector_style_{}.R", std::process::id()));
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("Rscript").arg("--vanilla").arg(&path).output().expect("Rscript runs (R is part of the test setup)");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "Rscript failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let mut results: HashMap<usize, Outcome> = HashMap::new();
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        if w.next() != Some("CASE") {
            continue;
        }
        let id: usize = w.next().unwrap().parse().unwrap();
        let outcome = match w.next().unwrap() {
            "NULL" => Outcome::Null,
            "ERROR" => Outcome::Error(w.collect::<Vec<_>>().join(" ")),
            _ => {
                let ty = w.next().unwrap().to_string();
                let nd: usize = w.next().unwrap().parse().unwrap();
                let dims: Vec<usize> = (0..nd).map(|_| w.next().unwrap().parse().unwrap()).collect();
                let parse = |s: &str| -> f64 {
                    match s {
                        "NaN" | "NA" => f64::NAN,
                        "Inf" => f64::INFINITY,
                        "-Inf" => f64::NEG_INFINITY,
                        s => s.parse().unwrap(),
                    }
                };
                let values = w
                    .map(|s| match s.split_once(',') {
                        Some((a, b)) => (parse(a), parse(b)),
                        None => (parse(s), 0.0),
                    })
                    .collect();
                Outcome::Value { ty, dims, values }
            }
        };
        results.insert(id, outcome);
    }
    (0..cases.len()).map(|i| results.remove(&i).unwrap_or_else(|| panic!("R printed no result for case {i}:\n{stdout}"))).collect()
}

fn scalar_pair(s: &Scalar) -> (f64, f64) {
    match s {
        Scalar::C128(c) => (c.re, c.im),
        Scalar::C64(c) => (c.re as f64, c.im as f64),
        other => (other.as_f64().unwrap(), 0.0),
    }
}

fn type_name(s: velociraptor::vrir::ScalarType) -> &'static str {
    use velociraptor::vrir::ScalarType::*;
    match s {
        Bool => "logical",
        I32 | I64 => "integer",
        F32 | F64 => "double",
        C64 | C128 => "complex",
    }
}

fn ours(results: &[Value]) -> Outcome {
    match results {
        [] => Outcome::Null,
        [Value::Scalar(s)] => Outcome::Value { ty: type_name(s.ty()).into(), dims: vec![1], values: vec![scalar_pair(s)] },
        [Value::Array(a)] => {
            let n = a.len();
            let mut values = Vec::with_capacity(n);
            for k in 0..n {
                let mut rem = k;
                let idx: Vec<usize> = a
                    .dims
                    .iter()
                    .map(|e| {
                        let i = rem % e;
                        rem /= e;
                        i
                    })
                    .collect();
                values.push(scalar_pair(&a.get(&idx)));
            }
            Outcome::Value { ty: type_name(a.ty.elem).into(), dims: a.dims.clone(), values }
        }
        other => panic!("unexpected results {other:?}"),
    }
}

fn same_float(a: f64, b: f64, tol: Option<f64>) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    match tol {
        None => a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0),
        Some(t) => a == b || (a - b).abs() <= t * a.abs().max(b.abs()),
    }
}

fn agree(r: &Outcome, us: &Outcome, tol: Option<f64>) -> bool {
    match (r, us) {
        (Outcome::Null, Outcome::Null) => true,
        (Outcome::Value { ty: t1, dims: d1, values: v1 }, Outcome::Value { ty: t2, dims: d2, values: v2 }) => {
            t1 == t2 && d1 == d2 && v1.iter().zip(v2).all(|(a, b)| same_float(a.0, b.0, tol) && same_float(a.1, b.1, tol))
        }
        _ => false,
    }
}

/// What compiled code did: a value, or an error (explained in R's terms) and its kind.
fn compiled(module: &velociraptor::vrir::Module, b: Backend, func: &str, values: Vec<Value>) -> Result<Outcome, VrError> {
    match backend::execute(b, module, func, values) {
        Ok(v) => Ok(ours(&v)),
        Err(e) => Err(r::explain_error(e)),
    }
}


/// Where each case runs: every backend on the module as the front end made it (the
/// cpu backends optimize it first), and the interpreter on the optimized module.
fn configurations() -> Vec<(String, Backend, bool)> {
    let mut v: Vec<(String, Backend, bool)> = Backend::available().into_iter().map(|b| (b.to_string(), b, false)).collect();
    v.push(("interp (optimized)".into(), Backend::Interp, true));
    v
}

#[test]
fn vector_style_agrees_with_r() {
    let cases = cases();
    let expected = run_r(&cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<String, usize> = HashMap::new();
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!("case {id}: {}({})", c.func, c.args.as_array().unwrap().iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "));
        let (module, values) = match r::compile_for_json(SOURCE, c.func, c.args.as_array().unwrap()) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        for (name, b, optimized) in configurations() {
            let got = if optimized {
                with_options(OptOptions::all(), || compiled(&module, b, c.func, values.clone()))
            } else {
                compiled(&module, b, c.func, values.clone())
            };
            let ok = match (&got, c.expect, r_out) {
                (Err(e), Fallback, _) => e.kind == ErrorKind::Unsupported,
                (Err(_), Error, _) => true,
                (Ok(_), Same, Outcome::Error(_)) => false,
                (Ok(v), Same, _) => agree(r_out, v, None),
                _ => false,
            };
            if ok {
                *passed.entry(name).or_default() += 1;
            } else {
                failures.push(format!("{label} on {name}: expected {:?}; R gave {r_out:?}, compiled code gave {:?}", c.expect, got.map_err(|e| e.to_string())));
            }
        }
    }
    for (name, _, _) in configurations() {
        eprintln!("{name}: {} of {} cases as R", passed.get(&name).copied().unwrap_or(0), cases.len());
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// (guards removed, runs versioned, operations fused) on `func` compiled for `args`,
/// with every pass on or with `recycle-version` off.
fn counts(func: &str, args: Json, recycle: bool) -> (u64, u64, u64) {
    let (module, _) = r::compile_for_json(SOURCE, func, args.as_array().unwrap()).expect("compiles");
    let opts = if recycle { OptOptions::all() } else { OptOptions::parse("-recycle-version").expect("a pass name") };
    let (_, stats) = optimize(&module, &opts).expect("optimizes");
    (
        stats.total("recycle-version", "guards_removed"),
        stats.total("recycle-version", "runs_versioned"),
        stats.total("fusion", "ops_fused"),
    )
}

#[test]
fn guards_go_and_chains_fuse() {
    // The issue's example: the guards between m, d and r2 go under one test of m's
    // length against x's; the chain m * d / (r2 * sqrt(r2)) then fuses into one loop.
    let nbody = json!([[1.0, 2.0, 3.5], [1.0, 1.0, 2.0], 0.01]);
    let (removed, versioned, fused) = counts("nbody_vec", nbody.clone(), true);
    let (_, _, fused_before) = counts("nbody_vec", nbody, false);
    assert!(removed >= 9 && versioned == 1, "{removed} {versioned}");
    assert!(fused >= fused_before + 4, "fused {fused} with the pass, {fused_before} without");
    // Straight-line chains: versioned on the slices' lengths; fused.
    let (removed, versioned, fused) = counts("slices", json!([[0.5, 1.5, -0.25, 2.0, 1.0]]), true);
    let (_, _, fused_before) = counts("slices", json!([[0.5, 1.5, -0.25, 2.0, 1.0]]), false);
    assert!(removed >= 6 && versioned == 1, "{removed} {versioned}");
    assert!(fused > fused_before, "fused {fused} with the pass, {fused_before} without");
    // A vector compared with itself after an operation needs no test.
    let (removed, versioned, _) = counts("cnd_vec", json!([[-2.0, 0.5]]), true);
    assert!(removed >= 3 && versioned == 0, "{removed} {versioned}");
}
