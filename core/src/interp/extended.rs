//! Reductions and scans with an accumulator type (`:acc f80`), and the means, exactly as
//! docs/vrir-semantics.md defines them ("Accumulators").
//!
//! Why software: the interpreter is the oracle every backend is compared with, so its
//! 80-bit arithmetic must be exact on every host, x86 or not. `rustc_apfloat`'s
//! `X87DoubleExtended` is LLVM's APFloat (the code LLVM itself folds `x86_fp80`
//! constants with): 64-bit significand, 15-bit exponent, round to nearest even,
//! gradual underflow, as the x87 unit computes under Linux's default control word.
//! The cpu backend's `x86_fp80` code is checked against it (conformance files,
//! differential tests, and R itself through the R front end).
//!
//! Elements arrive as `f64` (an `f32` element converts exactly); `Acc` is the type the
//! steps round to: the element type itself (`F32`, `F64`) or `F80`.

use crate::vrir::ast::{Accum, ReduceOp, ScanOp};
use crate::vrir::types::ScalarType;
use rustc_apfloat::ieee::{Double, X87DoubleExtended};
use rustc_apfloat::{Float, FloatConvert};

/// A value of the accumulator type.
#[derive(Clone, Copy)]
enum Acc {
    F32(f32),
    F64(f64),
    F80(X87DoubleExtended),
}

/// The accumulator type of a reduction over elements of `elem`: `acc`, else the element
/// type (f32 or f64; the verifier admits nothing else here).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    F32,
    F64,
    F80,
}

fn kind(elem: ScalarType, acc: Option<Accum>) -> Kind {
    match (acc, elem) {
        (Some(Accum::F80), _) => Kind::F80,
        (None, ScalarType::F32 | ScalarType::C64) => Kind::F32,
        (None, _) => Kind::F64,
    }
}

fn f80_of(x: f64) -> X87DoubleExtended {
    let d = Double::from_bits(x.to_bits() as u128);
    // f64 -> f80 is exact (wider significand and exponent).
    d.convert(&mut false).value
}

/// Round to nearest (ties to even) to f64: what C's `(double) s` does on x86-64.
fn f64_of(x: X87DoubleExtended) -> f64 {
    let d: Double = x.convert(&mut false).value;
    f64::from_bits(d.to_bits() as u64)
}

impl Kind {
    fn of_elem(self, x: f64) -> Acc {
        match self {
            Kind::F32 => Acc::F32(x as f32),
            Kind::F64 => Acc::F64(x),
            Kind::F80 => Acc::F80(f80_of(x)),
        }
    }
    /// An element count, converted as C converts an integer to the type (exact in f80
    /// below 2^64; rounded to nearest in f32 and f64).
    fn of_count(self, n: usize) -> Acc {
        match self {
            Kind::F32 => Acc::F32(n as f32),
            Kind::F64 => Acc::F64(n as f64),
            Kind::F80 => Acc::F80(X87DoubleExtended::from_u128(n as u128).value),
        }
    }
    /// `x / n` in the element type (R's `dx[k]/n` when the first sum overflowed).
    fn elem_div(self, x: f64, n: usize) -> f64 {
        match self {
            Kind::F32 => ((x as f32) / (n as f32)) as f64,
            Kind::F64 | Kind::F80 => x / n as f64,
        }
    }
}

impl Acc {
    fn step(self, op: Step, o: Acc) -> Acc {
        match (self, o) {
            (Acc::F32(a), Acc::F32(b)) => Acc::F32(match op {
                Step::Add => a + b,
                Step::Sub => a - b,
                Step::Mul => a * b,
                Step::Div => a / b,
            }),
            (Acc::F64(a), Acc::F64(b)) => Acc::F64(match op {
                Step::Add => a + b,
                Step::Sub => a - b,
                Step::Mul => a * b,
                Step::Div => a / b,
            }),
            (Acc::F80(a), Acc::F80(b)) => Acc::F80(
                match op {
                    Step::Add => a + b,
                    Step::Sub => a - b,
                    Step::Mul => a * b,
                    Step::Div => a / b,
                }
                .value,
            ),
            _ => unreachable!("one accumulator type per reduction"),
        }
    }
    fn add(self, o: Acc) -> Acc {
        self.step(Step::Add, o)
    }
    fn sub(self, o: Acc) -> Acc {
        self.step(Step::Sub, o)
    }
    fn mul(self, o: Acc) -> Acc {
        self.step(Step::Mul, o)
    }
    fn div(self, o: Acc) -> Acc {
        self.step(Step::Div, o)
    }
    /// Rounded to the element type (as an f64 holding it).
    fn rounded(self) -> f64 {
        match self {
            Acc::F32(a) => a as f64,
            Acc::F64(a) => a,
            Acc::F80(a) => f64_of(a),
        }
    }
    /// R's whole-array `sum`/`prod` rounding (summary.c): beyond the largest finite
    /// double is an infinity, even where rounding to nearest would give that double.
    fn rounded_saturating(self) -> f64 {
        match self {
            Acc::F80(a) => {
                let max = f80_of(f64::MAX);
                if a > max {
                    f64::INFINITY
                } else if a < -max {
                    f64::NEG_INFINITY
                } else {
                    f64_of(a)
                }
            }
            other => other.rounded(),
        }
    }
    /// Is the value finite once rounded to the element type (R's `R_FINITE((double) s)`)?
    fn finite(self) -> bool {
        self.rounded().is_finite()
    }
}

#[derive(Clone, Copy)]
enum Step {
    Add,
    Sub,
    Mul,
    Div,
}

/// `sum` or `prod` of `xs` (f64 elements) accumulated in `acc`; `whole`: a whole-array
/// reduction (R's summary.c rounding) rather than one along an axis (array.c's).
pub(crate) fn sum_prod(op: ReduceOp, xs: &[f64], acc: Accum, whole: bool) -> f64 {
    let k = kind(ScalarType::F64, Some(acc));
    let (init, step): (f64, fn(Acc, Acc) -> Acc) = match op {
        ReduceOp::Prod => (1.0, Acc::mul),
        _ => (0.0, Acc::add),
    };
    let total = xs
        .iter()
        .fold(k.of_elem(init), |s, &x| step(s, k.of_elem(x)));
    if whole {
        total.rounded_saturating()
    } else {
        total.rounded()
    }
}

/// `mean`: the sum in the accumulator type divided there by the count, rounded once.
pub(crate) fn mean(xs: &[f64], elem: ScalarType, acc: Option<Accum>) -> f64 {
    let k = kind(elem, acc);
    let s = xs
        .iter()
        .fold(k.of_elem(0.0), |s, &x| s.add(k.of_elem(x)));
    s.div(k.of_count(xs.len())).rounded()
}

/// `mean-refined`: R's `mean` of doubles (summary.c, `real_mean`, R 4.x), every step in
/// the accumulator type unless said otherwise.
pub(crate) fn mean_refined(xs: &[f64], elem: ScalarType, acc: Option<Accum>) -> f64 {
    let k = kind(elem, acc);
    let n = k.of_count(xs.len());
    let total = xs
        .iter()
        .fold(k.of_elem(0.0), |s, &x| s.add(k.of_elem(x)));
    let finite_total = total.finite();
    let s = if finite_total {
        total.div(n)
    } else {
        // The sum overflowed: add the elements divided by n (in the element type).
        xs.iter().fold(k.of_elem(0.0), |s, &x| {
            s.add(k.of_elem(k.elem_div(x, xs.len())))
        })
    };
    if !s.finite() {
        return s.rounded();
    }
    let s = if finite_total {
        // Correct by the mean of the residuals.
        let t = xs
            .iter()
            .fold(k.of_elem(0.0), |t, &x| t.add(k.of_elem(x).sub(s)));
        s.add(t.div(n))
    } else {
        let t = xs.iter().fold(k.of_elem(0.0), |t, &x| {
            t.add(k.of_elem(x).sub(s).div(n))
        });
        s.add(t)
    };
    s.rounded()
}

/// Complex elements as (re, im); the element type's parts are f32 (c64) or f64 (c128).
pub(crate) type Parts = (f64, f64);

/// The part type of a complex element type.
fn part(elem: ScalarType) -> ScalarType {
    if elem == ScalarType::C64 {
        ScalarType::F32
    } else {
        ScalarType::F64
    }
}

/// `sum` of complex elements with an accumulator type: each part apart (R's csum),
/// rounded to nearest.
pub(crate) fn sum_complex(xs: &[Parts], acc: Accum) -> Parts {
    let k = kind(ScalarType::F64, Some(acc));
    let (mut re, mut im) = (k.of_elem(0.0), k.of_elem(0.0));
    for &(a, b) in xs {
        re = re.add(k.of_elem(a));
        im = im.add(k.of_elem(b));
    }
    (re.rounded(), im.rounded())
}

/// `prod` of complex elements with an accumulator type: R's cprod, (re, im) from (1, 0),
/// each step `(r x.re - i x.im, r x.im + i x.re)` with every operation rounded to the
/// accumulator type (num-complex's formula, as without an accumulator).
pub(crate) fn prod_complex(xs: &[Parts], acc: Accum) -> Parts {
    let k = kind(ScalarType::F64, Some(acc));
    let (mut re, mut im) = (k.of_elem(1.0), k.of_elem(0.0));
    for &(a, b) in xs {
        let (a, b) = (k.of_elem(a), k.of_elem(b));
        let next_re = re.mul(a).sub(im.mul(b));
        let next_im = re.mul(b).add(im.mul(a));
        (re, im) = (next_re, next_im);
    }
    (re.rounded(), im.rounded())
}

/// `mean` of complex elements: the mean of each part.
pub(crate) fn mean_complex(xs: &[Parts], elem: ScalarType, acc: Option<Accum>) -> Parts {
    let re: Vec<f64> = xs.iter().map(|p| p.0).collect();
    let im: Vec<f64> = xs.iter().map(|p| p.1).collect();
    (mean(&re, part(elem), acc), mean(&im, part(elem), acc))
}

/// `mean-refined` of complex elements: R's complex_mean (summary.c). Each part's sum is
/// divided by n; only when both quotients are finite as the part type is each part
/// corrected by the mean of its residuals. (No retry after an overflow, unlike reals.)
pub(crate) fn mean_refined_complex(xs: &[Parts], elem: ScalarType, acc: Option<Accum>) -> Parts {
    let k = kind(part(elem), acc);
    let n = k.of_count(xs.len());
    let (mut re, mut im) = (k.of_elem(0.0), k.of_elem(0.0));
    for &(a, b) in xs {
        re = re.add(k.of_elem(a));
        im = im.add(k.of_elem(b));
    }
    let (re, im) = (re.div(n), im.div(n));
    if !(re.finite() && im.finite()) {
        return (re.rounded(), im.rounded());
    }
    let (mut tr, mut ti) = (k.of_elem(0.0), k.of_elem(0.0));
    for &(a, b) in xs {
        tr = tr.add(k.of_elem(a).sub(re));
        ti = ti.add(k.of_elem(b).sub(im));
    }
    (re.add(tr.div(n)).rounded(), im.add(ti.div(n)).rounded())
}

/// `cumsum`/`cumprod` of `xs` in `acc`: each running value rounded to f64.
pub(crate) fn scan(op: ScanOp, xs: &[f64], acc: Accum) -> Vec<f64> {
    let k = kind(ScalarType::F64, Some(acc));
    let (init, step): (f64, fn(Acc, Acc) -> Acc) = match op {
        ScanOp::Sum => (0.0, Acc::add),
        ScanOp::Prod => (1.0, Acc::mul),
    };
    let mut s = k.of_elem(init);
    xs.iter()
        .map(|&x| {
            s = step(s, k.of_elem(x));
            s.rounded()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const F80: Accum = Accum::F80;

    #[test]
    fn cancellation_is_exact_in_80_bits() {
        let x = [1e16, 1.0, -1e16, 1.0];
        assert_eq!(sum_prod(ReduceOp::Sum, &x, F80, true), 2.0);
        assert_eq!(mean_refined(&x, ScalarType::F64, Some(F80)), 0.5);
        assert_eq!(mean(&x, ScalarType::F64, Some(F80)), 0.5);
        assert_eq!(scan(ScanOp::Sum, &x, F80), vec![1e16, 1e16 + 1.0, 1.0, 2.0]);
        // In double the first 1 is lost (1e16 + 1 rounds to even).
        assert_eq!(x.iter().sum::<f64>(), 1.0);
    }

    #[test]
    fn whole_array_rounding_saturates_as_r_does() {
        // DBL_MAX + 2^969 is exact in 80 bits; to nearest it is DBL_MAX, R's sum says Inf.
        let x = [f64::MAX, 2f64.powi(969)];
        assert_eq!(sum_prod(ReduceOp::Sum, &x, F80, true), f64::INFINITY);
        assert_eq!(sum_prod(ReduceOp::Sum, &x, F80, false), f64::MAX);
        assert_eq!(scan(ScanOp::Sum, &x, F80), vec![f64::MAX, f64::MAX]);
        let y = [-f64::MAX, -(2f64.powi(969))];
        assert_eq!(sum_prod(ReduceOp::Sum, &y, F80, true), f64::NEG_INFINITY);
    }

    #[test]
    fn the_wider_exponent_keeps_intermediate_products() {
        // R: sprintf("%.17g", prod(c(1e300, 1e300, 1e-300))) is 1.0000000000000002e+300
        // (1e600 exists in 80 bits; in double the product is Inf).
        let p = sum_prod(ReduceOp::Prod, &[1e300, 1e300, 1e-300], F80, true);
        assert_eq!(p, 1.0000000000000002e300);
        assert_eq!(
            scan(ScanOp::Prod, &[1e300, 1e300, 1e-300], F80)[1],
            f64::INFINITY
        );
    }

    #[test]
    fn mean_retries_an_overflowed_sum() {
        // The sum is finite in f80 but not as a double: R retries with x/n and
        // `mean(c(.Machine$double.xmax, .Machine$double.xmax, 1))` is 0x1.5555555555555p+1023.
        let m = mean_refined(&[f64::MAX, f64::MAX, 1.0], ScalarType::F64, Some(F80));
        assert_eq!(m, f64::from_bits(0x7fe5_5555_5555_5555));
        assert!(mean_refined(&[], ScalarType::F64, Some(F80)).is_nan());
        assert_eq!(
            mean_refined(&[f64::INFINITY, 1.0], ScalarType::F64, Some(F80)),
            f64::INFINITY
        );
    }

    #[test]
    fn complex_parts_accumulate_apart() {
        let z = [(1e16, 1.0), (1.0, 1e16), (-1e16, -1e16), (1.0, 1.0)];
        assert_eq!(sum_complex(&z, F80), (2.0, 2.0));
        assert_eq!(mean_complex(&z, ScalarType::C128, Some(F80)), (0.5, 0.5));
        assert_eq!(mean_refined_complex(&z, ScalarType::C128, Some(F80)), (0.5, 0.5));
        // (1 + 2i)(3 - i) = 5 + 5i; times i = -5 + 5i.
        assert_eq!(prod_complex(&[(1.0, 2.0), (3.0, -1.0), (0.0, 1.0)], F80), (-5.0, 5.0));
        // An infinite part skips the correction of both (R's complex_mean).
        let w = [(f64::INFINITY, 1e16), (0.0, 1.0), (0.0, -1e16), (0.0, 1.0)];
        assert_eq!(mean_refined_complex(&w, ScalarType::C128, Some(F80)).1, 0.5);
    }

    #[test]
    fn without_an_accumulator_the_element_type_rounds_every_step() {
        let x = [1e16, 1.0, -1e16, 1.0];
        assert_eq!(mean(&x, ScalarType::F64, None), 0.25);
        let m = mean_refined(&x, ScalarType::F64, None);
        let s = 0.25;
        let t = x.iter().fold(0.0, |t, &v| t + (v - s));
        assert_eq!(m, s + t / 4.0);
        assert_eq!(mean(&[1.0, 2.0], ScalarType::F32, None), 1.5);
    }
}
