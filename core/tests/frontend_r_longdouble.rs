//! R's long double reductions, compiled, against R itself, bit for bit (issue 23).
//!
//! R accumulates `sum`, `prod`, `mean`, `cumsum`, `cumprod`, `colSums`, `rowSums`,
//! `colMeans` and `rowMeans` in `long double` (x87 80-bit on x86-64); the R front end
//! lowers them to VRIR reductions with `:acc f80`. Every function of
//! tests/frontend_r/longdouble.R runs in R (Rscript, during this test) and compiled on
//! every backend this build has (interp, cpu, cpu-par); results must have R's type and
//! length and the same bits (a NaN matches any NaN; bit equality is stricter than
//! `identical()`, which also takes -0 for 0).
//!
//! Inputs: the cancellation cases of the issue, R's rounding past DBL_MAX, and random
//! vectors and matrices (1e5 to 1e6 elements) whose values span 16 orders of magnitude,
//! made here by a fixed generator and handed to R in binary (writeBin/readBin), so R
//! and the compiled code read the same bits. For each random input the test also checks
//! that a plain double accumulation would NOT give R's answer, so that a regression to
//! double sums cannot pass unnoticed.
//!
//! Only on x86-64, where R's long double is the x87 format; elsewhere the front end
//! refuses these functions (checked at the end).

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design
// Off x86-64 only the refusal is tested: the harness is unused there.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]

use num_complex::Complex64;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::frontend::types::Ty;
use velociraptor::runtime::value::{contiguous_strides, Array, Buffer, Scalar, Value};
use velociraptor::vrir::{ArrayType, Layout, ScalarType};

const SOURCE: &str = include_str!("frontend_r/longdouble.R");

/// An argument: its elements in R's (column-major) order and its dims (one for a vector).
#[derive(Clone)]
enum Data {
    Dbl(Vec<f64>),
    Int(Vec<i32>),
    Lgl(Vec<bool>),
    Cplx(Vec<Complex64>),
}

#[derive(Clone)]
struct Input {
    name: &'static str,
    data: Data,
    dims: Vec<usize>,
}

struct Case {
    func: &'static str,
    args: Vec<&'static str>,
    /// A double accumulation would differ from R here (checked: the test is sensitive).
    double_differs: bool,
}

/// splitmix64: a fixed, seedable stream (no dependency, same numbers everywhere).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// ± m * 10^e with m in [1, 10) and e in [-8, 7]: 16 orders of magnitude.
    fn wide(&mut self) -> f64 {
        let sign = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        let e = (self.next() % 16) as i32 - 8;
        sign * (1.0 + 9.0 * self.unit()) * 10f64.powi(e)
    }
    /// e^u, u in [-1.5, 1.5): products that wander over tens of orders of magnitude.
    fn factor(&mut self) -> f64 {
        (3.0 * self.unit() - 1.5).exp()
    }
}

fn inputs() -> Vec<Input> {
    let mut g = Rng(23);
    let dbl = |name, v: Vec<f64>| {
        let n = v.len();
        Input { name, data: Data::Dbl(v), dims: vec![n] }
    };
    let xmax = f64::MAX;
    let mut out = vec![
        dbl("cancel", vec![1e16, 1.0, -1e16, 1.0]),
        dbl("past_max", vec![xmax, 2f64.powi(969)]),
        dbl("over", vec![xmax, xmax, 1.0]),
        dbl("range", vec![1e300, 1e300, 1e-300]),
        dbl("tenths", vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]),
        dbl("with_nan", vec![1.0, f64::NAN, 3.0]),
        dbl("one", vec![-0.0]),
        Input { name: "cancel_mat", data: Data::Dbl(vec![1e16, 1.0, -1e16, 3.0, -1e16, 1e16]), dims: vec![3, 2] },
        dbl("wide_1e6", (0..1_000_000).map(|_| g.wide()).collect()),
        dbl("wide_1e5", (0..100_000).map(|_| g.wide()).collect()),
        dbl("wide_1e5b", (0..100_000).map(|_| g.wide()).collect()),
        dbl("factors_1e5", (0..100_000).map(|_| g.factor()).collect()),
        Input { name: "wide_mat", data: Data::Dbl((0..1000 * 400).map(|_| g.wide()).collect()), dims: vec![1000, 400] },
        Input { name: "int_1e5", data: Data::Int((0..100_000).map(|_| (g.next() % 2_000_001) as i32 - 1_000_000).collect()), dims: vec![100_000] },
        Input { name: "int_mat", data: Data::Int((0..300 * 200).map(|_| (g.next() % 2_000_001) as i32 - 1_000_000).collect()), dims: vec![300, 200] },
        Input { name: "lgl_1e5", data: Data::Lgl((0..100_000).map(|_| g.next() % 3 == 0).collect()), dims: vec![100_000] },
        Input { name: "cplx_1e5", data: Data::Cplx((0..100_000).map(|_| Complex64::new(g.wide(), g.wide())).collect()), dims: vec![100_000] },
        Input { name: "cplx_factors", data: Data::Cplx((0..1000).map(|_| Complex64::new(g.factor(), 0.5 * g.factor())).collect()), dims: vec![1000] },
        Input { name: "cplx_cancel", data: Data::Cplx(vec![Complex64::new(1e16, 0.1), Complex64::new(1.0, 1e16), Complex64::new(-1e16, 0.2), Complex64::new(1.0, -1e16)]), dims: vec![4] },
    ];
    out.push(dbl("two", vec![2.0; 1_000_000]));
    out
}

fn cases() -> Vec<Case> {
    let c = |func, args: &[&'static str], double_differs| Case { func, args: args.to_vec(), double_differs };
    let mut v = Vec::new();
    for x in ["cancel", "past_max", "over", "range", "tenths", "with_nan", "one"] {
        for f in ["ld_sum", "ld_prod", "ld_mean", "ld_cumsum", "ld_cumprod"] {
            v.push(c(f, &[x], false));
        }
    }
    // (Compiled cumsum/cumprod take vectors: of a matrix they run in R.)
    for f in ["ld_sum", "ld_prod", "ld_mean"] {
        v.push(c(f, &["cancel_mat"], false));
    }
    for f in ["ld_colsums", "ld_rowsums", "ld_colmeans", "ld_rowmeans"] {
        v.push(c(f, &["cancel_mat"], false));
        v.push(c(f, &["wide_mat"], true));
        v.push(c(f, &["int_mat"], false));
    }
    v.extend([
        c("ld_sum", &["wide_1e6"], true),
        c("ld_mean", &["wide_1e6"], true),
        c("ld_cumsum", &["wide_1e6"], true),
        c("ld_loop", &["wide_1e6"], false),
        c("ld_sum", &["wide_1e5"], true),
        c("ld_mean", &["wide_1e5"], true),
        c("ld_cumsum", &["wide_1e5"], true),
        c("ld_stats", &["wide_1e5"], true),
        c("ld_sum", &["wide_mat"], true),
        c("ld_mean", &["wide_mat"], true),
        c("ld_prod", &["factors_1e5"], true),
        c("ld_cumprod", &["factors_1e5"], true),
        c("ld_sum_chain", &["wide_1e5", "wide_1e5b"], true),
        c("ld_mean_chain", &["wide_1e5", "wide_1e5b"], true),
        c("ld_sum_libm", &["wide_1e5", "wide_1e5b"], true),
        c("ld_sum_libm", &["tenths", "tenths"], false),
        c("ld_sum", &["int_1e5"], false),
        c("ld_mean", &["int_1e5"], false),
        c("ld_prod", &["int_mat"], false),
        c("ld_cumsum", &["int_1e5"], false),
        c("ld_cumprod", &["int_1e5"], false),
        c("ld_mean", &["lgl_1e5"], false),
        c("ld_sum", &["cplx_1e5"], true),
        c("ld_mean", &["cplx_1e5"], true),
        c("ld_prod", &["cplx_factors"], true),
        c("ld_sum", &["cplx_cancel"], false),
        c("ld_mean", &["cplx_cancel"], false),
        c("ld_prod", &["cplx_cancel"], false),
        c("ld_sum", &["two"], false),
        c("ld_mean", &["two"], false),
    ]);
    v
}

fn write_input(dir: &Path, x: &Input) -> String {
    let path = dir.join(format!("{}.bin", x.name));
    let (bytes, what, n): (Vec<u8>, &str, usize) = match &x.data {
        Data::Dbl(v) => (v.iter().flat_map(|f| f.to_le_bytes()).collect(), "double", v.len()),
        Data::Int(v) => (v.iter().flat_map(|f| f.to_le_bytes()).collect(), "integer", v.len()),
        Data::Lgl(v) => (v.iter().flat_map(|b| (*b as i32).to_le_bytes()).collect(), "logical", v.len()),
        Data::Cplx(v) => (v.iter().flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()]).flatten().collect(), "complex", v.len()),
    };
    std::fs::write(&path, bytes).unwrap();
    let dims = if x.dims.len() > 1 {
        format!("; dim({}) <- c({})", x.name, x.dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
    } else {
        String::new()
    };
    format!("{} <- readBin(\"{}\", \"{what}\", n = {n}, endian = \"little\"){dims}\n", x.name, path.display())
}

/// What a function returned: R's type name and the bits of its values (complex: re, im).
#[derive(Debug, PartialEq)]
struct Outcome {
    ty: String,
    bits: Vec<u64>,
}

fn run_r(dir: &Path, inputs: &[Input], cases: &[Case]) -> Vec<Outcome> {
    let mut script = String::from("options(warn = 2)\n");
    script.push_str(SOURCE);
    for x in inputs {
        script.push_str(&write_input(dir, x));
    }
    for (id, c) in cases.iter().enumerate() {
        let out = dir.join(format!("out{id}.bin"));
        script.push_str(&format!(
            "local({{ r <- {}({}); writeBin(if (is.complex(r)) as.vector(r) else as.double(r), \"{}\", endian = \"little\"); cat(\"CASE\", {id}, typeof(r), length(r), \"\\n\") }})\n",
            c.func,
            c.args.join(", "),
            out.display()
        ));
    }
    let path = dir.join("cases.R");
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("Rscript").arg("--vanilla").arg(&path).output().expect("Rscript runs (R is part of the test setup)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "Rscript failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let mut results: Vec<Option<Outcome>> = (0..cases.len()).map(|_| None).collect();
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.first() != Some(&"CASE") {
            continue;
        }
        let id: usize = w[1].parse().unwrap();
        let bytes = std::fs::read(dir.join(format!("out{id}.bin"))).unwrap();
        let bits = bytes.chunks(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect();
        results[id] = Some(Outcome { ty: w[2].to_string(), bits });
    }
    results.into_iter().enumerate().map(|(i, r)| r.unwrap_or_else(|| panic!("R printed no result for case {i}:\n{stdout}"))).collect()
}

fn value_of(x: &Input) -> (Ty, Value) {
    let (elem, buffer) = match &x.data {
        Data::Dbl(v) => (ScalarType::F64, Buffer::F64(v.clone())),
        Data::Int(v) => (ScalarType::I32, Buffer::I32(v.clone())),
        Data::Lgl(v) => (ScalarType::Bool, Buffer::Bool(v.clone())),
        Data::Cplx(v) => (ScalarType::C128, Buffer::C128(v.clone())),
    };
    let rank = x.dims.len() as u32;
    let a = Array {
        ty: ArrayType::new(elem, rank, Layout::Col),
        dims: x.dims.clone(),
        strides: contiguous_strides(&x.dims, Layout::Col),
        offset: 0,
        data: Rc::new(RefCell::new(buffer)),
    };
    (Ty::array(elem, rank), Value::Array(a))
}

fn scalar_bits(s: &Scalar, out: &mut Vec<u64>) {
    match s {
        Scalar::C128(c) => out.extend([c.re.to_bits(), c.im.to_bits()]),
        Scalar::F64(v) => out.push(v.to_bits()),
        Scalar::I32(v) => out.push((*v as f64).to_bits()),
        Scalar::Bool(b) => out.push((*b as i32 as f64).to_bits()),
        other => panic!("unexpected result element {other:?}"),
    }
}

fn type_name(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "logical",
        ScalarType::I32 | ScalarType::I64 => "integer",
        ScalarType::F32 | ScalarType::F64 => "double",
        ScalarType::C64 | ScalarType::C128 => "complex",
    }
}

fn ours(results: &[Value]) -> Outcome {
    let mut bits = Vec::new();
    let ty = match results {
        [Value::Scalar(s)] => {
            scalar_bits(s, &mut bits);
            s.ty()
        }
        [Value::Array(a)] => {
            assert_eq!(a.ndims(), 1, "results of these functions are vectors");
            for k in 0..a.dims[0] {
                scalar_bits(&a.get(&[k]), &mut bits);
            }
            a.ty.elem
        }
        other => panic!("unexpected results {other:?}"),
    };
    Outcome { ty: type_name(ty).into(), bits }
}

fn same(r: &Outcome, us: &Outcome) -> bool {
    let nan = |b: u64| f64::from_bits(b).is_nan();
    r.ty == us.ty && r.bits.len() == us.bits.len() && r.bits.iter().zip(&us.bits).all(|(a, b)| a == b || (nan(*a) && nan(*b)))
}

/// The elements of a double or complex input as f64 parts, in R's order.
fn parts(x: &Input) -> Vec<Vec<f64>> {
    match &x.data {
        Data::Dbl(v) => vec![v.clone()],
        Data::Cplx(v) => vec![v.iter().map(|c| c.re).collect(), v.iter().map(|c| c.im).collect()],
        _ => vec![],
    }
}

/// What a plain double accumulation (the compiled code before issue 23) gives for the
/// first value of `func`, where that is simple to say: if it equals R's, the input
/// does not tell long double from double.
fn double_answer(func: &str, xs: &[&Input]) -> Option<Vec<f64>> {
    let x = xs[0];
    let naive_sum = |v: &[f64]| v.iter().fold(0.0, |s, x| s + x);
    let naive_mean = |v: &[f64]| {
        let n = v.len() as f64;
        let m = naive_sum(v) / n;
        m + v.iter().fold(0.0, |t, x| t + (x - m)) / n
    };
    let p = parts(x);
    let second = || parts(xs[1]).remove(0);
    match func {
        "ld_sum" | "ld_stats" => Some(p.iter().map(|v| naive_sum(v)).collect()),
        "ld_mean" => Some(p.iter().map(|v| naive_mean(v)).collect()),
        "ld_sum_chain" => {
            let t: Vec<f64> = p[0].iter().zip(second()).map(|(a, b)| a * b + 1.0).collect();
            Some(vec![naive_sum(&t)])
        }
        "ld_sum_libm" => {
            let t: Vec<f64> = p[0].iter().zip(second()).map(|(a, b)| a.sin() * b + 1.0).collect();
            Some(vec![naive_sum(&t)])
        }
        "ld_mean_chain" => {
            let t: Vec<f64> = p[0].iter().zip(second()).map(|(a, b)| a - 2.0 * b).collect();
            Some(vec![naive_mean(&t)])
        }
        "ld_prod" if matches!(x.data, Data::Cplx(_)) => {
            let Data::Cplx(v) = &x.data else { unreachable!() };
            let z = v.iter().fold(Complex64::new(1.0, 0.0), |s, x| s * x);
            Some(vec![z.re, z.im])
        }
        "ld_cumsum" => Some(p[0].iter().scan(0.0, |s, x| {
            *s += x;
            Some(*s)
        }).collect()),
        "ld_prod" if matches!(x.data, Data::Dbl(_)) => Some(vec![p[0].iter().product()]),
        "ld_cumprod" => Some(p[0].iter().scan(1.0, |s, x| {
            *s *= x;
            Some(*s)
        }).collect()),
        "ld_colsums" | "ld_colmeans" | "ld_rowsums" | "ld_rowmeans" => {
            let (m, n) = (x.dims[0], x.dims[1]);
            let v = &p[0];
            let mean = func.ends_with("means");
            Some(if func.starts_with("ld_col") {
                (0..n).map(|j| naive_sum(&v[j * m..(j + 1) * m]) / if mean { m as f64 } else { 1.0 }).collect()
            } else {
                (0..m).map(|i| (0..n).fold(0.0, |s, j| s + v[j * m + i]) / if mean { n as f64 } else { 1.0 }).collect()
            })
        }
        _ => None,
    }
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vr_longdouble_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
#[cfg(target_arch = "x86_64")]
fn long_double_reductions_are_identical_to_r() {
    let inputs = inputs();
    let cases = cases();
    let dir = temp_dir();
    let expected = run_r(&dir, &inputs, &cases);
    let _ = std::fs::remove_dir_all(&dir);
    let find = |name: &str| inputs.iter().find(|x| x.name == name).unwrap_or_else(|| panic!("no input {name}"));
    let mut failures = Vec::new();
    let mut passed = std::collections::BTreeMap::<String, usize>::new();
    let mut sensitive = 0;
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!("case {id}: {}({})", c.func, c.args.join(", "));
        let args: Vec<&Input> = c.args.iter().map(|a| find(a)).collect();
        let (tys, vals): (Vec<Ty>, Vec<Value>) = args.iter().map(|x| value_of(x)).unzip();
        let module = match r::compile(SOURCE, c.func, tys) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        if c.double_differs {
            // The input must tell long double from double: else this case proves nothing.
            let naive = double_answer(c.func, &args).expect("a double answer for this function");
            let r_vals: Vec<f64> = r_out.bits.iter().map(|b| f64::from_bits(*b)).collect();
            let k = naive.len().min(r_vals.len());
            if naive[..k].iter().zip(&r_vals[..k]).all(|(a, b)| a.to_bits() == b.to_bits()) {
                failures.push(format!(
                    "{label}: a double accumulation gives R's answer too ({:e}): the input is not sensitive",
                    naive[0]
                ));
            } else {
                sensitive += 1;
            }
        }
        for b in Backend::available() {
            let got = match backend::execute(b, &module, c.func, vals.clone()) {
                Ok(v) => ours(&v),
                Err(e) => {
                    failures.push(format!("{label} on {b}: {}", r::explain_error(e)));
                    continue;
                }
            };
            if same(r_out, &got) {
                *passed.entry(b.to_string()).or_default() += 1;
            } else {
                let first = r_out.bits.iter().zip(&got.bits).position(|(a, b)| a != b);
                let show = |o: &Outcome, k: Option<usize>| k.and_then(|k| o.bits.get(k)).map(|b| format!("{:e}", f64::from_bits(*b)));
                failures.push(format!(
                    "{label} on {b}: R gave {} of {} values, compiled {} of {}; first difference at {first:?}: R {:?}, compiled {:?}",
                    r_out.ty,
                    r_out.bits.len(),
                    got.ty,
                    got.bits.len(),
                    show(r_out, first),
                    show(&got, first)
                ));
            }
        }
    }
    eprintln!("{} cases; {sensitive} of them on inputs where a double accumulation differs from R", cases.len());
    for (b, n) in &passed {
        eprintln!("{b}: {n} identical to R");
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    for b in Backend::available() {
        assert_eq!(passed.get(&b.to_string()).copied().unwrap_or(0), cases.len(), "every case runs on {b}");
    }
}

/// Where R's long double is not the x87 format the front end refuses, so R runs them.
#[test]
#[cfg(not(target_arch = "x86_64"))]
fn long_double_reductions_are_refused_off_x86() {
    for f in ["ld_sum", "ld_mean", "ld_cumsum", "ld_colsums"] {
        let ty = if f == "ld_colsums" { Ty::array(ScalarType::F64, 2) } else { Ty::array(ScalarType::F64, 1) };
        let e = r::compile(SOURCE, f, vec![ty]).expect_err("refused");
        assert_eq!(e.kind, velociraptor::ErrorKind::Unsupported, "{e}");
    }
}

/// The explicit loop stays a double accumulation (R's interpreter adds in double).
#[test]
fn explicit_loops_add_in_double() {
    let m = r::compile(SOURCE, "ld_loop", vec![Ty::array(ScalarType::F64, 1)]).unwrap();
    let text = velociraptor::vrir::text::print_module(&m);
    assert!(!text.contains(":acc"), "{text}");
    let x = Input { name: "x", data: Data::Dbl(vec![1e16, 1.0, -1e16, 1.0]), dims: vec![4] };
    let out = backend::execute(Backend::Interp, &m, "ld_loop", vec![value_of(&x).1]).unwrap();
    assert_eq!(ours(&out).bits, vec![1f64.to_bits()]);
}

/// Fusion keeps the accumulator: `sum(x * y + 1)` becomes the long double sum of the
/// whole tree (which the cpu backend folds element by element, with no array for the
/// chain's values), never a double accumulation loop.
#[test]
#[cfg(target_arch = "x86_64")]
fn fusion_keeps_the_long_double_accumulator() {
    use velociraptor::opt::{optimize, OptOptions};
    let v = Ty::array(ScalarType::F64, 1);
    let m = r::compile(SOURCE, "ld_sum_chain", vec![v, v]).unwrap();
    let (opt, stats) = optimize(&m, &OptOptions::all()).unwrap();
    let text = velociraptor::vrir::text::print_module(&opt);
    // Two operations, fused in both copies `recycle-version` makes (lengths of x and y
    // equal, and as written).
    assert_eq!(stats.total("fusion", "ops_fused"), 4, "{text}");
    assert_eq!(stats.total("fusion", "reductions_fused"), 0, "{text}");
    assert!(text.contains("(return (sum (+ (* x y) 1.0) :acc f80)"), "{text}");
    assert!(!text.contains("(empty "), "no array for the chain's values: {text}");
    // Both the fused code and the as-written fallback (different shapes) keep it.
    assert!(text.lines().filter(|l| l.contains("(sum ")).all(|l| l.contains(":acc f80")), "{text}");
}
