//! Constructs of public R benchmark code made to compile for the corpus (issue 14,
//! "Targets"; bench/r/corpus, docs/frontend-r.md "Real R code: the corpus"), against R
//! itself. Every function of tests/frontend_r/coverage.R runs in R (Rscript, during this
//! test, `options(warn = 2)`) and, compiled, on every backend this build has. The
//! outcome must be R's value (floats bit for bit unless a case states a tolerance), R's
//! error (its message contained in ours), or, where R has an answer compiled code does
//! not give, a run-time error of kind `unsupported` (the R adapter then runs the call in
//! R). Random draws run after `set.seed(SEED)` in both, compiled ones from the built-in
//! copy of R's generator seeded the same way.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::runtime::rng;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::{ErrorKind, VrError};

const SOURCE: &str = include_str!("frontend_r/coverage.R");

/// Every case runs after `set.seed(SEED)`, in R and in the built-in generator.
const SEED: i32 = 20261125;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Equal to R's result (exact for floats).
    Same,
    /// R answers where compiled code cannot: a run-time error of kind `unsupported`.
    Fallback,
    /// R raises an error; ours carries R's message and is not `unsupported`.
    SameError,
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

fn m33() -> Json {
    json!({"dtype": "f64", "shape": [3, 3], "data": [[1.0, 4.0, 7.0], [2.0, 5.0, 8.0], [3.0, 6.0, 9.0]]})
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json, expect| Case { func, args, expect };
    vec![
        // A scalar that becomes a vector.
        c("filter_slices", json!([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], [0.1, 0.15, 0.2, 0.3]]), Same),
        c("filter_slices", json!([[1.0, 2.0, 3.0, 4.0, 5.0], 0.5]), Same),
        c("one_or_two", json!([3.0]), Same),
        c("one_or_two", json!([-3.0]), Same),
        c("widen_to_vector", json!([i32s(3)]), Same),
        c("arg_becomes_vector", json!([2.5]), Same),
        c("arg_becomes_vector", json!([[1.0, 2.0, 3.0]]), Same),
        c("loop_var_vector", json!([[1.0, 2.0, 3.0]]), Same),
        c("vector_condition", json!([5.0]), Same),
        c("vector_condition", json!([1.0]), Same),
        // Recall.
        c("gcd_pairs", json!([[12.0, 18.0, 7.0, 100.0], [18.0, 12.0, 5.0, 75.0]]), Same),
        c("fact_recall", json!([10.0]), Same),
        c("fact_table", json!([i32s(6)]), Same),
        c("count_down", json!([i32s(5)]), Same),
        c("count_down", json!([4.0]), Same),
        // seq(from, to, by) of doubles (R's seq.default), seq(n).
        c("seq_by_value", json!([-2.0, 0.5, 0.1]), Same),
        c("seq_by_value", json!([0.0, 1.0, 0.1]), Same),
        c("seq_by_value", json!([1.0, 0.0, -0.3]), Same),
        c("seq_by_value", json!([0.1, 2.3, 0.7]), Same),
        c("seq_by_value", json!([1.0, 10.0, 2.0]), Same),
        c("seq_by_value", json!([1e300, 1e300, 1.0]), Same),
        c("seq_by_value", json!([2.0, 2.0, 1.0]), Same),
        c("seq_by_value", json!([0.0, 0.0, 1.0]), Same),
        c("seq_by_value", json!([0.0, 0.0, -1.0]), Same),
        c("seq_by_value", json!([3.0, 3.0, 0.0]), Same),
        c("seq_by_value", json!([1.0, 1.0 + 1e-15, 0.5]), Same),
        c("seq_by_value", json!([1.0, 2.0, -0.5]), SameError),
        c("seq_by_value", json!([1.0, 2.0, 0.0]), SameError),
        c("seq_by_value", json!([1.0, 2.0, 1e-12]), SameError),
        c("seq_by_value", json!([1.0, 2.0, "inf"]), Fallback),
        c("seq_by_value", json!([i32s(1), i32s(10), i32s(3)]), Same),
        c("seq_by_value", json!([i32s(10), i32s(1), i32s(-4)]), Same),
        c("seq_by_value", json!([i32s(1), 10.0, i32s(3)]), Same),
        c("seq_by_value", json!([i32s(1), 2.5, 0.5]), Same),
        c("seq_by_value", json!([i32s(0), i32s(0), i32s(1)]), Fallback),
        c("seq_by_value", json!([i32s(4), 4.0, 1.0]), Fallback),
        c("seq_by_named", json!([5.0, -1.0, -1.5]), Same),
        c("seq_literals", json!([]), Same),
        c("seq_whole", json!([10.0]), Same),
        c("seq_loop_double", json!([-1.0, 1.0, 0.25]), Same),
        c("seq_loop_double", json!([0.0, 1.0, 0.1]), Same),
        c("seq_one_arg", json!([10.0]), Same),
        c("seq_one_arg", json!([2.5]), Same),
        c("seq_one_arg", json!([i32s(3)]), Same),
        c("seq_one_arg", json!([0.0]), Same),
        c("seq_one_loop", json!([6.0]), Same),
        c("seq_vector_arg", json!([[4.0, 5.0, 6.0]]), Same),
        c("seq_vector_arg", json!([{"dtype": "f64", "shape": [1], "data": [5.0]}]), Fallback),
        c("mandel_grid", json!([]), Same),
        // rgamma after set.seed(SEED): every branch of GS (shape < 1) and GD (the
        // three ranges of b, si, c; immediate, squeeze, quotient and hat acceptance).
        c("gamma_draws", json!([i32s(2000), 0.3, 1.0]), Same),
        c("gamma_draws", json!([i32s(2000), 1.0, 2.0]), Same),
        c("gamma_draws", json!([i32s(2000), 2.5, 0.5]), Same),
        c("gamma_draws", json!([i32s(2000), 7.0, 1.0]), Same),
        c("gamma_draws", json!([i32s(2000), 20.0, 3.0]), Same),
        c("gamma_draws", json!([i32s(7), [0.5, 3.0, 15.0], [2.0, 0.25]]), Same),
        c("gamma_draws", json!([[1.0, 2.0, 3.0], 4.0, 1.0]), Same),
        c("gamma_draws", json!([i32s(3), 0.0, 1.0]), Same),
        c("gamma_draws", json!([i32s(3), 2.0, "inf"]), Same),
        c("gamma_draws", json!([i32s(3), "inf", 1.0]), Same),
        c("gamma_draws", json!([i32s(3), -1.0, 1.0]), Fallback),
        c("gamma_draws", json!([i32s(3), 2.0, -1.0]), Fallback),
        c("gamma_draws", json!([i32s(3), "nan", 1.0]), Fallback),
        c("gamma_scale", json!([i32s(500), 3.0, 0.2]), Same),
        c("gamma_scale", json!([i32s(3), 3.0, 0.0]), Same),
        c("gamma_default", json!([i32s(500), 0.9]), Same),
        c("gamma_one", json!([5.0]), Same),
        c("gamma_sum", json!([i32s(300), 1.5]), Same),
        c("gibbs_r", json!([100.0, 10.0]), Same),
        // An index 0 computed at run time inside c(...).
        c("corners_below", json!([m33(), 1.5, 2.5, 20.0]), Same),
        c("corners_below", json!([m33(), 0.5, 2.5, 20.0]), Same),
        c("corners_below", json!([m33(), 0.5, 0.2, 20.0]), Same),
        c("corners_below", json!([m33(), 0.5, 0.2, 0.5]), Same),
        c("neighbours", json!([m33(), 2.0, 2.0]), Same),
        c("neighbours", json!([m33(), 1.0, 2.0]), Same),
        c("neighbours", json!([m33(), 1.0, 1.0]), Same),
        c("neighbours", json!([m33(), 3.0, 3.0]), SameError),
        c("around", json!([[1.0, 2.0, 3.0, 4.0], 1.0]), Same),
        c("around", json!([[1.0, 2.0, 3.0, 4.0], 2.5]), Same),
        c("around", json!([[1.0, 2.0, 3.0, 4.0], 4.0]), Fallback),
        c("around", json!([{"dtype": "i32", "shape": [3], "data": [5, 6, 7]}, i32s(1)]), Same),
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
        script.push_str(&format!("set.seed({SEED}); run({id}, function() {}({}))\n", c.func, args.join(", ")));
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_r_coverage_{}.R", std::process::id()));
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
    rng::set_seed(SEED);
    match backend::execute(b, module, func, values) {
        Ok(v) => Ok(ours(&v)),
        Err(e) => Err(r::explain_error(e)),
    }
}

#[test]
fn corpus_constructs_agree_with_r() {
    let cases = cases();
    let expected = run_r(&cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<Backend, usize> = HashMap::new();
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!("case {id}: {}({})", c.func, c.args.as_array().unwrap().iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "));
        let (module, values) = match r::compile_for_json(SOURCE, c.func, c.args.as_array().unwrap()) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        for b in Backend::available() {
            let got = compiled(&module, b, c.func, values.clone());
            let ok = match (&got, c.expect, r_out) {
                (Err(e), Fallback, _) => e.kind == ErrorKind::Unsupported,
                (Err(e), SameError, Outcome::Error(r_message)) => e.kind != ErrorKind::Unsupported && e.to_string().contains(r_message.as_str()),
                (Ok(_), Same, Outcome::Error(_)) => false,
                (Ok(v), Same, _) => agree(r_out, v, None),
                _ => false,
            };
            if ok {
                *passed.entry(b).or_default() += 1;
            } else {
                failures.push(format!("{label} on {b}: expected {:?}; R gave {r_out:?}, compiled code gave {:?}", c.expect, got.map_err(|e| e.to_string())));
            }
        }
    }
    for b in Backend::available() {
        eprintln!("{b}: {} of {} cases as R", passed.get(&b).copied().unwrap_or(0), cases.len());
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
