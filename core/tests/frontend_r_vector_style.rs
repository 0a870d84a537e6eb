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
use velociraptor::backend::Backend;
use velociraptor::frontend::r;
use velociraptor::opt::{optimize, with_options, OptOptions};
use velociraptor::ErrorKind;

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

#[path = "common/rscript.rs"]
mod rscript;
use rscript::{agree, compiled, Outcome};

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
    let a54 = json!({"dtype": "f64", "shape": [5, 4], "data": [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.5]]});
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
        c("seq_stencil", json!([a54.clone()]), Same),
        c("seq_stencil", json!([json!({"dtype": "f64", "shape": [3, 3], "data": [[1.5, 2.5, 3.5], [4.5, 5.5, 6.5], [7.5, 8.5, 9.5]]})]), Fallback),
        c("seq_stencil", json!([json!({"dtype": "f64", "shape": [2, 2], "data": [[1.0, 2.0], [3.0, 4.0]]})]), Error),
        c("seq_rows", json!([a54.clone(), i32s(4)]), Same),
        c("seq_rows", json!([a54.clone(), i32s(1)]), Same),
        c("seq_rows", json!([a54.clone(), i32s(0)]), Fallback),
        c("seq_rows", json!([a54.clone(), i32s(5)]), Error),
        c("seq_changed", json!([a54.clone(), i32s(3)]), Same),
        c("seq_changed", json!([a54, i32s(4)]), Same),
    ]
}

/// R's results for every case.
fn run_r(cases: &[Case]) -> Vec<Outcome> {
    let calls: Vec<(&str, &Json)> = cases.iter().map(|c| (c.func, &c.args)).collect();
    rscript::run_r(SOURCE, &calls, "", "vector_style")
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
    // The example: the guards between m, d and r2 go under one test of m's
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

/// `seq-ranges`' count on `func` compiled for `args`, and the slices `slice-views` reads
/// in place with and without it.
fn seq_counts(func: &str, args: Json) -> (u64, u64, u64) {
    let (module, _) = r::compile_for_json(SOURCE, func, args.as_array().unwrap()).expect("compiles");
    let (_, on) = optimize(&module, &OptOptions::all()).expect("optimizes");
    let (_, off) = optimize(&module, &OptOptions::parse("-seq-ranges").expect("a pass name")).expect("optimizes");
    (on.total("seq-ranges", "subscripts_to_ranges"), on.total("slice-views", "slices_viewed"), off.total("slice-views", "slices_viewed"))
}

#[test]
fn sequence_subscripts_become_ranges() {
    let a = json!({"dtype": "f64", "shape": [4, 4], "data": [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]});
    // b[I, J] and the five reads, each with two subscripts: 12; the five reads are then
    // slices read in place (gathers copy: none without the pass).
    let (ranges, viewed, viewed_before) = seq_counts("seq_stencil", json!([a.clone()]));
    assert_eq!(ranges, 12);
    assert_eq!((viewed, viewed_before), (5, 0));
    // I <- 2:k read as I and I + 1.
    assert_eq!(seq_counts("seq_rows", json!([a.clone(), i32s(3)])).0, 2);
    // Changed after the fill: I[1] <- 3L changes I, a copy of the filled vector (the
    // front end copies before a store), and K <- J; K[2] <- 1L changes K, a copy of J:
    // only a[J, 2] reads a sequence.
    assert_eq!(seq_counts("seq_changed", json!([a, i32s(3)])).0, 1);
}
