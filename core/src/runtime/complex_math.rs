//! The complex library functions (`sqrt`, `exp`, ..., `pow` of c64/c128) as every backend
//! computes them: the interpreter calls these directly, compiled code through
//! `cpu/complex_rt.rs`, so that both give the same bits.
//!
//! They are num-complex's methods with two corrections, both found by the random-program
//! campaign (issue 21, seed 3006 of opt_differential): num-complex's `sqrt` branches on the
//! sign bit of the real part, and the sign bit of a NaN is not a value (x86's `0.0 / 0.0`
//! at run time gives a NaN with the bit set, LLVM's folded `0.0 / 0.0` one without), so
//! `sqrt(NaN + 0i)` was `NaN + 0i` in compiled code and `0 + NaNi` in the interpreter.
//! - Every NaN part of an argument is read as the one positive quiet NaN before the
//!   function runs, so no result depends on a NaN's sign.
//! - `sqrt` follows C99 Annex G (`csqrt`) at NaN and infinite parts, which is what R's
//!   `sqrt` of a complex gives (checked with Rscript: `sqrt(complex(real = NaN, imaginary =
//!   0))` is `NaN+NaNi`, `Inf+NaNi` for `Inf + NaN i`, `NaN+Infi` for `-Inf + NaN i`,
//!   `Inf+Infi` for `NaN + Inf i`); num-complex gives `Inf + NaN i` for `Inf + 1i`, where
//!   Annex G and R give `Inf + 0i`.

use crate::vrir::ast::LibFn;
use num_complex::{Complex32, Complex64};

macro_rules! complex_math {
    ($apply:ident, $sqrt:ident, $canonical:ident, $c:ty, $t:ty) => {
        fn $canonical(z: $c) -> $c {
            let part = |x: $t| if x.is_nan() { <$t>::NAN } else { x };
            <$c>::new(part(z.re), part(z.im))
        }

        /// Annex G's `csqrt`: the special cases first, num-complex's formula for the rest.
        fn $sqrt(z: $c) -> $c {
            let (re, im) = (z.re, z.im);
            let (inf, nan) = (<$t>::INFINITY, <$t>::NAN);
            if im.is_infinite() {
                <$c>::new(inf, im)
            } else if re.is_nan() {
                <$c>::new(nan, nan)
            } else if re == inf {
                <$c>::new(inf, if im.is_nan() { nan } else { (0.0 as $t).copysign(im) })
            } else if re == -inf {
                if im.is_nan() {
                    <$c>::new(nan, inf)
                } else {
                    <$c>::new(0.0, inf.copysign(im))
                }
            } else if im.is_nan() {
                <$c>::new(nan, nan)
            } else {
                z.sqrt()
            }
        }

        /// `f(z)`, or `z ^ w` for `pow` (`w` is ignored by the one-argument functions).
        /// `f` is one of the functions that have a complex form (the verifier's rule).
        pub fn $apply(f: LibFn, z: $c, w: $c) -> $c {
            let z = $canonical(z);
            match f {
                LibFn::Sqrt => $sqrt(z),
                LibFn::Exp => z.exp(),
                LibFn::Log => z.ln(),
                LibFn::Log10 => z.log10(),
                LibFn::Sin => z.sin(),
                LibFn::Cos => z.cos(),
                LibFn::Tan => z.tan(),
                LibFn::Asin => z.asin(),
                LibFn::Acos => z.acos(),
                LibFn::Atan => z.atan(),
                LibFn::Sinh => z.sinh(),
                LibFn::Cosh => z.cosh(),
                LibFn::Tanh => z.tanh(),
                _ => z.powc($canonical(w)),
            }
        }
    };
}

complex_math!(c128, sqrt128, canonical128, Complex64, f64);
complex_math!(c64, sqrt64, canonical64, Complex32, f32);

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(z: Complex64) -> (u64, u64) {
        (z.re.to_bits(), z.im.to_bits())
    }

    #[test]
    fn sqrt_does_not_depend_on_the_sign_of_a_nan() {
        let neg_nan = -f64::NAN;
        assert!(neg_nan.is_sign_negative());
        let zero = Complex64::new(0.0, 0.0);
        let a = c128(LibFn::Sqrt, Complex64::new(f64::NAN, 0.0), zero);
        let b = c128(LibFn::Sqrt, Complex64::new(neg_nan, 0.0), zero);
        assert_eq!(bits(a), bits(b));
        // R: sqrt(complex(real = NaN, imaginary = 0)) is NaN+NaNi.
        assert!(a.re.is_nan() && a.im.is_nan());
    }

    #[test]
    fn sqrt_special_values_are_r_s() {
        let zero = Complex64::new(0.0, 0.0);
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let s = |re: f64, im: f64| c128(LibFn::Sqrt, Complex64::new(re, im), zero);
        // Each expected value is R 4.2's sqrt() of the same complex number.
        let z = s(nan, inf);
        assert_eq!((z.re, z.im), (inf, inf));
        let z = s(inf, nan);
        assert!(z.re == inf && z.im.is_nan());
        let z = s(-inf, nan);
        assert!(z.re.is_nan() && z.im == inf);
        let z = s(1.0, nan);
        assert!(z.re.is_nan() && z.im.is_nan());
        let z = s(inf, 1.0);
        assert_eq!((z.re, z.im), (inf, 0.0));
        let z = s(-inf, -1.0);
        assert_eq!((z.re, z.im), (0.0, -inf));
        // Finite values as num-complex computes them: sqrt(-4+0i) = 2i, sqrt(-4-0i) = -2i.
        assert_eq!(s(-4.0, 0.0), Complex64::new(0.0, 2.0));
        assert_eq!(s(-4.0, -0.0), Complex64::new(0.0, -2.0));
        assert_eq!(s(3.0, 4.0), Complex64::new(3.0, 4.0).sqrt());
    }

    #[test]
    fn c64_follows_the_same_rules() {
        let zero = Complex32::new(0.0, 0.0);
        let z = c64(LibFn::Sqrt, Complex32::new(-f32::NAN, 0.0), zero);
        assert!(z.re.is_nan() && z.im.is_nan());
        let z = c64(LibFn::Pow, Complex32::new(1.0, 1.0), Complex32::new(2.0, 0.0));
        assert!(z.re.abs() < 1e-6 && (z.im - 2.0).abs() < 1e-6);
    }
}
