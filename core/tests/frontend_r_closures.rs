//! Closures, functionals and argument matching in the R front end, against R itself:
//! every case of tests/frontend_r/closures.R runs in R (Rscript, during this test) and,
//! compiled, on every backend this build has (also compiled from R's own `deparse()` of
//! the functions); results must be equal. Where R answers with a list or NULL (ragged
//! or empty results), compiled code must raise; where R raises (`vapply`'s and
//! `outer`'s checks), compiled code raises too. The second half checks what stays
//! unsupported: each refusal names the construct and its line.
//!
//! The harness (R literals, R's results, comparison) follows frontend_r_semantics.rs.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::frontend::types::Ty;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::vrir::ScalarType;
use velociraptor::ErrorKind;

const SOURCE: &str = include_str!("frontend_r/closures.R");

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// Equal to R's result (exact for floats).
    Same,
    /// Equal within this relative tolerance (R sums in long double).
    Near(f64),
    /// R answers (a list, NULL) but compiled code must raise an error instead.
    Error,
    /// R raises an error and compiled code raises one carrying R's message.
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

fn ivec(v: &[i32]) -> Json {
    json!({"dtype": "i32", "shape": [v.len()], "data": v})
}

fn empty_f64() -> Json {
    json!({"dtype": "f64", "shape": [0], "data": []})
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json, expect| Case { func, args, expect };
    let mat =
        json!({"dtype": "f64", "shape": [3, 2], "data": [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]});
    let one_col = json!({"dtype": "f64", "shape": [3, 1], "data": [[1.0], [2.0], [3.0]]});
    let no_rows = json!({"dtype": "f64", "shape": [0, 3], "data": []});
    let v3 = json!([1.5, -2.0, 4.0]);
    vec![
        // Functions defined inside functions.
        c("inner_helper", json!([[1.0, 2.0, 3.5]]), Same),
        c("capture_read", json!([[1.0, 2.0], 3.0]), Same),
        c("capture_read", json!([[1.0, 2.0], i32s(3)]), Same),
        c("capture_loop_var", json!([i32s(4)]), Same),
        c("capture_late", json!([[1.0, 2.0]]), Same),
        c("capture_copy", json!([[1.0, 2.0, 3.0]]), Same),
        c("capture_rebind", json!([2.5]), Same),
        c("recursive_inner", json!([15.0]), Same),
        c("recursive_capture", json!([10.0, 3.0]), Same),
        c("nested_inner", json!([[1.0, 2.0], 0.5]), Same),
        c("sibling_calls", json!([[1.0, 2.0], 4.0]), Same),
        c("lambda_now", json!([[1.0, 2.0]]), Same),
        c("two_types", json!([[1.5, 2.0], i32s(3)]), Same),
        c("inner_default", json!([[2.0, 3.0]]), Same),
        c("spectral_norm", json!([10.0]), Near(1e-14)),
        c("spectral_norm", json!([i32s(7)]), Near(1e-14)),
        // sapply.
        c("sap_lambda", json!([v3.clone()]), Same),
        c("sap_lambda", json!([2.0]), Same),
        c("sap_lambda", json!([empty_f64()]), Error),
        c("sap_backslash", json!([ivec(&[1, 2, 3])]), Same),
        c("sap_builtin", json!([[4.0, 2.0, 0.25]]), Same),
        c("sap_string", json!([v3.clone()]), Same),
        c("sap_extra", json!([[1.0, 2.0, 3.0], 2.0]), Same),
        c("sap_named_extra", json!([[-1.0, 0.5, 7.0]]), Same),
        c("sap_first_named", json!([[1.0, 2.0, 3.0]]), Same),
        c("sap_seq", json!([i32s(5)]), Same),
        c("sap_seq", json!([4.0]), Same),
        c("sap_matrix", json!([i32s(4)]), Same),
        // 1:0 counts down: two elements.
        c("sap_matrix", json!([i32s(0)]), Same),
        c("sap_ragged", json!([i32s(3)]), Error),
        c("sap_ragged", json!([i32s(1)]), Error),
        c("sap_local", json!([v3.clone()]), Same),
        c("sap_nested", json!([v3.clone()]), Same),
        c("sap_top", json!([v3.clone()]), Same),
        c("sap_logical", json!([[0.5, 1.5, 2.0]]), Same),
        c("sap_matrix_input", json!([mat.clone()]), Same),
        c("sap_use_names", json!([[1.0, 2.0]]), Same),
        // vapply.
        c("vap", json!([v3.clone()]), Same),
        c("vap", json!([empty_f64()]), Same),
        c("vap_int", json!([ivec(&[1, 5, -2])]), Same),
        c("vap_int", json!([ivec(&[2147483647])]), Error),
        c("vap_promote", json!([ivec(&[1, 5, -2])]), Same),
        c("vap_vec", json!([v3.clone()]), Same),
        c("vap_vec", json!([empty_f64()]), Same),
        c("vap_bad_len", json!([v3.clone()]), SameError),
        c("vap_bad_len", json!([empty_f64()]), Same),
        c("vap_scalar_template", json!([[1.0, -1.0]]), Same),
        c("vap_partial", json!([[1.0, 2.0]]), Same),
        // mapply, Map, lapply.
        c("map_two", json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), Same),
        c("map_two", json!([[1.0, 2.0, 3.0, 4.0], [4.0, 5.0]]), Error),
        c("map_two", json!([[1.0, 2.0], empty_f64()]), Error),
        c("map_names", json!([[1.0, 2.0], [10.0, 20.0]]), Same),
        c("map_recycle", json!([[1.0, 2.0, 3.0]]), Same),
        c("map_more", json!([[1.0, 2.0]]), Same),
        c("map_builtin", json!([[1.0, -1.0], [2.0, 0.5]]), Same),
        c("map_unlist", json!([[1.0, 2.0], [3.0, 4.0]]), Same),
        c("lap_unlist", json!([i32s(4)]), Same),
        c("lap_unlist", json!([i32s(30)]), Same),
        c("lap_unlist", json!([i32s(0)]), Same),
        c("lap_scalar", json!([v3.clone()]), Same),
        // Reduce, Filter.
        c("red_sum", json!([[1.0, 2.0, 3.5]]), Same),
        c("red_sum", json!([ivec(&[1, 2, 3])]), Same),
        c("red_sum", json!([ivec(&[2147483647, 1])]), Error),
        c("red_sum", json!([empty_f64()]), Error),
        c("red_sum", json!([7.0]), Same),
        c("red_acc", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("red_init", json!([[1.0, 2.0, 3.0]]), Same),
        c("red_init", json!([empty_f64()]), Same),
        c("red_right", json!([[1.0, 2.0, 3.0]]), Same),
        c("red_right_acc", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("red_left_acc_init", json!([[1.0, 2.0, 3.0]]), Same),
        c("red_left_acc_init", json!([empty_f64()]), Same),
        c("red_int", json!([i32s(10)]), Same),
        c("red_widen", json!([i32s(5)]), Same),
        c("red_max", json!([[3.0, 9.0, -1.0]]), Same),
        c("red_init_only", json!([empty_f64()]), Same),
        c("red_init_only", json!([[1.0, 2.0]]), Same),
        c("fil", json!([[1.0, 5.0, 2.0, 7.0]]), Same),
        c("fil", json!([[1.0, 2.0]]), Same),
        c("fil", json!([[1.0, "nan", 3.0]]), Error),
        c("fil_builtin", json!([[1.0, "inf", 3.0, "nan"]]), Same),
        // outer, apply.
        c("out_default", json!([[1.0, 2.0, 3.0], [1.0, 2.0]]), Same),
        c("out_default", json!([2.0, [1.0, 2.0]]), Same),
        c("out_fun", json!([[1.0, 2.0, 3.0], [1.0, 2.0]]), Same),
        c("out_fun", json!([ivec(&[1, 2]), ivec(&[3, 4, 5])]), Same),
        c("out_str", json!([[1.0, 2.0], [10.0, 20.0, 30.0]]), Same),
        c("out_const", json!([[1.0, 2.0, 3.0], [1.0, 2.0]]), SameError),
        c("out_const", json!([[1.0], [2.0]]), Same),
        c("out_extra", json!([[1.0, 2.0], [0.5, 1.5], 2.0]), Same),
        c("app_rows", json!([mat.clone()]), Same),
        c("app_rows", json!([no_rows.clone()]), Same),
        c("app_cols", json!([mat.clone()]), Same),
        c("app_vec", json!([mat.clone()]), Same),
        c("app_vec", json!([one_col]), Error),
        c("app_vec", json!([no_rows]), Error),
        c("app_extra", json!([mat.clone(), 0.5]), Same),
        // Argument matching.
        c("arg_partial", json!([4.0]), Same),
        c("arg_partial_top", json!([[1.0, 2.0]]), Same),
        c("arg_mixed", json!([[1.0, 2.0]]), Same),
        c("cplx_partial", json!([1.5, -2.0]), Same),
        c(
            "matrix_partial",
            json!([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]),
            Same,
        ),
        c("matrix_byrow_default", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("seq_partial_len", json!([10.0]), Same),
        c("rep_partial", json!([[1.0, 2.0]]), Same),
        c("numeric_partial", json!([3.0]), Same),
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
            (Json::Object(o), _) => format!(
                "complex(real = {}, imaginary = {})",
                num(&o["re"], "f64"),
                num(&o["im"], "f64")
            ),
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
        Json::Object(o) if o.contains_key("data") => (
            &o["data"],
            o["dtype"].as_str().unwrap_or("f64"),
            o.get("shape"),
        ),
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
        let empty = match dtype {
            "i32" => "integer(0)",
            "bool" => "logical(0)",
            _ => "numeric(0)",
        };
        if dims.len() > 1 {
            return format!(
                "array({empty}, dim = c({}))",
                dims.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        return empty.into();
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
        format!(
            "array(c({items}), dim = c({}))",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// A result as R's tests print it: type, dims, column-major values.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Value {
        ty: String,
        dims: Vec<usize>,
        values: Vec<(f64, f64)>,
    },
    Null,
    /// R's result is a list (compiled code never returns one).
    List,
    Error(String),
}

/// R's results for every case, and the source as R's `deparse()` prints it back.
fn run_r(cases: &[Case]) -> (Vec<Outcome>, String) {
    let dep_path =
        std::env::temp_dir().join(format!("vr_frontend_r_{}_deparsed.R", std::process::id()));
    let mut script = String::from("prange <- function(n) seq_len(n)\ngpu <- function(expr) invisible(expr)\noptions(warn = 2)\n");
    script.push_str(SOURCE);
    script.push_str(&format!(
        r#"
local({{
  dep <- file("{}", "w")
  for (nm in ls(globalenv())) {{
    v <- get(nm, envir = globalenv())
    if (is.function(v) && !(nm %in% c("prange", "gpu"))) writeLines(c(paste(nm, "<-"), deparse(v)), dep)
    else if (is.numeric(v) && is.null(attributes(v))) writeLines(paste(nm, "<-", deparse(v)), dep)
  }}
  close(dep)
}})
"#,
        dep_path.display()
    ));
    script.push_str(
        r#"
emit <- function(id, r) {
  if (is.null(r)) { cat("CASE", id, "NULL\n"); return(invisible()) }
  if (is.list(r)) { cat("CASE", id, "LIST\n"); return(invisible()) }
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
        script.push_str(&format!(
            "run({id}, function() {}({}))\n",
            c.func,
            args.join(", ")
        ));
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_r_{}.R", std::process::id()));
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("Rscript")
        .arg("--vanilla")
        .arg(&path)
        .output()
        .expect("Rscript runs (R is part of the test setup)");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Rscript failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut results: HashMap<usize, Outcome> = HashMap::new();
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        if w.next() != Some("CASE") {
            continue;
        }
        let id: usize = w.next().unwrap().parse().unwrap();
        let outcome = match w.next().unwrap() {
            "NULL" => Outcome::Null,
            "LIST" => Outcome::List,
            "ERROR" => Outcome::Error(w.collect::<Vec<_>>().join(" ")),
            _ => {
                let ty = w.next().unwrap().to_string();
                let nd: usize = w.next().unwrap().parse().unwrap();
                let dims: Vec<usize> = (0..nd)
                    .map(|_| w.next().unwrap().parse().unwrap())
                    .collect();
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
    let deparsed = std::fs::read_to_string(&dep_path).expect("R wrote the deparsed functions");
    let _ = std::fs::remove_file(&dep_path);
    let outcomes = (0..cases.len())
        .map(|i| {
            results
                .remove(&i)
                .unwrap_or_else(|| panic!("R printed no result for case {i}:\n{stdout}"))
        })
        .collect();
    (outcomes, deparsed)
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
        [Value::Scalar(s)] => Outcome::Value {
            ty: type_name(s.ty()).into(),
            dims: vec![1],
            values: vec![scalar_pair(s)],
        },
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
            Outcome::Value {
                ty: type_name(a.ty.elem).into(),
                dims: a.dims.clone(),
                values,
            }
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
        (
            Outcome::Value {
                ty: t1,
                dims: d1,
                values: v1,
            },
            Outcome::Value {
                ty: t2,
                dims: d2,
                values: v2,
            },
        ) => {
            t1 == t2
                && d1 == d2
                && v1
                    .iter()
                    .zip(v2)
                    .all(|(a, b)| same_float(a.0, b.0, tol) && same_float(a.1, b.1, tol))
        }
        _ => false,
    }
}

#[test]
fn closures_and_functionals_agree_with_r() {
    let cases = cases();
    let (expected, deparsed) = run_r(&cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<Backend, usize> = HashMap::new();
    let mut skipped: HashMap<Backend, Vec<String>> = HashMap::new();
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!(
            "case {id}: {}({})",
            c.func,
            c.args
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let (module, values) = match r::compile_for_json(SOURCE, c.func, c.args.as_array().unwrap())
        {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        for b in Backend::available() {
            let got = backend::execute(b, &module, c.func, values.clone());
            let got = match got {
                // The backend does not compile a construct (checked before explain_error,
                // which turns R's NA cases into run-time `unsupported`: answers here).
                Err(e) if e.kind == ErrorKind::Unsupported => {
                    skipped.entry(b).or_default().push(format!("{label}: {e}"));
                    continue;
                }
                Err(e) => Outcome::Error(r::explain_error(e).to_string()),
                Ok(v) => ours(&v),
            };
            let ok = match (c.expect, r_out) {
                // R has an answer compiled code cannot hold: `unsupported`, so that the R
                // adapter runs the function in R.
                (Error, _) => matches!(&got, Outcome::Error(m) if m.starts_with("unsupported")),
                (SameError, Outcome::Error(r_message)) => {
                    matches!(&got, Outcome::Error(m) if m.split_whitespace().collect::<Vec<_>>().join(" ").contains(r_message.as_str()))
                }
                (SameError, _) => false,
                (_, Outcome::Error(_)) => matches!(got, Outcome::Error(_)),
                (Same, _) => agree(r_out, &got, None),
                (Near(t), _) => agree(r_out, &got, Some(t)),
            };
            if ok && b == Backend::Interp {
                // The same function as R's deparse() prints it compiles to the same result.
                let again = r::compile_for_json(&deparsed, c.func, c.args.as_array().unwrap())
                    .and_then(|(m, v)| backend::execute(b, &m, c.func, v))
                    .map_err(r::explain_error);
                let again = match again {
                    Ok(v) => ours(&v),
                    Err(e) => Outcome::Error(e.to_string()),
                };
                let same = match (&got, &again) {
                    (Outcome::Error(_), Outcome::Error(_)) => true,
                    (a, b) => agree(a, b, None),
                };
                if !same {
                    failures.push(format!(
                        "{label}: the deparsed function gives {again:?}, the original {got:?}"
                    ));
                }
            }
            if ok {
                *passed.entry(b).or_default() += 1;
            } else {
                failures.push(format!(
                    "{label} on {b}: R gave {r_out:?}, compiled code gave {got:?}"
                ));
            }
        }
    }
    for b in Backend::available() {
        let s = skipped.get(&b).map_or(0, |v| v.len());
        eprintln!(
            "{b}: {} passed, {s} skipped (unsupported by the backend)",
            passed.get(&b).copied().unwrap_or(0)
        );
        for line in skipped.get(&b).into_iter().flatten() {
            eprintln!("  SKIP {line}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        passed.get(&Backend::Interp).copied().unwrap_or(0),
        cases.len(),
        "every case runs on the interpreter"
    );
}

// ----- what stays unsupported -----

fn diag(src: &str) -> velociraptor::VrError {
    let x = Ty::array(ScalarType::F64, 1);
    r::compile(src, "f", vec![x]).expect_err("must not compile")
}

/// The refusal names the construct (and R's own words where R would reject the call),
/// the top-level function and the line.
#[track_caller]
fn refused(src: &str, construct: &str, line: u32) {
    let e = diag(src);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(
        e.message.contains(construct),
        "`{construct}` not named in: {e}"
    );
    assert_eq!(
        (e.function.as_deref(), e.line),
        (Some("f"), Some(line)),
        "{e}"
    );
}

#[test]
fn closures_that_write_outside_or_escape_are_refused() {
    refused(
        "f <- function(x) {\n  g <- function() {\n    x <<- 1\n  }\n  g()\n  x\n}",
        "superassignment `<<-`",
        3,
    );
    refused(
        "f <- function(x) {\n  function(v) v * x\n}",
        "the function at line 2 used as a value",
        2,
    );
    refused(
        "f <- function(x) {\n  g <- function(v) v\n  h <- g\n  h(x)\n}",
        "function `g` used as a value",
        3,
    );
    refused(
        "f <- function(x) {\n  g <- function(v) v\n}",
        "function `g` as the function's value",
        2,
    );
    refused(
        "f <- function(x) {\n  g <- function(v) v\n  g <- function(v) 2 * v\n  g(x)\n}",
        "second definition of function `g`",
        3,
    );
    refused(
        "f <- function(x) {\n  g <- function(v) v\n  g <- 3\n  x\n}",
        "both a function and a variable",
        2,
    );
    refused(
        "f <- function(x) {\n  g <- function(v, ...) v\n  g(x)\n}",
        "`...`",
        3,
    );
    refused(
        "f <- function(x) {\n  y <- g(x)\n  g <- function(v) v\n  y\n}",
        "before its definition",
        2,
    );
    refused(
        "f <- function(x) {\n  if (x[1] > 0) g <- function(v) v\n  g(x)\n}",
        "before its definition",
        3,
    );
    // `b` would have to pass `a` the `k` of `f`, but hides it behind its own `k`.
    refused("f <- function(x) {\n  k <- 2\n  a <- function(v) v * k\n  b <- function(v) {\n    k <- 10\n    a(v) + k\n  }\n  b(x)\n}", "hides", 6);
}

#[test]
fn functionals_r_answers_with_lists_are_refused() {
    refused(
        "f <- function(x) {\n  lapply(x, sqrt)\n}",
        "call to `lapply`",
        2,
    );
    refused("f <- function(x) Map(function(a) a, x)", "call to `Map`", 1);
    refused(
        "f <- function(x) sapply(x, function(v) v, simplify = FALSE)",
        "`simplify =` of `sapply`",
        1,
    );
    refused(
        "f <- function(x) vapply(x, function(v) v * 2, integer(1))",
        "values must be type 'integer'",
        1,
    );
    refused(
        "f <- function(x) apply(x, 1, sum)",
        "`apply` to a double vector",
        1,
    );
    refused(
        "f <- function(x) {\n  g <- sqrt\n  sapply(x, g)\n}",
        "a function held in a variable",
        3,
    );
    refused("f <- function(x) sapply(x, mystery)", "`mystery`", 1);
    refused(
        "f <- function(x) Reduce(`+`, x, accumulate = x > 0)",
        "`accumulate =` of `Reduce`",
        1,
    );
}

#[test]
fn calls_r_would_reject_are_named_in_r_words() {
    refused(
        "f <- function(x) {\n  g <- function(a) a\n  g(x, 2)\n}",
        "unused argument (2)",
        3,
    );
    refused(
        "f <- function(x) {\n  g <- function(a) a\n  g(x, b = 2)\n}",
        "unused argument (b = 2)",
        3,
    );
    refused(
        "f <- function(x) {\n  g <- function(abc, abd) abc\n  g(ab = x)\n}",
        "argument 1 matches multiple formal arguments",
        3,
    );
    refused(
        "f <- function(x) {\n  g <- function(a) a\n  g(a = x, a = 1)\n}",
        "formal argument \"a\" matched by multiple actual arguments",
        3,
    );
    refused(
        "h <- function(a, b) a\nf <- function(x) h(x, 1, 2, 3)",
        "unused arguments (2, 3)",
        2,
    );
    refused(
        "f <- function(x) matrix(d = x, 2)",
        "argument 1 matches multiple formal arguments",
        1,
    );
    refused(
        "f <- function(x) matrix(x, 2, 1, FALSE, NULL, 5)",
        "unused argument (5)",
        1,
    );
    refused(
        "f <- function(x) matrix(x, 2, byrow = TRUE)",
        "argument `byrow` of `matrix`",
        1,
    );
    refused(
        "f <- function(x) {\n  g <- function(a, b) a + b\n  g(x)\n}",
        "argument \"b\" is missing, with no default",
        3,
    );
}

/// A run-time error inside a lifted function names the top-level function around it
/// (whose lines the host counts) and the line.
#[test]
fn errors_inside_inner_functions_name_the_outer_function() {
    let src =
        "f <- function(x) {\n  g <- function(v) as.integer(v) + 2147483647L\n  sapply(x, g)\n}";
    let (m, values) = r::compile_for_json(src, "f", &[json!([1.0, 2.0])]).unwrap();
    for b in Backend::available() {
        let e = backend::execute(b, &m, "f", values.clone())
            .map(|_| ())
            .map_err(r::explain_error)
            .expect_err("overflow");
        assert_eq!(
            (e.kind, e.function.as_deref(), e.line),
            (ErrorKind::Unsupported, Some("f"), Some(2)),
            "{b}: {e}"
        );
        assert!(e.message.contains("integer overflow"), "{b}: {e}");
    }
}

/// Lifted functions keep readable names in the module, and each is specialized per
/// argument types like a top-level function.
#[test]
fn lifted_functions_are_program_functions() {
    let src = "f <- function(x, n) {\n  h <- function(v) v * 2\n  s <- sapply(x, function(v) h(v) + n)\n  c(s, h(n))\n}";
    let m = r::compile(
        src,
        "f",
        vec![Ty::array(ScalarType::F64, 1), Ty::scalar(ScalarType::I32)],
    )
    .unwrap();
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    for want in ["f", "f.h", "f.fn3", "f.h__2"] {
        assert!(names.contains(&want), "{want} not in {names:?}");
    }
    // The anonymous function reads `n` of `f`: a parameter after its own.
    let lambda = m.functions.iter().find(|f| f.name == "f.fn3").unwrap();
    assert_eq!(
        lambda
            .params
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
        ["v", "n"]
    );
    velociraptor::vrir::verify::verify_module(&m).unwrap();
}
