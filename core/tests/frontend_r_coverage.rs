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
use velociraptor::backend::Backend;
use velociraptor::frontend::r;
use velociraptor::runtime::rng;
use velociraptor::runtime::value::Value;
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

#[path = "common/rscript.rs"]
mod rscript;
use rscript::{agree, Outcome};

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

/// R's results for every case.
fn run_r(cases: &[Case]) -> Vec<Outcome> {
    let calls: Vec<(&str, &Json)> = cases.iter().map(|c| (c.func, &c.args)).collect();
    rscript::run_r(SOURCE, &calls, &format!("set.seed({SEED}); "), "coverage")
}

/// What compiled code did, from the same seed as R (`set.seed(SEED)` before each call).
fn compiled(module: &velociraptor::vrir::Module, b: Backend, func: &str, values: Vec<Value>) -> Result<Outcome, VrError> {
    rng::set_seed(SEED);
    rscript::compiled(module, b, func, values)
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
