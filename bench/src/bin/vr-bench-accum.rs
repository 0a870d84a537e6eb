//! `vr-bench-accum`: what R's long double costs compiled code (issue 23). R accumulates
//! `sum`, `mean`, `cumsum`, `colSums` & co. in the x87 80-bit format, which has no
//! vector instructions; the R front end now compiles them with `:acc f80` to match R bit
//! for bit. This times each reduction on the `cpu` backend with an `f80` accumulator and
//! with a plain `f64` one (what compiled code did before, and what an explicit R loop
//! still does), and R's own function on data of the same size (Rscript, when present),
//! side by side: medians of several runs, each call including the arguments' marshalling
//! (the same for both compiled versions).
//!
//! `mean` is R's two-pass mean: its second pass subtracts an 80-bit mean that is not a
//! double, and x87 arithmetic on such operands is about 10x slower on the AMD EPYC we
//! measured (gcc's `long double` loop, R's own C code, is exactly as slow).
//!
//! Usage: vr-bench-accum [--n N] [--reps R] [--no-r]

use std::process::Command;
use std::time::Instant;
use velociraptor::cpu;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::{contiguous_strides, Array, Buffer, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

/// One VRIR function per (reduction, accumulator): `ACC` is replaced by `:acc f80` or
/// by nothing.
const KERNELS: &str = "(module accum :index-base 1
  (function sum ((x f64[1,col])) (f64) (locals) (return (sum x ACC)))
  (function mean ((x f64[1,col])) (f64) (locals) (return (mean-refined x ACC)))
  (function cumsum ((x f64[1,col])) (f64[1,col]) (locals) (return (cumsum x ACC)))
  (function prod ((x f64[1,col])) (f64) (locals) (return (prod x ACC)))
  (function colsums ((a f64[2,col])) (f64[1,col]) (locals) (return (sum a :axis 0 ACC)))
  (function rowsums ((a f64[2,col])) (f64[1,col]) (locals) (return (sum a :axis 1 ACC)))
  (function colmeans ((a f64[2,col])) (f64[1,col]) (locals) (return (mean a :axis 0 ACC))))";

/// (kernel, R expression timed, whether it takes the matrix).
const CASES: [(&str, &str, bool); 7] = [
    ("sum", "sum(x)", false),
    ("mean", "mean(x)", false),
    ("cumsum", "cumsum(x)", false),
    ("prod", "prod(f)", false),
    ("colsums", "colSums(a)", true),
    ("rowsums", "rowSums(a)", true),
    ("colmeans", "colMeans(a)", true),
];

fn col_array(dims: Vec<usize>, data: Vec<f64>) -> Array {
    Array {
        ty: ArrayType::new(ScalarType::F64, dims.len() as u32, Layout::Col),
        strides: contiguous_strides(&dims, Layout::Col),
        dims,
        offset: 0,
        data: std::rc::Rc::new(std::cell::RefCell::new(Buffer::F64(data))),
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// R's medians (milliseconds) for each case, on data of the same sizes.
fn r_times(n: usize, side: usize, reps: usize) -> Option<Vec<f64>> {
    let mut script = format!(
        "set.seed(1); x <- runif({n}, -1, 1) * 10^sample(-8:7, {n}, TRUE)\n\
         f <- exp(runif({n}, -1e-3, 1e-3)); a <- matrix(runif({side}^2), {side})\n\
         t <- function(e) median(sapply(1:{reps}, function(i) system.time(for (k in 1:5) eval(e))[[3]] / 5))\n"
    );
    for (_, expr, _) in CASES {
        script.push_str(&format!("cat(t(quote({expr})) * 1e3, \"\\n\")\n"));
    }
    let out = Command::new("Rscript").args(["--vanilla", "-e", &script]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<f64> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    (v.len() == CASES.len()).then_some(v)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (n, reps) = (arg("--n", 1_000_000), arg("--reps", 9));
    let side = (n as f64).sqrt() as usize;
    let build = |acc: &str| {
        let m = parse_module(&KERNELS.replace("ACC", acc)).expect("kernels parse");
        let (m, _) = optimize(&m, &OptOptions::all()).expect("optimizes");
        cpu::compile(&m).expect("compiles")
    };
    let (wide, plain) = (build(":acc f80"), build(""));
    // Values spanning 16 orders of magnitude; factors near 1 for the product.
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut unit = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let x: Vec<f64> = (0..n).map(|_| (2.0 * unit() - 1.0) * 10f64.powi((unit() * 16.0) as i32 - 8)).collect();
    let f: Vec<f64> = (0..n).map(|_| (2e-3 * unit() - 1e-3).exp()).collect();
    let a: Vec<f64> = (0..side * side).map(|_| unit()).collect();
    let r = if args.iter().any(|a| a == "--no-r") { None } else { r_times(n, side, reps) };
    println!(
        "n = {n} (matrices {side} x {side}), medians of {reps} runs; cpu backend, one thread"
    );
    println!(
        "{:<10}{:>10}{:>12}{:>12}{:>12}{:>12}",
        "function", "R ms", "f80 ms", "f64 ms", "f80/f64", "R/f80"
    );
    for (name, _, matrix) in CASES {
        let arg = if matrix {
            col_array(vec![side, side], a.clone())
        } else if name == "prod" {
            col_array(vec![n], f.clone())
        } else {
            col_array(vec![n], x.clone())
        };
        let time = |c: &cpu::CompiledModule| {
            let mut ts = Vec::with_capacity(reps);
            for _ in 0..reps {
                let t = Instant::now();
                c.call(name, vec![Value::Array(arg.clone())]).expect("runs");
                ts.push(t.elapsed().as_secs_f64() * 1e3);
            }
            median(ts)
        };
        let (t80, t64) = (time(&wide), time(&plain));
        let r_ms = r.as_ref().map(|v| v[CASES.iter().position(|c| c.0 == name).unwrap()]);
        let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        println!(
            "{name:<10}{:>10}{t80:>12.3}{t64:>12.3}{:>12.2}{:>12}",
            show(r_ms),
            t80 / t64,
            r_ms.map_or("-".to_string(), |r| format!("{:.2}", r / t80)),
        );
    }
    if r.is_none() {
        println!("(no R timings: Rscript missing or --no-r)");
    }
}
