//! The Rscript side of the R front end's differential tests (frontend_r_rules.rs,
//! frontend_r_vector_style.rs, frontend_r_coverage.rs, frontend_r_semantics.rs): test
//! arguments as R literals, the cases run in R, compiled results in the same form, and
//! their comparison. Each test binary includes it with `#[path]` and uses part of it.
#![allow(dead_code)]

use serde_json::Value as Json;
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::VrError;

/// An R expression for a JSON argument (arrays: column-major data with `dim`).
pub fn r_literal(j: &Json) -> String {
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
pub enum Outcome {
    Value { ty: String, dims: Vec<usize>, values: Vec<(f64, f64)> },
    Null,
    Error(String),
}

/// A path for one R script that no other call in this process, on any test thread, is
/// using: test functions of one binary run in parallel, and two of them writing (and
/// deleting) one file made Rscript fail with an empty message.
pub fn scratch_script(stem: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("{stem}_{}_{n}.R", std::process::id()))
}

/// R's results for every call `(function, arguments)` of `source` (R's functions, run by
/// `Rscript --vanilla`): `before_each` runs before each call (`set.seed(1); `), `tag`
/// names the temporary script.
pub fn run_r(source: &str, calls: &[(&str, &Json)], before_each: &str, tag: &str) -> Vec<Outcome> {
    let mut script = String::from("prange <- function(n) seq_len(n)\ngpu <- function(expr) invisible(expr)\noptions(warn = 2)\n");
    script.push_str(source);
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
    for (id, (func, args)) in calls.iter().enumerate() {
        let args: Vec<String> = args.as_array().unwrap().iter().map(r_literal).collect();
        script.push_str(&format!("{before_each}run({id}, function() {func}({}))\n", args.join(", ")));
    }
    let path = scratch_script(&format!("vr_frontend_r_{tag}"));
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
    (0..calls.len()).map(|i| results.remove(&i).unwrap_or_else(|| panic!("R printed no result for case {i}:\n{stdout}"))).collect()
}

pub fn scalar_pair(s: &Scalar) -> (f64, f64) {
    match s {
        Scalar::C128(c) => (c.re, c.im),
        Scalar::C64(c) => (c.re as f64, c.im as f64),
        other => (other.as_f64().unwrap(), 0.0),
    }
}

pub fn type_name(s: velociraptor::vrir::ScalarType) -> &'static str {
    use velociraptor::vrir::ScalarType::*;
    match s {
        Bool => "logical",
        I32 | I64 => "integer",
        F32 | F64 => "double",
        C64 | C128 => "complex",
    }
}

pub fn ours(results: &[Value]) -> Outcome {
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

pub fn same_float(a: f64, b: f64, tol: Option<f64>) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    match tol {
        None => a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0),
        Some(t) => a == b || (a - b).abs() <= t * a.abs().max(b.abs()),
    }
}

pub fn agree(r: &Outcome, us: &Outcome, tol: Option<f64>) -> bool {
    match (r, us) {
        (Outcome::Null, Outcome::Null) => true,
        (Outcome::Value { ty: t1, dims: d1, values: v1 }, Outcome::Value { ty: t2, dims: d2, values: v2 }) => {
            t1 == t2 && d1 == d2 && v1.iter().zip(v2).all(|(a, b)| same_float(a.0, b.0, tol) && same_float(a.1, b.1, tol))
        }
        _ => false,
    }
}

/// What compiled code did: a value, or an error (explained in R's terms) and its kind.
pub fn compiled(module: &velociraptor::vrir::Module, b: Backend, func: &str, values: Vec<Value>) -> Result<Outcome, VrError> {
    match backend::execute(b, module, func, values) {
        Ok(v) => Ok(ours(&v)),
        Err(e) => Err(r::explain_error(e)),
    }
}
