//! The C math library functions generated code calls, mapped by address. These are the
//! symbols Rust's `f64::sin`, `f32::sinf`, ... end up calling on Linux, so compiled code
//! and the interpreter compute bit-identical results.

use std::ffi::{c_double, c_float};

#[link(name = "m")]
extern "C" {
    fn exp(x: c_double) -> c_double;
    fn log(x: c_double) -> c_double;
    fn log10(x: c_double) -> c_double;
    fn sin(x: c_double) -> c_double;
    fn cos(x: c_double) -> c_double;
    fn tan(x: c_double) -> c_double;
    fn asin(x: c_double) -> c_double;
    fn acos(x: c_double) -> c_double;
    fn atan(x: c_double) -> c_double;
    fn sinh(x: c_double) -> c_double;
    fn cosh(x: c_double) -> c_double;
    fn tanh(x: c_double) -> c_double;
    fn atan2(y: c_double, x: c_double) -> c_double;
    fn pow(x: c_double, y: c_double) -> c_double;
    fn fmod(x: c_double, y: c_double) -> c_double;
    fn expf(x: c_float) -> c_float;
    fn logf(x: c_float) -> c_float;
    fn log10f(x: c_float) -> c_float;
    fn sinf(x: c_float) -> c_float;
    fn cosf(x: c_float) -> c_float;
    fn tanf(x: c_float) -> c_float;
    fn asinf(x: c_float) -> c_float;
    fn acosf(x: c_float) -> c_float;
    fn atanf(x: c_float) -> c_float;
    fn sinhf(x: c_float) -> c_float;
    fn coshf(x: c_float) -> c_float;
    fn tanhf(x: c_float) -> c_float;
    fn atan2f(y: c_float, x: c_float) -> c_float;
    fn powf(x: c_float, y: c_float) -> c_float;
    fn fmodf(x: c_float, y: c_float) -> c_float;
}

/// (symbol, address) for every function above; `frem` lowers to fmod/fmodf.
pub fn symbols() -> Vec<(&'static str, usize)> {
    type F1 = unsafe extern "C" fn(c_double) -> c_double;
    type F2 = unsafe extern "C" fn(c_double, c_double) -> c_double;
    type G1 = unsafe extern "C" fn(c_float) -> c_float;
    type G2 = unsafe extern "C" fn(c_float, c_float) -> c_float;
    let f1: [(&'static str, F1); 12] = [
        ("exp", exp),
        ("log", log),
        ("log10", log10),
        ("sin", sin),
        ("cos", cos),
        ("tan", tan),
        ("asin", asin),
        ("acos", acos),
        ("atan", atan),
        ("sinh", sinh),
        ("cosh", cosh),
        ("tanh", tanh),
    ];
    let f2: [(&'static str, F2); 3] = [("atan2", atan2), ("pow", pow), ("fmod", fmod)];
    let g1: [(&'static str, G1); 12] = [
        ("expf", expf),
        ("logf", logf),
        ("log10f", log10f),
        ("sinf", sinf),
        ("cosf", cosf),
        ("tanf", tanf),
        ("asinf", asinf),
        ("acosf", acosf),
        ("atanf", atanf),
        ("sinhf", sinhf),
        ("coshf", coshf),
        ("tanhf", tanhf),
    ];
    let g2: [(&'static str, G2); 3] = [("atan2f", atan2f), ("powf", powf), ("fmodf", fmodf)];
    let mut v = Vec::new();
    v.extend(f1.iter().map(|(n, f)| (*n, *f as usize)));
    v.extend(f2.iter().map(|(n, f)| (*n, *f as usize)));
    v.extend(g1.iter().map(|(n, f)| (*n, *f as usize)));
    v.extend(g2.iter().map(|(n, f)| (*n, *f as usize)));
    v
}
