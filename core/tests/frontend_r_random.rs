//! R's random number functions compiled (core/src/frontend/r/random.rs) against R
//! itself: every case of tests/frontend_r/random.R runs in R (Rscript, during this test)
//! after `set.seed(k)` and, compiled, on every backend this build has after the built-in
//! stream was seeded the same way (`runtime::rng::set_seed`, R's default generator);
//! results must be identical bit for bit, and so must R's `.Random.seed` and the
//! stream's state afterwards. Where R errors, compiled code raises R's message; where R
//! answers with a warning (NaN for invalid parameters) or by another algorithm, compiled
//! code must raise an `unsupported` error (the R package then runs the function in R).

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::cpu::{CompiledModule, CpuOptions};
use velociraptor::frontend::r;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::rng;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::vrir::Module;
use velociraptor::{ErrorKind, VrError};

const SOURCE: &str = include_str!("frontend_r/random.R");

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// R's value and R's `.Random.seed` afterwards.
    Same,
    /// R raises an error; compiled code raises one containing R's message.
    RError,
    /// R answers (NaN with a warning, a double result, another algorithm): compiled
    /// code raises an `unsupported` error.
    Fallback,
}
use Expect::*;

struct Case {
    func: &'static str,
    args: Json,
    seed: i32,
    expect: Expect,
}

fn i32s(v: i32) -> Json {
    json!({"dtype": "i32", "data": v})
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json, seed, expect| Case {
        func,
        args,
        seed,
        expect,
    };
    let x = json!([2.5, -1.0, 7.25, 0.5, 3.0, 10.0, -4.5]);
    let xi = json!({"dtype": "i32", "shape": [5], "data": [10, 20, 30, 40, 50]});
    vec![
        c("mc_pi", json!([2000]), 7, Same),
        c("unif_n", json!([5]), 42, Same),
        c("unif_n", json!([i32s(5)]), 1, Same),
        c("unif_n", json!([0]), 1, Same),
        c("unif_n", json!([2.9]), 3, Same),
        c("unif_n", json!([[1.0, 2.0, 3.0]]), 4, Same),
        c("unif_n", json!([[4.0]]), 4, Same),
        c("unif_n", json!([-1]), 1, RError),
        c("unif_n", json!(["nan"]), 1, RError),
        c("unif_ab", json!([6, -2.0, 3.5]), 11, Same),
        c("unif_ab", json!([3, 2.0, 2.0]), 11, Same),
        c("unif_ab", json!([3, 2.0, 1.0]), 11, Fallback),
        c("unif_ab", json!([3, "-inf", 1.0]), 11, Fallback),
        c("unif_ab", json!([0, 2.0, 1.0]), 11, Same),
        c(
            "unif_ab",
            json!([5, [0.0, -10.0], [1.0, 20.0, 30.0]]),
            12,
            Same,
        ),
        c("unif_named", json!([4]), 13, Same),
        c("norm_n", json!([7]), 42, Same),
        c("norm_n", json!([1000]), 2024, Same),
        c("norm_ms", json!([5, 10.0, 0.5]), 5, Same),
        c("norm_ms", json!([3, 1.0, 0.0]), 5, Same),
        c("norm_ms", json!([3, "inf", 1.0]), 5, Same),
        c("norm_ms", json!([3, 1.0, -1.0]), 5, Fallback),
        c("norm_ms", json!([3, "nan", 1.0]), 5, Fallback),
        c("norm_ms", json!([6, [0.0, 100.0], 2.0]), 6, Same),
        c("norm_sd", json!([4, 3.0]), 8, Same),
        c("exp_n", json!([1000]), 3, Same),
        c("exp_rate", json!([5, 2.0]), 9, Same),
        c("exp_rate", json!([3, "inf"]), 9, Same),
        c("exp_rate", json!([3, 0.0]), 9, Fallback),
        c("exp_rate", json!([3, -1.0]), 9, Fallback),
        c("exp_rate", json!([4, [1.0, 0.5]]), 9, Same),
        c("exp_one", json!([0.25]), 10, Same),
        c("walk", json!([500]), 21, Same),
        c("mix", json!([6]), 22, Same),
        c("perm", json!([10]), 42, Same),
        c("perm", json!([i32s(1)]), 42, Same),
        c("perm", json!([5.7]), 42, Same),
        c("perm", json!([0.5]), 42, Fallback),
        c("perm", json!([1000]), 43, Same),
        c("perm_x", json!([x.clone()]), 30, Same),
        c("perm_x", json!([xi.clone()]), 31, Same),
        c("perm_x", json!([[5.0]]), 31, Fallback),
        c("perm_x", json!([[0.5]]), 31, Same),
        c("pick", json!([x.clone(), 3]), 32, Same),
        c("pick", json!([x.clone(), 8]), 32, RError),
        c("pick", json!([x.clone(), -1]), 32, RError),
        c("pick", json!([x.clone(), "nan"]), 32, RError),
        c("pick_r", json!([x.clone(), 20]), 33, Same),
        c("pick_r", json!([xi.clone(), i32s(9)]), 33, Same),
        c("pick_one", json!([x.clone()]), 34, Same),
        c("sint", json!([100, 10]), 35, Same),
        c("sint", json!([1e8, 3]), 35, Fallback),
        // the smallest sizes on either side of R's `useHash` test (n > 1e7, size <= n/2):
        // just over half of 1e7 + 2 values is R's do_sample (compiled), exactly half is
        // its hash algorithm (not compiled). R itself needs 12 s for sample.int(1e8, 6e7).
        c("sint", json!([10000002.0, 5000002.0]), 35, Same),
        c("sint", json!([10000002.0, 5000001.0]), 35, Fallback),
        c("sint", json!([3e9, 2]), 35, Fallback),
        c("sint", json!([0, 0]), 35, Same),
        c("sint", json!([0, 1]), 35, RError),
        c("sint", json!(["inf", 1]), 35, RError),
        c("sint", json!([1e8, -1]), 35, RError),
        c("sint_r", json!([1e9, 5]), 36, Same),
        c("sint_r", json!([2.5, 6]), 36, Same),
        c("sint_flag", json!([10, 4, true]), 37, Same),
        c("sint_flag", json!([10, 4, false]), 37, Same),
        c("dice", json!([300]), 38, Same),
        c("boot_max", json!([x.clone(), 50]), 39, Same),
    ]
}

/// A JSON argument as an R literal.
fn r_literal(j: &Json) -> String {
    let num = |v: &Json, int: bool| -> String {
        match v {
            Json::String(s) if s == "nan" => "NaN".into(),
            Json::String(s) if s == "inf" => "Inf".into(),
            Json::String(s) if s == "-inf" => "-Inf".into(),
            Json::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
            Json::Number(n) if int => format!("{}L", n),
            Json::Number(n) => {
                let f = n.as_f64().unwrap();
                format!("{f:?}")
            }
            other => panic!("not a number: {other}"),
        }
    };
    match j {
        Json::Object(o) => {
            let int = o.get("dtype").and_then(|d| d.as_str()) == Some("i32");
            match &o["data"] {
                Json::Array(items) => format!(
                    "c({})",
                    items
                        .iter()
                        .map(|v| num(v, int))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                v => num(v, int),
            }
        }
        Json::Array(items) => format!(
            "c({})",
            items
                .iter()
                .map(|v| num(v, false))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        v => num(v, false),
    }
}

/// What R did for a case.
#[derive(Debug, Clone)]
enum ROutcome {
    Value {
        ty: String,
        values: Vec<f64>,
        seed: Vec<i32>,
    },
    Error(String),
    /// R's warning message (the case must then expect a fallback).
    #[allow(dead_code)]
    Warning(String),
}

fn run_r(cases: &[Case]) -> Vec<ROutcome> {
    let mut script =
        String::from("prange <- function(n) seq_len(n)\ngpu <- function(expr) invisible(expr)\n");
    script.push_str(SOURCE);
    script.push_str(
        r#"
show <- function(id, thunk) {
  r <- tryCatch(list(ok = thunk()), warning = function(w) list(warn = conditionMessage(w)), error = function(e) list(err = conditionMessage(e)))
  if (!is.null(r$err)) cat("CASE", id, "ERROR", gsub("\n", " ", r$err), "\n")
  else if (!is.null(r$warn)) cat("CASE", id, "WARNING", gsub("\n", " ", r$warn), "\n")
  else {
    v <- r$ok
    cat("CASE", id, "VALUE", typeof(v), sprintf("%.17g", as.double(v)), "\n")
    cat("SEED", id, .Random.seed, "\n")
  }
}
"#,
    );
    for (id, c) in cases.iter().enumerate() {
        let args: Vec<String> = c.args.as_array().unwrap().iter().map(r_literal).collect();
        script.push_str(&format!(
            "set.seed({}); show({id}, function() {}({}))\n",
            c.seed,
            c.func,
            args.join(", ")
        ));
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_r_random_{}.R", std::process::id()));
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
    let mut outcomes: Vec<Option<ROutcome>> = vec![None; cases.len()];
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        match w.next() {
            Some("CASE") => {
                let id: usize = w.next().unwrap().parse().unwrap();
                outcomes[id] = Some(match w.next().unwrap() {
                    "ERROR" => ROutcome::Error(w.collect::<Vec<_>>().join(" ")),
                    "WARNING" => ROutcome::Warning(w.collect::<Vec<_>>().join(" ")),
                    _ => {
                        let ty = w.next().unwrap().to_string();
                        let values = w
                            .map(|s| match s {
                                "NaN" | "NA" => f64::NAN,
                                "Inf" => f64::INFINITY,
                                "-Inf" => f64::NEG_INFINITY,
                                s => s.parse().unwrap(),
                            })
                            .collect();
                        ROutcome::Value {
                            ty,
                            values,
                            seed: Vec::new(),
                        }
                    }
                });
            }
            Some("SEED") => {
                let id: usize = w.next().unwrap().parse().unwrap();
                let words: Vec<i32> = w.map(|s| s.parse().unwrap()).collect();
                if let Some(ROutcome::Value { seed, .. }) = &mut outcomes[id] {
                    *seed = words;
                }
            }
            _ => {}
        }
    }
    outcomes
        .into_iter()
        .enumerate()
        .map(|(i, o)| o.unwrap_or_else(|| panic!("R printed nothing for case {i}:\n{stdout}")))
        .collect()
}

fn type_name(s: velociraptor::vrir::ScalarType) -> &'static str {
    use velociraptor::vrir::ScalarType::*;
    match s {
        Bool => "logical",
        I32 | I64 => "integer",
        _ => "double",
    }
}

/// Our result as (R type, values in storage order).
fn ours(results: &[Value]) -> (String, Vec<f64>) {
    let num = |s: &Scalar| s.as_f64().unwrap();
    match results {
        [Value::Scalar(s)] => (type_name(s.ty()).into(), vec![num(s)]),
        [Value::Array(a)] => (
            type_name(a.ty.elem).into(),
            a.elements().iter().map(num).collect(),
        ),
        other => panic!("unexpected results {other:?}"),
    }
}

/// Compiled modules by (module text, backend): cases with the same argument types share
/// one compilation (what `backend::execute` does, kept across calls).
type Compiled = HashMap<(String, Backend), Result<CompiledModule, VrError>>;

/// Run `func` on `backend` after `set.seed(seed)` of the built-in stream.
fn run(
    compiled: &mut Compiled,
    key: &str,
    backend: Backend,
    m: &Module,
    func: &str,
    args: Vec<Value>,
    seed: i32,
) -> Result<Vec<Value>, VrError> {
    if !matches!(backend, Backend::Cpu | Backend::CpuPar) {
        rng::set_seed(seed);
        return backend::execute(backend, m, func, args);
    }
    let entry = compiled
        .entry((key.to_string(), backend))
        .or_insert_with(|| {
            let opts = OptOptions {
                parallel_loops: backend == Backend::CpuPar,
                ..OptOptions::current()?
            };
            let (optimized, _) = optimize(m, &opts)?;
            let mut options = if backend == Backend::CpuPar {
                CpuOptions::parallel()
            } else {
                CpuOptions::default()
            };
            options.alias_versions = opts.is_enabled("alias-version") && !opts.params_never_alias;
            velociraptor::cpu::compile_with(&optimized, options)
        });
    match entry {
        Ok(cm) => {
            rng::set_seed(seed);
            cm.call(func, args)
        }
        Err(e) => Err(e.clone()),
    }
}

fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

#[test]
fn compiled_random_numbers_are_rs() {
    let cases = cases();
    let expected = run_r(&cases);
    let mut compiled = HashMap::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!(
            "case {id}: set.seed({}); {}({})",
            c.seed,
            c.func,
            c.args
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        match (c.expect, r_out) {
            (Same, ROutcome::Value { .. })
            | (RError, ROutcome::Error(_))
            | (Fallback, ROutcome::Warning(_))
            | (Fallback, ROutcome::Value { .. }) => {}
            (e, o) => {
                failures.push(format!("{label}: the case expects {e:?} but R gave {o:?}"));
                continue;
            }
        }
        let (module, values) = match r::compile_for_json(SOURCE, c.func, c.args.as_array().unwrap())
        {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        let key = velociraptor::vrir::text::print_module(&module);
        for backend in Backend::available() {
            let got = run(
                &mut compiled,
                &key,
                backend,
                &module,
                c.func,
                values.clone(),
                c.seed,
            )
            .map_err(r::explain_error);
            checked += 1;
            let tag = format!("{label} [{backend}]");
            match (c.expect, r_out, got) {
                (
                    Same,
                    ROutcome::Value {
                        ty,
                        values: want,
                        seed,
                    },
                    Ok(res),
                ) => {
                    let (t, v) = ours(&res);
                    if &t != ty || !same(&v, want) {
                        failures.push(format!("{tag}: R gave {ty} {want:?}, compiled {t} {v:?}"));
                    }
                    let state = rng::r_seed().unwrap();
                    if &state != seed {
                        failures.push(format!(
                            "{tag}: .Random.seed differs after the call (R's position {}, ours {})",
                            seed.get(1).copied().unwrap_or(-1),
                            state[1]
                        ));
                    }
                }
                (RError, ROutcome::Error(msg), Err(e)) => {
                    if e.kind == ErrorKind::Unsupported || !e.message.contains(msg.as_str()) {
                        failures.push(format!("{tag}: R's error `{msg}`, compiled error `{e}`"));
                    }
                }
                (Fallback, _, Err(e)) if e.kind == ErrorKind::Unsupported => {}
                (_, _, got) => failures.push(format!("{tag}: R gave {r_out:?}, compiled {got:?}")),
            }
        }
    }
    assert!(checked >= cases.len(), "only {checked} runs");
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Draws inside `prange` loops or `gpu()` blocks (directly or through a called function)
/// are compile-time diagnostics naming the R function and the line.
#[test]
fn draws_in_parallel_code_are_named_diagnostics() {
    let src = "f <- function(n) {\n  x <- numeric(n)\n  for (i in prange(n)) {\n    x[i] <- runif(1)\n  }\n  x\n}\n\
               noise <- function() rnorm(1)\n\
               g <- function(n) {\n  x <- numeric(n)\n  for (i in prange(n)) x[i] <- noise()\n  x\n}\n\
               h <- function() {\n  y <- 0\n  gpu({\n    y <- sample(5, 1)\n  })\n  y\n}\n";
    let e = r::compile_for_json(src, "f", &[json!(3)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(
        e.message
            .contains("`runif` inside a `prange` loop (line 4)"),
        "{e}"
    );
    let e = r::compile_for_json(src, "g", &[json!(3)]).unwrap_err();
    assert!(
        e.message
            .contains("`rnorm` inside a `prange` loop (line 11)"),
        "{e}"
    );
    let e = r::compile_for_json(src, "h", &[]).unwrap_err();
    assert!(
        e.message
            .contains("`sample` inside a `gpu()` block (line 17)"),
        "{e}"
    );
}

/// What compiled code cannot reproduce is refused by name before anything runs.
#[test]
fn weighted_sampling_is_a_named_unsupported_construct() {
    let src = "f <- function(x) sample(x, 2, prob = c(0.5, 0.25, 0.25))\ng <- function(n) sample.int(n, 2, FALSE, c(0.5, 0.5))\n";
    for (f, arg) in [("f", json!([1.0, 2.0, 3.0])), ("g", json!(2))] {
        let e = r::compile_for_json(src, f, &[arg]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
        assert!(e.message.contains("prob ="), "{e}");
    }
}
