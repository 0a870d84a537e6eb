//! Complex numbers on the cpu backend: hand-checked anchors, and the promise that
//! compiled complex math is bit-identical to the interpreter's (same operations in the
//! same order; the transcendental functions run num-complex itself) over a grid that
//! includes signed zeros, subnormals, huge values, infinities and NaN (NaN payloads
//! aside: neither IEEE 754 nor LLVM fixes which NaN comes out).
#![allow(clippy::result_large_err)]

use num_complex::{Complex32, Complex64};
use velociraptor::cpu;
use velociraptor::interp;
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

const FUNCS: [&str; 13] = [
    "sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh",
];

/// f(z, w): every one-argument function of z, then |z|, z*w, z/w, z+w, z-w, -z, pow(z, w),
/// conj(z), z == w, isnan(z), isinf(z); for element type `t` (c64 or c128).
fn module(t: &str) -> String {
    let mut results = Vec::new();
    let mut exprs = Vec::new();
    for f in FUNCS {
        results.push(t.to_string());
        exprs.push(format!("({f} z)"));
    }
    let real = if t == "c64" { "f32" } else { "f64" };
    for (ty, e) in [
        (real, "(abs z)"),
        (t, "(* z w)"),
        (t, "(/ z w)"),
        (t, "(+ z w)"),
        (t, "(- z w)"),
        (t, "(neg z)"),
        (t, "(pow z w)"),
        (t, "(conj z)"),
        ("bool", "(== z w)"),
        ("bool", "(isnan z)"),
        ("bool", "(isinf z)"),
    ] {
        results.push(ty.to_string());
        exprs.push(e.to_string());
    }
    format!(
        "(module cm :index-base 0\n  (function f ((z {t}) (w {t})) ({})\n    (locals)\n    (return {})))",
        results.join(" "),
        exprs.join(" ")
    )
}

/// The bits of a scalar's parts, every NaN as one value: which NaN an operation with
/// two NaN operands returns is not specified by IEEE 754 nor kept by LLVM (it may swap
/// the operands of a commutative operation), so only NaN-ness is compared.
fn bits(s: &Scalar) -> Vec<u64> {
    let f = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
    let g = |x: f32| {
        if x.is_nan() {
            u64::MAX
        } else {
            x.to_bits() as u64
        }
    };
    match *s {
        Scalar::C64(c) => vec![g(c.re), g(c.im)],
        Scalar::C128(c) => vec![f(c.re), f(c.im)],
        Scalar::F32(x) => vec![g(x)],
        Scalar::F64(x) => vec![f(x)],
        Scalar::Bool(b) => vec![b as u64],
        Scalar::I32(x) => vec![x as u64],
        Scalar::I64(x) => vec![x as u64],
    }
}

const PARTS: [f64; 11] = [
    0.0,
    -0.0,
    1.0,
    -2.5,
    0.1,
    3.0,
    1e-310,
    1e308,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

fn check_grid(t: &str, make: impl Fn(f64, f64) -> Scalar) {
    let m = parse_module(&module(t)).expect("parses");
    let compiled = cpu::compile(&m).expect("compiles");
    let ws = [(0.5, -1.0), (-0.0, 2.0), (1e300, 1e300), (f64::NAN, 0.0)];
    for re in PARTS {
        for im in PARTS {
            for (wr, wi) in ws {
                let args = vec![Value::Scalar(make(re, im)), Value::Scalar(make(wr, wi))];
                let want = interp::run(&m, "f", args.clone()).expect("interp");
                let got = compiled.call("f", args).expect("cpu");
                for (k, (a, b)) in want.iter().zip(&got).enumerate() {
                    let (Value::Scalar(a), Value::Scalar(b)) = (a, b) else {
                        panic!("scalar results")
                    };
                    assert_eq!(
                        bits(a),
                        bits(b),
                        "{t} result {k} for z = {re} + {im}i, w = {wr} + {wi}i: interpreter {a:?}, cpu {b:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn c128_math_is_bit_identical_to_the_interpreter() {
    check_grid("c128", |re, im| Scalar::C128(Complex64::new(re, im)));
}

#[test]
fn c64_math_is_bit_identical_to_the_interpreter() {
    check_grid("c64", |re, im| {
        Scalar::C64(Complex32::new(re as f32, im as f32))
    });
}

fn c128(re: f64, im: f64) -> Value {
    Value::Scalar(Scalar::C128(Complex64::new(re, im)))
}

#[test]
fn hand_checked_values() {
    let m = parse_module(&module("c128")).expect("parses");
    let compiled = cpu::compile(&m).expect("compiles");
    let r = compiled
        .call("f", vec![c128(-4.0, 0.0), c128(1.0, 1.0)])
        .expect("runs");
    // sqrt(-4) = 2i; exp(-4) = e^-4 (a real); |-4| = 4
    assert!(r[0].same(&c128(0.0, 2.0)));
    assert!(r[1].same(&c128((-4.0f64).exp(), 0.0)));
    assert!(r[13].same(&Value::Scalar(Scalar::F64(4.0))));
    // (-4)(1+i) = -4-4i; (-4)/(1+i) = -4(1-i)/2 = -2+2i; sums; -z = 4
    assert!(r[14].same(&c128(-4.0, -4.0)));
    assert!(r[15].same(&c128(-2.0, 2.0)));
    assert!(r[16].same(&c128(-3.0, 1.0)));
    assert!(r[17].same(&c128(-5.0, -1.0)));
    assert!(r[18].same(&c128(4.0, -0.0)));
    let r = compiled
        .call("f", vec![c128(3.0, -4.0), c128(3.0, -4.0)])
        .expect("runs");
    // |3-4i| = 5, conj = 3+4i, z == z
    assert!(r[13].same(&Value::Scalar(Scalar::F64(5.0))));
    assert!(r[20].same(&c128(3.0, 4.0)));
    assert!(r[21].same(&Value::Scalar(Scalar::Bool(true))));
}

#[test]
fn complex_arrays_are_interleaved_and_written_in_place() {
    // Every element times i, written into the argument: the host sees its own buffer
    // (interleaved re, im) changed, whatever the layout.
    let src = "(module w :index-base 0
  (function f ((z c128[2,col])) ()
    (locals (i i64) (j i64))
    (for (i j) (domain (range 0 (- (dim z 0) 1)) (range 0 (- (dim z 1) 1)))
      (block (set (index z i j) (* (index z i j) (c128 0.0 1.0)))))
    (return)))";
    let m = parse_module(src).expect("parses");
    let compiled = cpu::compile(&m).expect("compiles");
    let logical: Vec<Scalar> = [(1.0, 2.0), (3.0, -1.0), (0.5, 0.0), (-2.0, 4.0)]
        .iter()
        .map(|&(re, im)| Scalar::C128(Complex64::new(re, im)))
        .collect();
    let a = Array::from_logical(
        ArrayType::new(ScalarType::C128, 2, Layout::Col),
        vec![2, 2],
        &logical,
    );
    compiled
        .call("f", vec![Value::Array(a.clone())])
        .expect("runs");
    // (a + bi) i = -b + ai
    let want: Vec<Scalar> = [(-2.0, 1.0), (1.0, 3.0), (-0.0, 0.5), (-4.0, -2.0)]
        .iter()
        .map(|&(re, im)| Scalar::C128(Complex64::new(re, im)))
        .collect();
    let got = a.elements();
    assert_eq!(got.len(), 4);
    for (g, w) in got.iter().zip(&want) {
        assert!(g.same(w), "{got:?} vs {want:?}");
    }
}
