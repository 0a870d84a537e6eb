//! `vr-bench-fusion`: what `fusion` and `reuse` are worth on array-style code (the
//! kernels of `vr-bench` are written as loops, which these passes leave alone). Each
//! kernel below is written the way R or NumPy code is, with whole-array operators; it
//! is compiled for the cpu backend with all passes, with `-fusion`, with `-reuse`, and
//! with both off. Before timing, every configuration's results must equal those with
//! both passes off bit for bit (and, at a small size, the interpreter's). Rows are
//! medians of interleaved repetitions; never used for timed assertions.
//!
//! Usage: vr-bench-fusion [--n N] [--reps R] [--par] (`--par`: the cpu-par backend)

use std::process::ExitCode;
use std::time::Instant;
use velociraptor::cpu;
use velociraptor::interp;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::{Array, Buffer, Scalar, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

/// arc_distance as NumPy writes it (the Python numeric benchmark suite's version).
const ARC: &str = "(module arc :index-base 0
  (function arc ((t1 f64[1,row]) (p1 f64[1,row]) (t2 f64[1,row]) (p2 f64[1,row])) (f64[1,row])
    (locals (st f64[1,row]) (sp f64[1,row]) (temp f64[1,row]) (d f64[1,row]))
    (set st (sin (/ (- t2 t1) 2.0)))
    (set sp (sin (/ (- p2 p1) 2.0)))
    (set temp (+ (* st st) (* (* (cos t1) (cos t2)) (* sp sp))))
    (set d (* 2.0 (atan2 (sqrt temp) (sqrt (- 1.0 temp)))))
    (return d)))";

/// A sum of a map: sum(x*x + 2x + 1).
const SUMSQ: &str = "(module sumsq :index-base 0
  (function sumsq ((x f64[1,row]) (t1 f64[1,row]) (t2 f64[1,row]) (t3 f64[1,row])) (f64)
    (locals)
    (return (sum (+ (+ (* x x) (* 2.0 x)) 1.0)))))";

/// Repeated relaxation of a vector in place: c = c*0.5 + x, 20 times.
const RELAX: &str = "(module relax :index-base 0
  (function relax ((x f64[1,row]) (t1 f64[1,row]) (t2 f64[1,row]) (t3 f64[1,row])) (f64[1,row])
    (locals (c f64[1,row]) (i i64))
    (set c (zeros f64[1,row] (dim x 0)))
    (for (i) (range 1 20)
      (block (set c (+ (* c 0.5) x))))
    (return c)))";

/// A column-major matrix expression, as R writes it: (a - b) * (a + b) / 2.
const COLMAT: &str = "(module colmat :index-base 1
  (function colmat ((a f64[2,col]) (b f64[2,col]) (t2 f64[2,col]) (t3 f64[2,col])) (f64[2,col])
    (locals (d f64[2,col]))
    (set d (/ (* (- a b) (+ a b)) 2.0))
    (return d)))";

fn array(dims: &[usize], layout: Layout, seed: u64) -> Value {
    let a = Array::zeros(
        ArrayType {
            elem: ScalarType::F64,
            ndims: dims.len() as u32,
            layout,
        },
        dims.to_vec(),
    );
    let n: usize = dims.iter().product();
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let data = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.5
        })
        .collect();
    *a.data.borrow_mut() = Buffer::F64(data);
    Value::Array(a)
}

fn inputs(name: &str, n: usize) -> Vec<Value> {
    if name == "colmat" {
        let side = (n as f64).sqrt() as usize;
        return (0..4)
            .map(|k| array(&[side, side], Layout::Col, k + 1))
            .collect();
    }
    (0..4).map(|k| array(&[n], Layout::Row, k + 1)).collect()
}

fn bits(vs: &[Value]) -> Vec<u64> {
    let mut out = Vec::new();
    for v in vs {
        match v {
            Value::Array(a) => out.extend(a.elements().iter().map(|s| match s {
                Scalar::F64(x) => x.to_bits(),
                _ => u64::MAX,
            })),
            Value::Scalar(Scalar::F64(x)) => out.push(x.to_bits()),
            _ => out.push(u64::MAX),
        }
    }
    out
}

fn main() -> ExitCode {
    let mut n = 1_000_000usize;
    let mut reps = 21usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    let mut par = false;
    while let Some(a) = it.next() {
        if a == "--par" {
            par = true;
            continue;
        }
        let v = it.next().and_then(|s| s.parse().ok());
        match (a.as_str(), v) {
            ("--n", Some(x)) => n = x,
            ("--reps", Some(x)) => reps = x,
            _ => {
                eprintln!("usage: vr-bench-fusion [--n N] [--reps R] [--par]");
                return ExitCode::from(2);
            }
        }
    }
    let configs: Vec<(&str, OptOptions)> = ["all", "-fusion", "-reuse", "-fusion,-reuse"]
        .iter()
        .map(|s| {
            (
                *s,
                OptOptions::parse(if *s == "all" { "" } else { s }).unwrap(),
            )
        })
        .collect();
    println!(
        "{:<10}{:>12}{:>12}{:>12}{:>16}   (n = {n}, medians of {reps}, {} backend; ratios: time / time with all passes)",
        "kernel",
        "all (ms)",
        "-fusion",
        "-reuse",
        "-fusion,-reuse",
        if par { "cpu-par" } else { "cpu" }
    );
    let backend = if par {
        cpu::CpuOptions::parallel()
    } else {
        cpu::CpuOptions::default()
    };
    for (name, src) in [
        ("arc", ARC),
        ("sumsq", SUMSQ),
        ("relax", RELAX),
        ("colmat", COLMAT),
    ] {
        let module = parse_module(src).expect("kernel parses");
        let mut compiled = Vec::new();
        for (label, o) in &configs {
            let (m, stats) = optimize(&module, o).expect("optimizes");
            eprintln!(
                "{name} {label}: {}",
                stats.to_string().trim().replace('\n', "; ")
            );
            compiled.push(cpu::compile_with(&m, backend).expect("compiles"));
        }
        // Results: bit-identical across configurations, and equal to the interpreter's
        // on a small input.
        let small = inputs(name, 64);
        let oracle = interp::run(&module, name, small.clone()).expect("interpreter runs");
        let big = inputs(name, n);
        let mut reference = None;
        for (c, (label, _)) in compiled.iter().zip(&configs) {
            let r = c.call(name, small.clone()).expect("runs");
            if bits(&r) != bits(&oracle) {
                eprintln!("{name} {label}: differs from the interpreter");
                return ExitCode::FAILURE;
            }
            let r = bits(&c.call(name, big.clone()).expect("runs"));
            match &reference {
                None => reference = Some(r),
                Some(x) if *x != r => {
                    eprintln!("{name} {label}: differs from `all`");
                    return ExitCode::FAILURE;
                }
                _ => {}
            }
        }
        let mut times = vec![Vec::new(); compiled.len()];
        for _ in 0..reps {
            for (k, c) in compiled.iter().enumerate() {
                let args = big.clone();
                let t = Instant::now();
                c.call(name, args).expect("runs");
                times[k].push(t.elapsed().as_secs_f64());
            }
        }
        let med: Vec<f64> = times
            .iter_mut()
            .map(|t| {
                t.sort_by(|a, b| a.partial_cmp(b).unwrap());
                t[t.len() / 2]
            })
            .collect();
        println!(
            "{:<10}{:>12.2}{:>12.2}{:>12.2}{:>16.2}",
            name,
            med[0] * 1e3,
            med[1] / med[0],
            med[2] / med[0],
            med[3] / med[0]
        );
    }
    ExitCode::SUCCESS
}
