//! Random R functions (tests/common/rgen.rs, each made from a seed) run by R itself and
//! by the compiled path on every backend, compared value for value and error for error
//! (issue 21, differential testing at volume).
//!
//! All programs of a run go to one Rscript process (R starts once), each called inside
//! `tryCatch`. Warnings stay warnings (not `options(warn = 2)`): R's answer with a
//! warning (an integer overflow's NA, `sqrt(-1)`'s NaN) is the answer to match. For each
//! program and backend the outcome is one of:
//! - agreed: the same type, dims and values (floats bit for bit, the sign of zero
//!   included; NA and NaN are one, docs/frontend-r.md), or R's error with R's message in
//!   ours (kind other than `unsupported`);
//! - error in other words: both raise an error (ours not `unsupported`), but ours does
//!   not carry R's message (R's builtins each word a bad count their own way, `invalid
//!   'length' argument`, `argument must be coercible to non-negative integer`; ours says
//!   `a negative length or count (R: invalid argument)`): counted by message pair;
//! - unsupported: the compile or the run stopped with kind `unsupported` (the R package
//!   then runs the function in R, so the user gets R's answer): counted by reason;
//! - refused: R raised an error and the compile failed with another kind (a type error
//!   R only finds when it runs the line): counted, not a mismatch;
//! - mismatch: anything else (another value, a value where R errs, an error where R
//!   answers, other words for R's error, a panic). The test fails on any.
//!
//! `VR_R_PROGRAMS=N` sets the count (default 300, 10,000 with `VR_LONG_TESTS=1`),
//! `VR_R_SEED=S` the first seed (programs are seeds S, S+1, ...), `VR_R_BACKENDS=interp,cpu`
//! the backends. By default every program runs on interp (the front end's semantics,
//! what R is compared with, are in the VRIR it makes), every fourth (seeds divisible by
//! 4) also on cpu, every sixteenth on cpu-par and gpu too: a cpu run costs an LLVM
//! compile (about 0.14 s of CPU in this debug build, cpu-par and gpu about 0.2 s), an
//! interp run a millisecond, and that the backends agree on VRIR is what
//! generated_programs.rs tests at volume; what cpu-par and gpu add over cpu (parallel
//! loops, GPU sections) the generator does not write (`prange`, `gpu()`).

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

mod common;

#[path = "common/rscript.rs"]
mod rscript;

use common::rgen::{program, Program};
use rscript::{compiled, r_literal, Outcome};
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::Command;
use std::time::Instant;
use velociraptor::backend::Backend;
use velociraptor::frontend::r;
use velociraptor::{ErrorKind, VrError};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn program_count() -> u64 {
    env_u64("VR_R_PROGRAMS").unwrap_or(if std::env::var("VR_LONG_TESTS").is_ok_and(|v| v == "1") {
        10_000
    } else {
        300
    })
}

/// The backends a program runs on.
fn backends(seed: u64) -> Vec<Backend> {
    match std::env::var("VR_R_BACKENDS") {
        Ok(list) => Backend::available()
            .into_iter()
            .filter(|b| list.split(',').any(|n| n.trim() == b.name()))
            .collect(),
        Err(_) if seed.is_multiple_of(16) => Backend::available(),
        Err(_) if seed.is_multiple_of(4) => Backend::available()
            .into_iter()
            .filter(|b| matches!(b, Backend::Interp | Backend::Cpu))
            .collect(),
        Err(_) => vec![Backend::Interp],
    }
}

/// R's outcome of each program, called once with its arguments, all in one Rscript.
fn run_in_r(programs: &[Program]) -> Vec<Outcome> {
    let mut script = String::from(
        r#"emit <- function(id, r) {
  if (is.null(r)) { cat("CASE", id, "NULL\n"); return(invisible()) }
  d <- if (is.null(dim(r))) length(r) else dim(r)
  v <- as.vector(r)
  g <- function(x) ifelse(is.na(x) & !is.nan(x), "NaN", sprintf("%.17g", x))
  vals <- if (is.logical(v)) ifelse(is.na(v), "NaN", ifelse(v, "1", "0")) else g(as.double(v))
  cat("CASE", id, "OK", typeof(r), length(d), d, vals, "\n")
}
run <- function(id, thunk) {
  r <- tryCatch(thunk(), error = function(e) structure(list(conditionMessage(e)), class = "r_err"))
  if (inherits(r, "r_err")) cat("CASE", id, "ERROR", gsub("\n", " ", r[[1]]), "\n") else emit(id, r)
}
"#,
    );
    for (id, p) in programs.iter().enumerate() {
        let args: Vec<String> = p.args.as_array().unwrap().iter().map(r_literal).collect();
        script.push_str(&p.source(&format!("f_{id}")));
        script.push_str(&format!(
            "run({id}, function() f_{id}({}))\n",
            args.join(", ")
        ));
    }
    // R runs without its byte compiler (`R_ENABLE_JIT=0`): a compiled closure's constant
    // pool merges 0.0 and -0.0 (they are `identical`), so in a function holding both
    // `(3 - x) / (-0.0)` divides by +0 and gives +Inf where R's own evaluator, and IEEE,
    // give -Inf (found by these programs, seed 3557). Compiled code follows the
    // evaluator; the sign of zero is then compared exactly.
    let path = rscript::scratch_script("vr_random_programs");
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("Rscript")
        .env("R_ENABLE_JIT", "0")
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
            "ERROR" => Outcome::Error(w.collect::<Vec<_>>().join(" ")),
            _ => {
                let ty = w.next().unwrap().to_string();
                let nd: usize = w.next().unwrap().parse().unwrap();
                let dims: Vec<usize> = (0..nd)
                    .map(|_| w.next().unwrap().parse().unwrap())
                    .collect();
                let parse = |s: &str| -> f64 {
                    match s {
                        "NaN" => f64::NAN,
                        "Inf" => f64::INFINITY,
                        "-Inf" => f64::NEG_INFINITY,
                        s => s.parse().unwrap(),
                    }
                };
                Outcome::Value {
                    ty,
                    dims,
                    values: w.map(|s| (parse(s), 0.0)).collect(),
                }
            }
        };
        results.insert(id, outcome);
    }
    (0..programs.len())
        .map(|i| {
            results
                .remove(&i)
                .unwrap_or_else(|| panic!("R printed no result for program {i}"))
        })
        .collect()
}

/// Bit for bit, the sign of zero included; any NaN equals any NaN (NA and NaN are one in
/// compiled code: docs/frontend-r.md).
fn same_double(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn same_value(r: &Outcome, us: &Outcome) -> bool {
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
                && v1.len() == v2.len()
                && v1.iter().zip(v2).all(|(a, b)| same_double(a.0, b.0))
        }
        _ => false,
    }
}

/// A reason for the counts: the message without its numbers and names of locals.
fn reason(e: &VrError) -> String {
    let mut s: String = e
        .message
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    if let Some(cut) = s.find(" (line") {
        s.truncate(cut);
    }
    let mut out: String = s.chars().take(70).collect();
    while out.contains("##") {
        out = out.replace("##", "#");
    }
    out
}

#[derive(Default)]
struct Tally {
    generated: u64,
    compiled: u64,
    runs: u64,
    agreed_values: u64,
    agreed_errors: u64,
    /// Both raise an error (ours not `unsupported`), in other words than R's.
    error_words: BTreeMap<String, u64>,
    refused_r_errs: u64,
    unsupported_compile: BTreeMap<String, u64>,
    unsupported_run: BTreeMap<String, u64>,
    mismatches: Vec<String>,
    /// Seconds compiling (front end and VRIR checks), and running on each backend
    /// (the backend's own compile included).
    compile_s: f64,
    run_s: BTreeMap<&'static str, (u64, f64)>,
}

fn describe(p: &Program, what: &str) -> String {
    let args: Vec<String> = p.args.as_array().unwrap().iter().map(r_literal).collect();
    format!(
        "seed {}: {what}\n  f <- {}\n  f({})",
        p.seed,
        p.function.replace('\n', "\n  "),
        args.join(", ")
    )
}

fn check(p: &Program, r_out: &Outcome, backends: &[Backend], t: &mut Tally) {
    let args: Vec<Json> = p.args.as_array().unwrap().clone();
    let source = p.source("f");
    let clock = Instant::now();
    let compiled_module = catch_unwind(AssertUnwindSafe(|| {
        r::compile_for_json(&source, "f", &args)
    }));
    t.compile_s += clock.elapsed().as_secs_f64();
    let (module, values) = match compiled_module {
        Err(_) => {
            t.mismatches.push(describe(p, "the compiler panicked"));
            return;
        }
        Ok(Err(e)) if e.kind == ErrorKind::Unsupported => {
            *t.unsupported_compile.entry(reason(&e)).or_default() += 1;
            return;
        }
        Ok(Err(e)) => {
            if matches!(r_out, Outcome::Error(_)) {
                t.refused_r_errs += 1;
            } else {
                t.mismatches.push(describe(
                    p,
                    &format!("R gives {r_out:?}, compiling fails: {e}"),
                ));
            }
            return;
        }
        Ok(Ok(x)) => x,
    };
    t.compiled += 1;
    for &b in backends {
        t.runs += 1;
        let clock = Instant::now();
        let got = catch_unwind(AssertUnwindSafe(|| {
            compiled(&module, b, "f", values.clone())
        }));
        let spent = t.run_s.entry(b.name()).or_default();
        spent.0 += 1;
        spent.1 += clock.elapsed().as_secs_f64();
        match (got, r_out) {
            (Err(_), _) => t.mismatches.push(describe(p, &format!("{b} panicked"))),
            (Ok(Err(e)), _) if e.kind == ErrorKind::Unsupported => {
                *t.unsupported_run.entry(reason(&e)).or_default() += 1
            }
            (Ok(Err(e)), Outcome::Error(m)) if e.to_string().contains(m.as_str()) => {
                t.agreed_errors += 1
            }
            (Ok(Err(e)), Outcome::Error(m)) => {
                *t.error_words
                    .entry(format!("R: {m} / ours: {}", reason(&e)))
                    .or_default() += 1
            }
            (Ok(Ok(v)), _) if same_value(r_out, &v) => t.agreed_values += 1,
            (Ok(got), _) => t.mismatches.push(describe(
                p,
                &format!(
                    "on {b}: R gives {r_out:?}, compiled code {:?}",
                    got.map_err(|e| e.to_string())
                ),
            )),
        }
    }
}

fn print_counts(title: &str, counts: &BTreeMap<String, u64>) {
    let total: u64 = counts.values().sum();
    eprintln!("{title}: {total}");
    let mut by_count: Vec<_> = counts.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1));
    for (reason, n) in by_count {
        eprintln!("  {n:>6}  {reason}");
    }
}

#[test]
fn random_r_programs_agree_with_r() {
    let count = program_count();
    let first = env_u64("VR_R_SEED").unwrap_or(0);
    let programs: Vec<Program> = (first..first + count).map(program).collect();
    let start = Instant::now();
    // R's side in batches, so that one Rscript holds a bounded script.
    let mut r_outcomes = Vec::with_capacity(programs.len());
    for chunk in programs.chunks(5000) {
        r_outcomes.extend(run_in_r(chunk));
    }
    let r_time = start.elapsed();
    let mut t = Tally {
        generated: count,
        ..Tally::default()
    };
    for (k, (p, r_out)) in programs.iter().zip(&r_outcomes).enumerate() {
        check(p, r_out, &backends(p.seed), &mut t);
        if (k + 1) % 1000 == 0 {
            eprintln!(
                "{} programs checked, {} mismatches ({:.0} s)",
                k + 1,
                t.mismatches.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    let r_values = r_outcomes
        .iter()
        .filter(|o| !matches!(o, Outcome::Error(_)))
        .count();
    eprintln!(
        "random R programs (seeds {first}..{}): {} generated; R: {r_values} values, {} errors ({:.1} s); {} compiled; {} runs: {} agreed values, {} agreed errors; {} refused at compile time where R errs ({:.1} s in all)",
        first + count,
        t.generated,
        programs.len() - r_values,
        r_time.as_secs_f64(),
        t.compiled,
        t.runs,
        t.agreed_values,
        t.agreed_errors,
        t.refused_r_errs,
        start.elapsed().as_secs_f64()
    );
    eprintln!(
        "time: front end {:.1} s; {}",
        t.compile_s,
        t.run_s
            .iter()
            .map(|(b, (n, s))| format!("{b} {n} runs {s:.1} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut r_errors: BTreeMap<String, u64> = BTreeMap::new();
    for o in &r_outcomes {
        if let Outcome::Error(m) = o {
            *r_errors.entry(m.chars().take(70).collect()).or_default() += 1;
        }
    }
    print_counts("R's errors (programs)", &r_errors);
    print_counts("errors where R errs, in other words (runs)", &t.error_words);
    print_counts(
        "unsupported at compile time (programs)",
        &t.unsupported_compile,
    );
    print_counts("unsupported at run time (runs)", &t.unsupported_run);
    eprintln!("mismatches: {}", t.mismatches.len());
    assert!(
        t.mismatches.is_empty(),
        "{} mismatch(es):\n{}",
        t.mismatches.len(),
        t.mismatches
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// Run one hand-written function through `check`: its outcome on every backend.
fn check_one(function: &str, args: Json) -> Tally {
    let p = Program {
        seed: 0,
        function: function.into(),
        args,
    };
    let r_out = run_in_r(std::slice::from_ref(&p)).remove(0);
    let mut t = Tally::default();
    check(&p, &r_out, &Backend::available(), &mut t);
    t
}

/// The bugs the random programs found, shrunk: R answers with NA (`as.integer` of a
/// double outside R's integers, or of NaN) or with -Inf/Inf (`max`/`min` of nothing),
/// and compiled code raised a plain run-time error (`invalid cast`, `empty reduction`),
/// so the R package reported an error where R has a value. Now kind `unsupported` (the
/// call runs in R); in-range values still compile and agree.
#[test]
fn regressions_found_by_random_programs() {
    let f64s = |v: &[f64]| {
        // Non-finite values as the strings the JSON argument form reads ("nan", "inf").
        let data: Vec<Json> = v
            .iter()
            .map(|x| match x {
                x if x.is_nan() => Json::from("nan"),
                x if *x == f64::INFINITY => Json::from("inf"),
                x if *x == f64::NEG_INFINITY => Json::from("-inf"),
                x => Json::from(*x),
            })
            .collect();
        serde_json::json!({"dtype": "f64", "shape": [v.len()], "data": data})
    };
    let cases: Vec<(&str, Json, &str)> = vec![
        (
            "function(x) as.integer(x)",
            serde_json::json!([1e10]),
            "unsupported",
        ),
        (
            "function(x) as.integer(x)",
            serde_json::json!([-2147483648.0]),
            "unsupported",
        ),
        (
            "function(x) as.integer(x)",
            serde_json::json!(["nan"]),
            "unsupported",
        ),
        (
            "function(x) as.integer(x)",
            serde_json::json!([f64s(&[1.5, 3e9])]),
            "unsupported",
        ),
        (
            "function(x) as.integer(x)",
            serde_json::json!([-2147483647.9]),
            "agreed",
        ),
        (
            "function(x) as.integer(x)",
            serde_json::json!([f64s(&[1.5, -2.5, 2147483647.0])]),
            "agreed",
        ),
        (
            "function(x) matrix(1, 2L, max(min(as.integer(x), 6L), -1L))",
            serde_json::json!([1e10]),
            "unsupported",
        ),
        (
            "function(x) max(x)",
            serde_json::json!([f64s(&[])]),
            "unsupported",
        ),
        (
            "function(x) min(x)",
            serde_json::json!([f64s(&[])]),
            "unsupported",
        ),
        (
            "function(x) range(x)",
            serde_json::json!([f64s(&[])]),
            "unsupported",
        ),
        (
            "function(x) max(x) + min(x)",
            serde_json::json!([f64s(&[2.0, -1.0])]),
            "agreed",
        ),
        // R's double %% and %/% finish in long double (8 %% 0.001, 1 %/% 0.1), treat an
        // infinite divisor their own way (1 %% -Inf is -Inf) and never give -0 from
        // %/%; compiled code had given 0, 10, NaN and -0. Whole operands below 2^31 are
        // exact both ways and compile; any other operand runs the call in R.
        ("function(x, y) x %% y", serde_json::json!([8.0, 0.001]), "unsupported"),
        ("function(x, y) x %/% y", serde_json::json!([1.0, 0.1]), "unsupported"),
        ("function(x, y) x %% y", serde_json::json!([1.0, "-inf"]), "unsupported"),
        ("function(x, y) x %% y", serde_json::json!([f64s(&[7.0, -7.0, 0.0, -0.0, 5.0]), f64s(&[-3.0, 3.0, -5.0, 5.0, 0.0])]), "agreed"),
        ("function(x, y) x %/% y", serde_json::json!([f64s(&[0.0, -0.0, 7.0, -7.0, 5.0, -2.0]), f64s(&[-1.0, 5.0, -3.0, 2.0, 0.0, 5.0])]), "agreed"),
        ("function(x, y) x %/% y", serde_json::json!([f64s(&[2147483647.0, -2147483647.0]), 3.0]), "agreed"),
        // R's ^ (R_pow): NaN for a negative base with an infinite exponent and for -Inf
        // with a fractional one, +0 and +Inf from a zero base whatever the signs; C's pow
        // had given Inf, 0, -0 and -Inf.
        ("function(x, y) x ^ y", serde_json::json!([f64s(&[f64::NEG_INFINITY, -0.5, -1.0, -2.0]), f64s(&[0.5, f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY])]), "agreed"),
        ("function(x, y) 1 / x ^ y", serde_json::json!([f64s(&[-0.0, -0.0, -0.0, f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0]), f64s(&[3.0, -1.0, 1.0, -3.0, 3.0, -2.0])]), "agreed"),
        ("function(x, y) x ^ y", serde_json::json!([f64s(&[2.0, -8.0, 1.0, f64::NAN, 0.0, 4.0]), f64s(&[0.5, 1.0 / 3.0, f64::NAN, 0.0, f64::NAN, -0.5])]), "agreed"),
    ];
    for (function, args, expect) in cases {
        let t = check_one(function, args.clone());
        let got = if !t.mismatches.is_empty() {
            t.mismatches.join("\n")
        } else if t.agreed_values + t.agreed_errors == t.runs && t.runs > 0 {
            "agreed".into()
        } else if t.unsupported_run.values().sum::<u64>() == t.runs && t.runs > 0 {
            "unsupported".into()
        } else {
            format!(
                "mixed: {} runs, {:?}, {:?}",
                t.runs, t.unsupported_run, t.error_words
            )
        };
        assert_eq!(got, expect, "{function} with {args}");
    }
}
