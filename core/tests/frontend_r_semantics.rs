//! The R front end against R itself: every function of tests/frontend_r/cases.R runs in
//! R (Rscript, during this test) and, compiled by the front end, on every backend this
//! build has; the results must be equal (floats bit for bit unless a case states a
//! tolerance, because R calls BLAS or its own complex and math routines there; R's long
//! double reductions are matched bit for bit, see frontend_r_longdouble.rs).
//! Where R answers with NA or a warning, compiled code must raise an error instead;
//! where a case is a documented deviation (R recycles or takes an NA argument), an
//! error is the only acceptable outcome. A backend that reports `Unsupported` for a
//! construct skips the case (counted, never passed).

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::ErrorKind;

const SOURCE: &str = include_str!("frontend_r/cases.R");

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// Equal to R's result (exact for floats).
    Same,
    /// Equal within this relative tolerance.
    Near(f64),
    /// R answers (NA, recycling, ...) but compiled code must raise an error.
    Error,
    /// R raises an error (`stop("...")`) and compiled code raises one carrying R's message.
    SameError,
}
use Expect::*;

#[path = "common/rscript.rs"]
mod rscript;
use rscript::{agree, ours, r_literal, Outcome};

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
    let mat = json!({"dtype": "f64", "shape": [3, 2], "data": [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]});
    let sq = json!({"dtype": "f64", "shape": [2, 2], "data": [[1.5, -2.0], [0.25, 4.0]]});
    vec![
        c("sumsq", json!([[1.0, 2.0, 3.5]]), Same),
        c("sumsq", json!([{"dtype": "f64", "shape": [0], "data": []}]), Same),
        c("fib", json!([15]), Same),
        c("fib", json!(["nan"]), Error),
        c("fib_int", json!([i32s(20)]), Same),
        c("iadd", json!([i32s(2_100_000_000), i32s(100_000_000)]), Error),
        c("iadd", json!([i32s(2_000_000_000), i32s(100_000_000)]), Same),
        c("iadd", json!([i32s(-7), i32s(3)]), Same),
        c("iadd", json!([i32s(i32::MIN), i32s(1)]), Error),
        c("iadd", json!([2.5, true]), Same),
        c("imul", json!([i32s(65536), i32s(32768)]), Error),
        c("imul", json!([i32s(-46341), i32s(46340)]), Same),
        c("isub_vec", json!([{"dtype": "i32", "shape": [3], "data": [1, -2147483647, 5]}, {"dtype": "i32", "shape": [3], "data": [4, 1, -6]}]), Error),
        c("isub_vec", json!([{"dtype": "i32", "shape": [3], "data": [1, -2147483646, 5]}, {"dtype": "i32", "shape": [3], "data": [4, 1, -6]}]), Same),
        // A fractional operand: R finishes %% and %/% in long double, so the call
        // raises `unsupported` and runs in R (frontend::r::arith); whole ones compile.
        c("dmods", json!([-7.5, 2.0]), Error),
        c("dmods", json!([7.0, -3.0]), Same),
        c("dmods", json!([-7.0, 2.0]), Same),
        c("dmods", json!([5.0, 0.3]), Error),
        c("dmods", json!([-5.0, 0.0]), Same),
        c("imods", json!([i32s(-7), i32s(2)]), Same),
        c("imods", json!([i32s(7), i32s(-3)]), Same),
        c("imods", json!([i32s(-7), i32s(-3)]), Same),
        c("imods", json!([i32s(7), i32s(0)]), Error),
        c("idiv", json!([i32s(7), i32s(2)]), Same),
        c("idiv", json!([i32s(7), i32s(0)]), Same),
        c("ipow", json!([i32s(2), i32s(10)]), Same),
        c("ipow", json!([i32s(2), i32s(-2)]), Same),
        c("recycle", json!([[1.0, 2.0, 3.0], [0.5, 0.25, 2.0]]), Same),
        c("recycle", json!([[1.0, 2.0, 3.0, 4.0], [0.5, 0.25]]), Error),
        c("recycle", json!([[1.0, 2.0], 10.0]), Same),
        c("nan_prop", json!([[1.0, "nan", 3.0]]), Same),
        c("nan_prop", json!([[1.0, "inf", 3.0]]), Same),
        c("positive_first", json!([[2.0, 1.0]]), Same),
        c("positive_first", json!([["nan", 1.0]]), Error),
        c("colmajor", json!([mat.clone()]), Same),
        c("row_of", json!([mat.clone(), i32s(2)]), Same),
        c("col_of", json!([mat.clone(), 2.0]), Same),
        c("slice", json!([[10.0, 20.0, 30.0, 40.0], i32s(2), i32s(3)]), Same),
        c("slice", json!([[10.0, 20.0, 30.0, 40.0], 4.0, 2.0]), Same),
        c("slice", json!([[10.0, 20.0, 30.0, 40.0], 2.0, 5.0]), Error),
        c("sub_block", json!([{"dtype": "f64", "shape": [3, 3], "data": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]}]), Same),
        c("modify_arg", json!([[1.0, 2.0]]), Same),
        c("caller_keeps", json!([[1.0, 2.0]]), Same),
        c("alias_copy", json!([[1.0, 2.0, 3.0]]), Same),
        c("cplx", json!([1.5, -2.0]), Same),
        c("cmul", json!([{"re": 1.0, "im": 2.0}, {"re": -0.5, "im": 4.0}]), Near(1e-15)),
        c("mm", json!([sq.clone(), sq.clone()]), Near(1e-15)),
        c("mm", json!([mat.clone(), sq.clone()]), Near(1e-15)),
        c("mm", json!([sq.clone(), mat.clone()]), Error),
        c("mv", json!([mat.clone(), [1.0, -1.0]]), Near(1e-15)),
        c("vdot", json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), Near(1e-15)),
        c("tr", json!([mat.clone()]), Same),
        c("tr", json!([[1.0, 2.0]]), Same),
        c("cp", json!([mat.clone()]), Near(1e-15)),
        c("stats", json!([[1.5, 2.5, -3.0, 4.25]]), Same),
        c("cums", json!([[0.1, 0.2, 0.3, 0.4]]), Same),
        c("icums", json!([{"dtype": "i32", "shape": [3], "data": [1, 2, 3]}]), Same),
        c("icums", json!([{"dtype": "i32", "shape": [3], "data": [2147483000, 600, 100]}]), Error),
        c("maths", json!([[0.5, 1.25, 2.0, -2.5, -7.0]]), Near(1e-15)),
        c("round_half", json!([[0.5, 1.5, 2.5, -0.5, -1.5, 2.675]]), Same),
        c("count_up", json!([i32s(100)]), Same),
        c("count_up", json!([i32s(0)]), Same),
        c("count_up", json!([100000.0]), Error),
        c("count_seq", json!([7.0]), Same),
        c("collatz", json!([i32s(27)]), Same),
        c("first_over", json!([[1.0, 5.0, 9.0], 4.0]), Same),
        c("first_over", json!([[1.0, 5.0, 9.0], 10.0]), Same),
        c("skip_odd", json!([10.0]), Same),
        c("logic", json!([[1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 6.0, 1.0]]), Same),
        c("short_circuit", json!([[1.0, -1.0], i32s(3)]), Same),
        c("short_circuit", json!([[1.0, -1.0], i32s(1)]), Same),
        c("fill_matrix", json!([i32s(3), i32s(4)]), Same),
        c("cube", json!([i32s(4)]), Same),
        c("builders", json!([i32s(3)]), Same),
        c("sizes", json!([mat.clone()]), Same),
        c("with_default", json!([[1.0, 2.0]]), Same),
        c("call_named", json!([[1.0, 2.0]]), Same),
        c("sign_of", json!([-3.0]), Same),
        c("sign_of", json!([0.0]), Same),
        c("is_even", json!([10.0]), Same),
        c("par_square", json!([[1.0, 2.0, 3.0]]), Same),
        c("gpu_scale", json!([[1.0, 2.0, 3.0], 0.5]), Same),
        c("gather", json!([[5.0, 6.0, 7.0]]), Same),
        c("mask", json!([[5.0, -6.0, 7.0]]), Same),
        c("to_int", json!([[2.7, -2.7]]), Same),
        c("to_int", json!([["nan"]]), Error),
        c("count_true", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("concat", json!([[1.0, 2.0], 3.0]), Same),
        c("imean", json!([{"dtype": "i32", "shape": [4], "data": [1, 2, 3, 5]}]), Same),
        c("ivec_sum", json!([{"dtype": "i32", "shape": [2], "data": [2147483647, 1]}]), Error),
        c("ivec_sum", json!([{"dtype": "bool", "shape": [3], "data": [true, false, true]}]), Same),
        c("count_down", json!([i32s(4)]), Same),
        c("empty_loop", json!([0.0]), Same),
        c("nested_calls", json!([[1.0, 2.0]]), Same),
        c("mat_sum", json!([mat.clone(), mat.clone()]), Same),
        c("widen", json!([1.0]), Same),
        c("lgl_arg", json!([true]), Same),
        c("reverse", json!([[1.0, 2.0, 3.0]]), Same),
        c("free_const", json!([2.0]), Same),
        c("if_value", json!([3.0]), Same),
        c("if_value", json!([7.0]), Same),
        c("if_value", json!([0.0]), Same),
        c("two_specs", json!([[1.5, 2.0], i32s(3)]), Same),
        c("head_sum", json!([[1.0, 2.0, 4.0]]), Same),
        c("head_sum", json!([[1.0, 2.0, 4.0], i32s(1)]), Same),
        c("seq_values", json!([i32s(4)]), Same),
        c("seq_values", json!([3.0]), Same),
        c("more_builtins", json!([mat.clone(), [1.0, "inf", 3.0]]), Same),
        c("more_builtins", json!([mat.clone(), [1.0, "nan"]]), Error),
        c("misc", json!([[0.0, 2.5, -1.0], i32s(7)]), Same),
        c("cvec", json!([{"dtype": "c128", "shape": [2], "data": [{"re": 1.0, "im": -2.0}, {"re": 0.5, "im": 3.0}]}]), Same),
        c("int_ops", json!([i32s(-17), i32s(5)]), Same),
        c("int_ops", json!([i32s(17), i32s(-5)]), Same),
        c("rows_between", json!([mat.clone(), 1.0, 2.0]), Same),
        c("rows_between", json!([mat.clone(), 2.0, 2.0]), Error),
        c("for_each", json!([[1.0, 2.0, 3.0]]), Same),
        c("right_assign", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("right_assign", json!([[1.0, 2.0, 3.0]]), Error),
        c(
            "heat_steps",
            json!([{"dtype": "f64", "shape": [4, 5], "data": [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 1.0, 0.0], [0.0, 3.0, 9.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]}, {"dtype": "i32", "data": 3}]),
            Same,
        ),
        c("truthy", json!([[1.0, -2.0, 3.0]]), Same),
        c("truthy", json!([[1.0, -2.0]]), Same),
        c("int_matrix", json!([{"dtype": "i32", "shape": [2, 2], "data": [[1, 2], [3, 4]]}]), Same),
        c("int_matrix", json!([{"dtype": "i32", "shape": [1, 2], "data": [[1, 1073741824]]}]), Error),
        c("checked_sqrt", json!([2.25]), Same),
        c("checked_sqrt", json!([-1.0]), SameError),
        c("clip_low", json!([[1.0, 5.0, -2.0, 3.0], 2.0]), Same),
        c("clip_low", json!([[1.0, "nan"], 2.0]), Error),
        c("ifelse_mat", json!([mat]), Same),
        c("collatz_step", json!([{"dtype": "i32", "shape": [4], "data": [6, 7, 1, -3]}]), Same),
        c("ifelse_scalar", json!([3.0, 1.0]), Same),
        c("ifelse_scalar", json!([1.0, 3.0]), Same),
        c("ifelse_recycled", json!([[1.0, -1.0, 2.0, 3.0]]), Error),
        c("ifelse_recycled", json!([[1.0, -1.0]]), Same),
        c("plane", json!([{"dtype": "f64", "shape": [2, 2, 2], "data": [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]}, i32s(2)]), Same),
        // Run-time recycling (vectors of length 1 at run time are `[v]`).
        c("recycle_one", json!([[1.0, 2.0, 3.0], [2.5]]), Same),
        c("recycle_one", json!([[2.5], [1.0, 2.0, 3.0]]), Same),
        c("recycle_one", json!([[2.5], [-1.0]]), Same),
        c("recycle_one", json!([empty_f64(), [2.0]]), Same),
        c("recycle_one", json!([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0]]), Error),
        c("recycle_one", json!([[1.0, 2.0, 3.0], [1.0, 2.0]]), Error),
        c("recycle_one", json!([[1.0, 2.0], empty_f64()]), Error),
        c("recycle_cmp", json!([[1.0, 2.0, 3.0], [1.5]]), Same),
        c("recycle_cmp", json!([[1.0, 2.0, 3.0], [1.5, "nan", 0.0]]), Error),
        c("recycle_mat", json!([mat.clone(), [-2.0]]), Same),
        c("recycle_mat", json!([mat.clone(), [1.0, 2.0, 3.0]]), Error),
        c("recycle_mat", json!([mat.clone(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]), Error),
        c("recycle_int", json!([ivec(&[1, -2, 3]), ivec(&[40])]), Same),
        c("recycle_int", json!([ivec(&[5]), ivec(&[1, -2, 3])]), Same),
        c("recycle_int", json!([ivec(&[2147483647, 1]), ivec(&[1])]), Error),
        c("recycle_lgl", json!([{"dtype": "bool", "shape": [3], "data": [true, false, true]}, {"dtype": "bool", "shape": [1], "data": [false]}]), Same),
        c("recycle_ifelse", json!([[1.0, -1.0, 2.0], [10.0]]), Same),
        c("recycle_ifelse", json!([[1.0, -1.0, 2.0], [10.0, 20.0, 30.0]]), Same),
        c("recycle_ifelse", json!([[1.0, -1.0, 2.0], [10.0, 20.0]]), Error),
        c("recycle_atan2", json!([[1.0, -2.0], [0.5]]), Same),
        c("recycle_inner", json!([[1.0, 2.5, 4.0]]), Same),
        // Logical NA as a double.
        c("na_store", json!([[1.0, 2.0, 3.0]]), Same),
        c("na_plus", json!([[1.0, 2.0]]), Same),
        c("na_compare", json!([[1.0, 2.0]]), Error),
        c("na_branch", json!([[1.0, -1.0, 2.0]]), Same),
        c("na_branch", json!([[-1.0, -2.0]]), Error),
        c("na_branch", json!([empty_f64()]), Error),
        c("na_branch", json!([3.0]), Same),
        c("na_branch", json!([-3.0]), Error),
        c("na_branch_first", json!([[1.0, -1.0, 2.0]]), Same),
        c("na_branch_first", json!([[1.0, 2.0]]), Error),
        c("chain_assign", json!([2.5]), Same),
        c("chain_assign", json!([i32s(3)]), Same),
        // seq(..., length.out =).
        c("seq_lo", json!([0.0, 1.0, 11.0]), Same),
        c("seq_lo", json!([1.0, 10.0, i32s(4)]), Same),
        c("seq_lo", json!([0.1, -0.7, 7.0]), Same),
        c("seq_lo", json!([5.0, 5.0, 4.0]), Same),
        c("seq_lo", json!([1.0, 2.0, 1.0]), Same),
        c("seq_lo", json!([1.0, 2.0, 2.0]), Same),
        c("seq_lo", json!([0.0, 1.0, 2.5]), Same),
        c("seq_lo", json!([0.0, i32s(10), i32s(5)]), Same),
        c("seq_lo", json!([0.0, 1.0, 0.0]), Error),
        c("seq_lo", json!([0.0, 1.0, -1.0]), SameError),
        c("seq_lo", json!([0.0, 1.0, "nan"]), SameError),
        c("seq_lo", json!(["inf", 1.0, 3.0]), SameError),
        c("seq_lo", json!([0.0, "nan", 3.0]), SameError),
        c("seq_n", json!([i32s(4)]), Same),
        c("seq_n", json!([2.5]), Same),
        c("seq_n", json!([0.0]), Same),
        c("seq_n", json!([i32s(-1)]), SameError),
        c("seq_from_n", json!([2.5, 4.0]), Same),
        c("seq_from_n", json!([-1.0, i32s(1)]), Same),
        c("seq_by_n", json!([1.0, 0.1, 5.0]), Same),
        c("seq_by_n", json!([i32s(1), i32s(3), i32s(4)]), Same),
        c("seq_by_n", json!([i32s(10), true, 3.0]), Same),
        c("seq_by_n", json!([i32s(1), 0.5, i32s(3)]), Same),
        c("seq_by_n", json!([i32s(1), i32s(3), 0.0]), Same),
        c("seq_by_n", json!([i32s(2147483600), i32s(100), i32s(2)]), Error),
        c("seq_by_n", json!([1.0, 2.0, 0.0]), Error),
        c("seq_by_n", json!(["nan", 2.0, 3.0]), SameError),
        c("seq_partial", json!([5.0]), Same),
        c("seq_loop", json!([i32s(6)]), Same),
    ]
}

/// R's results for every case, and the source as R's `deparse()` prints it back.
fn run_r(cases: &[Case]) -> (Vec<Outcome>, String) {
    let dep_path = std::env::temp_dir().join(format!("vr_frontend_r_{}_deparsed.R", std::process::id()));
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
    let path = std::env::temp_dir().join(format!("vr_frontend_r_{}.R", std::process::id()));
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
    let deparsed = std::fs::read_to_string(&dep_path).expect("R wrote the deparsed functions");
    let _ = std::fs::remove_file(&dep_path);
    let outcomes = (0..cases.len()).map(|i| results.remove(&i).unwrap_or_else(|| panic!("R printed no result for case {i}:\n{stdout}"))).collect();
    (outcomes, deparsed)
}

#[test]
fn compiled_r_functions_agree_with_r() {
    let cases = cases();
    let (expected, deparsed) = run_r(&cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<Backend, usize> = HashMap::new();
    let mut skipped: HashMap<Backend, Vec<String>> = HashMap::new();
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
                (Error, _) => matches!(got, Outcome::Error(_)),
                (SameError, Outcome::Error(r_message)) => matches!(&got, Outcome::Error(m) if m.contains(r_message.as_str())),
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
                    failures.push(format!("{label}: the deparsed function gives {again:?}, the original {got:?}"));
                }
            }
            if ok {
                *passed.entry(b).or_default() += 1;
            } else {
                failures.push(format!("{label} on {b}: R gave {r_out:?}, compiled code gave {got:?}"));
            }
        }
    }
    for b in Backend::available() {
        let s = skipped.get(&b).map_or(0, |v| v.len());
        eprintln!("{b}: {} passed, {s} skipped (unsupported by the backend)", passed.get(&b).copied().unwrap_or(0));
        for line in skipped.get(&b).into_iter().flatten() {
            eprintln!("  SKIP {line}");
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert_eq!(passed.get(&Backend::Interp).copied().unwrap_or(0), cases.len(), "every case runs on the interpreter");
}
