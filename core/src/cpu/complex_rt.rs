//! Complex math that generated code calls by address: the transcendental functions and
//! `pow` of c64/c128, and `hypot` for `abs`. They run the very functions the interpreter
//! runs (`runtime::complex_math`: num-complex's, NaN-sign-free), so compiled results are
//! bit-identical to the interpreter's; re-deriving each formula in LLVM IR would be a
//! second implementation to keep in step. The cheap operations (`+ - * /`, `abs`,
//! comparisons, casts) are emitted inline by `codegen/complex.rs`, with num-complex's
//! formulas.

use crate::runtime::complex_math;
use num_complex::{Complex32, Complex64};
use std::ffi::{c_double, c_float};

/// Symbol of [`vr_cpu_c128_math`].
pub const C128_MATH: &str = "vr_cpu_c128_math";
/// Symbol of [`vr_cpu_c64_math`].
pub const C64_MATH: &str = "vr_cpu_c64_math";

/// Function codes of the helpers, in this order (the code is the index).
pub const FUNCS: [crate::vrir::ast::LibFn; 14] = {
    use crate::vrir::ast::LibFn::*;
    [
        Sqrt, Exp, Log, Log10, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Pow,
    ]
};

/// The code of `f` for the helpers, if they compute it.
pub fn code_of(f: crate::vrir::ast::LibFn) -> Option<u32> {
    FUNCS.iter().position(|g| *g == f).map(|k| k as u32)
}

/// The function of helper code `code` (an index into [`FUNCS`]; `pow` past the end, as
/// the helpers have always read it).
fn func_of(code: u32) -> crate::vrir::ast::LibFn {
    FUNCS.get(code as usize).copied().unwrap_or(crate::vrir::ast::LibFn::Pow)
}

/// `out[0..2] = f(re + i im [, re2 + i im2])` for c128; `code` from [`code_of`].
///
/// # Safety
/// `out` points to two writable f64.
#[no_mangle]
pub unsafe extern "C" fn vr_cpu_c128_math(
    code: u32,
    re: f64,
    im: f64,
    re2: f64,
    im2: f64,
    out: *mut f64,
) {
    let r = complex_math::c128(func_of(code), Complex64::new(re, im), Complex64::new(re2, im2));
    *out = r.re;
    *out.add(1) = r.im;
}

/// `out[0..2] = f(re + i im [, re2 + i im2])` for c64; `code` from [`code_of`].
///
/// # Safety
/// `out` points to two writable f32.
#[no_mangle]
pub unsafe extern "C" fn vr_cpu_c64_math(
    code: u32,
    re: f32,
    im: f32,
    re2: f32,
    im2: f32,
    out: *mut f32,
) {
    let r = complex_math::c64(func_of(code), Complex32::new(re, im), Complex32::new(re2, im2));
    *out = r.re;
    *out.add(1) = r.im;
}

#[link(name = "m")]
extern "C" {
    fn hypot(x: c_double, y: c_double) -> c_double;
    fn hypotf(x: c_float, y: c_float) -> c_float;
}

/// (symbol, address) of everything above, for the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, usize)> {
    type H = unsafe extern "C" fn(c_double, c_double) -> c_double;
    type Hf = unsafe extern "C" fn(c_float, c_float) -> c_float;
    type M128 = unsafe extern "C" fn(u32, f64, f64, f64, f64, *mut f64);
    type M64 = unsafe extern "C" fn(u32, f32, f32, f32, f32, *mut f32);
    vec![
        ("hypot", hypot as H as usize),
        ("hypotf", hypotf as Hf as usize),
        (C128_MATH, vr_cpu_c128_math as M128 as usize),
        (C64_MATH, vr_cpu_c64_math as M64 as usize),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_compute_num_complex_results() {
        let mut out = [0.0f64; 2];
        // sqrt(-4) = 2i (hand)
        unsafe {
            vr_cpu_c128_math(
                code_of(crate::vrir::ast::LibFn::Sqrt).unwrap(),
                -4.0,
                0.0,
                0.0,
                0.0,
                out.as_mut_ptr(),
            )
        };
        assert_eq!(out, [0.0, 2.0]);
        // (1+i)^2 = 2i, up to rounding of powc's polar form
        let mut o32 = [0.0f32; 2];
        unsafe {
            vr_cpu_c64_math(
                code_of(crate::vrir::ast::LibFn::Pow).unwrap(),
                1.0,
                1.0,
                2.0,
                0.0,
                o32.as_mut_ptr(),
            )
        };
        assert!(o32[0].abs() < 1e-6 && (o32[1] - 2.0).abs() < 1e-6);
    }
}
