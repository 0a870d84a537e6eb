//! Differential test of `fusion`, `reuse` and `slice-views`: random array-style
//! functions (chains of element-wise operators over a few arrays and shifted slices of
//! one more, reassignments of one local, stores of chains into selections with a scalar
//! statement between chain and store, sums stored into an element, sums and products
//! of chains) give the same results and fail with the same error, field for
//! field, whether they run as written on the interpreter (the oracle), optimized on the
//! interpreter, or optimized on the cpu backend. Operand extents sometimes differ
//! (shape errors), integer divisors are sometimes zero and float-to-integer casts
//! sometimes overflow (element errors), so both sides of every run-time test run.
//!
//! `PROPTEST_CASES=N` sets the number of cases.
//! `PROPTEST_RNG_SEED=S` fixes the random stream (proptest reads it through
//! `ProptestConfig::default()`; unset, each run draws a fresh seed): processes given
//! different seeds run different programs, and a seed's run is repeatable, which is how
//! scripts/differential-shards.sh spreads a long run over cores.

mod common;

use proptest::prelude::*;
use velociraptor::backend::{execute, load, Backend};
use velociraptor::opt::{optimize, with_options, OptOptions};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::text::parse_type;
use velociraptor::{ErrorKind, VrError};

/// A tiny deterministic generator driven by the case's seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

struct Case {
    src: String,
    args: Vec<Value>,
}

/// An element-wise expression of depth at most `depth` over `arrays`, the scalar `s`
/// and constants, with whether it is an array.
fn tree(r: &mut Rng, int: bool, arrays: &[String], depth: u32) -> (String, bool) {
    if depth == 0 || r.below(4) == 0 {
        return match r.below(7) {
            0 => ("s".to_string(), false),
            1 if int => (format!("{}", r.below(5) as i64 - 2), false),
            1 => (format!("{}.5", r.below(5) as i64 - 2), false),
            // A shifted slice of w (the `@k` placeholder becomes its range).
            2 => (format!("@{}", shift(r)), true),
            _ => (r.pick(arrays).clone(), true),
        };
    }
    let (a, a_arr) = tree(r, int, arrays, depth - 1);
    let (b, b_arr) = tree(r, int, arrays, depth - 1);
    // Scalar subexpressions stay leaves: an operation gets an array operand.
    let a = if a_arr || b_arr {
        a
    } else {
        r.pick(arrays).clone()
    };
    let float_ops = ["+", "-", "*", "/", "sin", "neg", "max", "cast"];
    let int_ops = ["+", "-", "*", "/", "mod", "idiv", "neg", "min"];
    let op = *r.pick(if int { &int_ops } else { &float_ops });
    let (a, b) = if matches!(op, "sin" | "neg" | "cast") && !a_arr {
        (r.pick(arrays).clone(), b)
    } else {
        (a, b)
    };
    let e = match op {
        "sin" | "neg" => format!("({op} {a})"),
        // Through i64 and back: fails on values beyond i64 (and on NaN).
        "cast" => format!("(cast f64[_] (cast i64[_] (* {a} 1.0e18)))"),
        _ => format!("({op} {a} {b})"),
    };
    (e, true)
}

/// The shift of a slice of w: mostly 0 or 1 (in bounds: w is one longer than the
/// other arrays in its first dimension), sometimes 2 (past the end: an index error).
fn shift(r: &mut Rng) -> u64 {
    if r.below(12) == 0 {
        2
    } else {
        r.below(2)
    }
}

/// `(index ARRAY (range LO HI) :...)`: `len` elements of the first dimension from
/// position `from` (0-based), the other dimensions whole.
fn slice(array: &str, base: u8, from: u64, len: usize, ndims: usize) -> String {
    let lo = base as u64 + from;
    let hi = lo as i64 + len as i64 - 1;
    format!(
        "(index {array} (range {lo} {hi}){})",
        " :".repeat(ndims - 1)
    )
}

/// Replace every `@k` placeholder of `e` by the slice of w shifted by k.
fn slices(e: &str, base: u8, len: usize, ndims: usize) -> String {
    let mut out = String::new();
    let mut chars = e.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '@' {
            let k = chars.next().and_then(|d| d.to_digit(10)).unwrap_or(0) as u64;
            out.push_str(&slice("w", base, k, len, ndims));
        } else {
            out.push(c);
        }
    }
    out
}

fn case(seed: u64) -> Case {
    let mut r = Rng(seed | 1);
    let int = r.below(2) == 0;
    let elem = if int { "i64" } else { "f64" };
    let ndims = 1 + r.below(2) as usize;
    let layout = if r.below(2) == 0 { "row" } else { "col" };
    let aty = format!("{elem}[{ndims},{layout}]");
    let base = *r.pick(&[0u8, 1]);
    // Extents: mostly equal, sometimes one array differs.
    let dims: Vec<usize> = (0..ndims).map(|_| r.below(4) as usize).collect();
    let odd = if r.below(5) == 0 {
        Some(r.below(3) as usize)
    } else {
        None
    };
    let mut args = Vec::new();
    let names = ["a", "b", "c"];
    for (k, _) in names.iter().enumerate() {
        let mut d = dims.clone();
        if odd == Some(k) {
            d[0] += 1;
        }
        let n: usize = d.iter().product();
        let vals: Vec<String> = (0..n)
            .map(|_| {
                if int {
                    format!("{}", r.below(7) as i64 - 3)
                } else {
                    format!("{}.25", r.below(9) as i64 - 4)
                }
            })
            .collect();
        let json = nest(&vals, &d);
        let ty = parse_type(&aty).unwrap();
        args.push(Value::from_json(&serde_json::from_str(&json).unwrap(), &ty).unwrap());
    }
    let s = if int {
        "2".to_string()
    } else {
        "0.5".to_string()
    };
    args.push(
        Value::from_json(
            &serde_json::from_str(&s).unwrap(),
            &parse_type(elem).unwrap(),
        )
        .unwrap(),
    );

    // w: one longer in the first dimension, read through shifted slices.
    {
        let mut d = dims.clone();
        d[0] += 1;
        let n: usize = d.iter().product();
        let vals: Vec<String> = (0..n)
            .map(|_| {
                if int {
                    format!("{}", r.below(7) as i64 - 3)
                } else {
                    format!("{}.75", r.below(9) as i64 - 4)
                }
            })
            .collect();
        let ty = parse_type(&aty).unwrap();
        args.push(Value::from_json(&serde_json::from_str(&nest(&vals, &d)).unwrap(), &ty).unwrap());
    }

    let mut arrays: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let mut body = String::new();
    let mut temps: Vec<String> = Vec::new();
    let stmts = 1 + r.below(4);
    for _ in 0..stmts {
        let target = if r.below(2) == 0 { "x" } else { "y" };
        let (e, is_array) = tree(&mut r, int, &arrays, 3);
        let e = e.replace("[_]", &format!("[{ndims},{layout}]"));
        // A bare variable or scalar is no operation: add an array operand.
        let e = if is_array && e.starts_with('(') {
            e
        } else {
            format!("(+ {e} a)")
        };
        let e = slices(&e, base, dims[0], ndims);
        let line = 3 + body.lines().count();
        match r.below(6) {
            // A store into a selection of x (x as long as a; from position 1 it runs
            // past x's end when the value is as long as a: an index or shape error).
            0 if arrays.iter().any(|v| v == "x") => {
                // The chain into a temporary read once, a scalar statement, the store
                // (what fusion steps over: R's index temporaries).
                let t = format!("t{}", temps.len() + 1);
                temps.push(t.clone());
                let from = r.below(4) / 3;
                let lo = base as u64 + from;
                let off = lo as i64 - 1;
                let whole = " :".repeat(ndims - 1);
                body.push_str(&format!(
                    "    (set {t} {e} :line {line})\n    (set k {} :line {line})\n    (set (index x (range {lo} (+ k {off})){whole}) (* {t} 2{}) :line {line})\n",
                    dims[0],
                    if int { "" } else { ".0" }
                ));
                continue;
            }
            // A sum stored into one element of x.
            1 if arrays.iter().any(|v| v == "x") && ndims == 1 => {
                body.push_str(&format!(
                    "    (set (index x {base}) (sum {e}) :line {line})\n"
                ));
                continue;
            }
            _ => {}
        }
        body.push_str(&format!("    (set {target} {e} :line {line})\n"));
        if !arrays.iter().any(|x| x == target) {
            arrays.push(target.to_string());
        }
    }
    let last = arrays.last().unwrap().clone();
    let (result, ret) = match r.below(3) {
        0 => (elem.to_string(), format!("(sum (* {last} {last}))")),
        1 if int => (elem.to_string(), format!("(prod (+ {last} 1))")),
        _ => (
            aty.clone(),
            format!("(+ {last} (* a 2{}))", if int { "" } else { ".0" }),
        ),
    };
    let temp_locals: String = temps.iter().map(|t| format!(" ({t} {aty})")).collect();
    let src = format!(
        "(module m :index-base {base}
  (function f ((a {aty}) (b {aty}) (c {aty}) (s {elem}) (w {aty})) ({result})
    (locals (x {aty}) (y {aty}) (k i64){temp_locals})
    (set x (* a s))
    (set y (- b s))
{body}    (return {ret})))"
    );
    Case { src, args }
}

/// Nested JSON lists of `vals` (logical order) with extents `d`.
fn nest(vals: &[String], d: &[usize]) -> String {
    if d.len() == 1 {
        return format!("[{}]", vals.join(", "));
    }
    let inner: usize = d[1..].iter().product();
    let rows: Vec<String> = (0..d[0])
        .map(|i| nest(&vals[i * inner..(i + 1) * inner], &d[1..]))
        .collect();
    format!("[{}]", rows.join(", "))
}

type Outcome = (Result<Vec<Value>, VrError>, Vec<Value>);

fn run(backend: Backend, src: &str, args: &[Value], opts: Option<OptOptions>) -> Outcome {
    let m = load(src).unwrap();
    let fresh: Vec<Value> = args
        .iter()
        .map(|v| match v {
            Value::Array(a) => Value::Array(a.copy_as(a.ty.layout)),
            other => other.clone(),
        })
        .collect();
    let after = fresh.clone();
    let call = || execute(backend, &m, "f", fresh);
    let result = match opts {
        Some(o) => with_options(o, call),
        None => call(),
    };
    (result, after)
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    let values =
        |x: &[Value], y: &[Value]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.same(q));
    let results = match (&a.0, &b.0) {
        (Ok(x), Ok(y)) => values(x, y),
        (Err(x), Err(y)) => x == y,
        _ => false,
    };
    results && values(&a.1, &b.1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(64), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fused_and_reused_programs_behave_as_written(seed in any::<u64>()) {
        let c = case(seed);
        let (_, stats) = optimize(&load(&c.src).unwrap(), &OptOptions::all()).unwrap();
        let oracle = run(Backend::Interp, &c.src, &c.args, None);
        let interp = run(Backend::Interp, &c.src, &c.args, Some(OptOptions::all()));
        prop_assert!(same(&interp, &oracle), "optimized interp: {:?}\noracle: {:?}\n{}\n{stats}", interp.0, oracle.0, c.src);
        let cpu = run(Backend::Cpu, &c.src, &c.args, Some(OptOptions::all()));
        let not_compiled = matches!(&cpu.0, Err(e) if e.kind == ErrorKind::Unsupported);
        prop_assert!(not_compiled || same(&cpu, &oracle), "optimized cpu: {:?}\noracle: {:?}\n{}\n{stats}", cpu.0, oracle.0, c.src);
    }
}

/// The generator exercises what it is for: over a fixed set of seeds the passes fuse,
/// fuse reductions and reuse buffers, and some calls fail.
#[test]
fn the_generated_programs_are_fused_reused_and_sometimes_fail() {
    let (mut fused, mut reduced, mut reused, mut failed) = (0, 0, 0, 0);
    let mut viewed = 0;
    for seed in 0..64u64 {
        let c = case(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (_, stats) = optimize(&load(&c.src).unwrap(), &OptOptions::all()).unwrap();
        fused += stats.total("fusion", "ops_fused");
        reduced += stats.total("fusion", "reductions_fused");
        reused += stats.total("reuse", "buffers_reused");
        viewed += stats.total("slice-views", "slices_viewed");
        failed += run(Backend::Interp, &c.src, &c.args, None).0.is_err() as u32;
    }
    eprintln!("64 programs: {fused} operations fused, {reduced} reductions fused, {reused} buffers reused, {viewed} slices viewed, {failed} calls failed");
    assert!(
        fused > 0 && reduced > 0 && reused > 0 && viewed > 0,
        "fused {fused}, reductions {reduced}, reused {reused}, viewed {viewed}"
    );
    assert!(failed > 0 && failed < 64, "{failed} of 64 calls failed");
}
