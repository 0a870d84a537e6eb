//! Scalar arithmetic, comparisons, casts and the scalar math library, exactly as
//! docs/vrir-semantics.md ("Arithmetic", "Library functions") defines them. Array
//! operations apply these element by element (`array_ops.rs`).

use super::internal;
use crate::runtime::complex_math;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Scalar;
use crate::vrir::ast::{BinOp, LibFn, UnOp};
use crate::vrir::types::ScalarType;
use num_complex::{Complex32, Complex64};

/// Integer arithmetic: two's complement, wrapping; `/` truncates, `idiv` floors, `mod`
/// has the divisor's sign; any division by zero is an error.
macro_rules! int_op {
    ($op:expr, $x:expr, $y:expr, $t:ty) => {{
        let (x, y): ($t, $t) = ($x, $y);
        match $op {
            BinOp::Add => Ok(x.wrapping_add(y)),
            BinOp::Sub => Ok(x.wrapping_sub(y)),
            BinOp::Mul => Ok(x.wrapping_mul(y)),
            BinOp::Div if y == 0 => Err(division_by_zero()),
            BinOp::Div => Ok(x.wrapping_div(y)),
            BinOp::IDiv if y == 0 => Err(division_by_zero()),
            BinOp::IDiv => {
                let q = x.wrapping_div(y);
                let r = x.wrapping_rem(y);
                Ok(if r != 0 && ((r < 0) != (y < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                })
            }
            BinOp::Mod if y == 0 => Err(division_by_zero()),
            BinOp::Mod => {
                let r = x.wrapping_rem(y);
                Ok(if r != 0 && ((r < 0) != (y < 0)) {
                    r.wrapping_add(y)
                } else {
                    r
                })
            }
            other => Err(internal(format!("operator {} on integers", other.symbol()))),
        }
    }};
}

/// Float arithmetic: IEEE 754; `idiv` is `floor(a / b)`, `mod` is `a - floor(a / b) * b`.
macro_rules! float_op {
    ($op:expr, $x:expr, $y:expr, $a:expr, $b:expr) => {{
        let (x, y) = ($x, $y);
        match $op {
            BinOp::Add => Ok(x + y),
            BinOp::Sub => Ok(x - y),
            BinOp::Mul => Ok(x * y),
            BinOp::Div => Ok(x / y),
            BinOp::IDiv => Ok((x / y).floor()),
            BinOp::Mod => Ok(x - (x / y).floor() * y),
            other => Err(mismatch(other.symbol(), $a, $b)),
        }
    }};
}

/// The real functions by their std method names (the complex ones are
/// `runtime::complex_math`'s, which compiled code calls too).
macro_rules! transcendental {
    ($f:expr, $x:expr) => {
        match $f {
            LibFn::Sqrt => $x.sqrt(),
            LibFn::Exp => $x.exp(),
            LibFn::Log => $x.ln(),
            LibFn::Log10 => $x.log10(),
            LibFn::Sin => $x.sin(),
            LibFn::Cos => $x.cos(),
            LibFn::Tan => $x.tan(),
            LibFn::Asin => $x.asin(),
            LibFn::Acos => $x.acos(),
            LibFn::Atan => $x.atan(),
            LibFn::Sinh => $x.sinh(),
            LibFn::Cosh => $x.cosh(),
            _ => $x.tanh(),
        }
    };
}

macro_rules! rounding {
    ($f:expr, $x:expr) => {
        match $f {
            LibFn::Floor => $x.floor(),
            LibFn::Ceil => $x.ceil(),
            LibFn::Round => $x.round_ties_even(),
            _ => $x.trunc(),
        }
    };
}

/// Complex arithmetic as num-complex does it; `None` for operators complex lacks.
macro_rules! complex_op {
    ($op:expr, $x:expr, $y:expr) => {
        match $op {
            BinOp::Add => Some($x + $y),
            BinOp::Sub => Some($x - $y),
            BinOp::Mul => Some($x * $y),
            BinOp::Div => Some($x / $y),
            _ => None,
        }
    };
}

fn division_by_zero() -> VrError {
    VrError::new(ErrorKind::DivisionByZero, "division by zero")
}

fn mismatch(what: &str, a: Scalar, b: Scalar) -> VrError {
    internal(format!("{what} of {} and {}", a.ty(), b.ty()))
}

/// Element type of `op`'s result for operands of element type `t`.
pub(crate) fn binop_result(op: BinOp, t: ScalarType) -> ScalarType {
    if op.is_comparison() || op.is_logical() {
        ScalarType::Bool
    } else {
        t
    }
}

/// A binary operator on two scalars of one type (the logical operators here are the
/// element-wise, non-short-circuit forms).
pub(crate) fn binop(op: BinOp, a: Scalar, b: Scalar) -> VrResult<Scalar> {
    use Scalar::*;
    if op.is_comparison() {
        return compare(op, a, b).map(Bool);
    }
    Ok(match (a, b) {
        (Bool(x), Bool(y)) => match op {
            BinOp::And => Bool(x && y),
            BinOp::Or => Bool(x || y),
            _ => return Err(mismatch(op.symbol(), a, b)),
        },
        (I32(x), I32(y)) => I32(int_op!(op, x, y, i32)?),
        (I64(x), I64(y)) => I64(int_op!(op, x, y, i64)?),
        (F32(x), F32(y)) => F32(float_op!(op, x, y, a, b)?),
        (F64(x), F64(y)) => F64(float_op!(op, x, y, a, b)?),
        (C64(x), C64(y)) => C64(complex_op!(op, x, y).ok_or_else(|| mismatch(op.symbol(), a, b))?),
        (C128(x), C128(y)) => {
            C128(complex_op!(op, x, y).ok_or_else(|| mismatch(op.symbol(), a, b))?)
        }
        _ => return Err(mismatch(op.symbol(), a, b)),
    })
}

/// Comparisons: ordered ones on integers and floats, `==`/`!=` on every type. NaN
/// compares false except with `!=`.
fn compare(op: BinOp, a: Scalar, b: Scalar) -> VrResult<bool> {
    use std::cmp::Ordering;
    use Scalar::*;
    let ord: Option<Ordering> = match (a, b) {
        (Bool(x), Bool(y)) => Some(x.cmp(&y)),
        (I32(x), I32(y)) => Some(x.cmp(&y)),
        (I64(x), I64(y)) => Some(x.cmp(&y)),
        (F32(x), F32(y)) => x.partial_cmp(&y),
        (F64(x), F64(y)) => x.partial_cmp(&y),
        (C64(x), C64(y)) => {
            return complex_eq(op, x.re == y.re && x.im == y.im, a, b);
        }
        (C128(x), C128(y)) => {
            return complex_eq(op, x.re == y.re && x.im == y.im, a, b);
        }
        _ => return Err(mismatch(op.symbol(), a, b)),
    };
    Ok(match op {
        BinOp::Lt => ord == Some(Ordering::Less),
        BinOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        BinOp::Gt => ord == Some(Ordering::Greater),
        BinOp::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
        BinOp::Eq => ord == Some(Ordering::Equal),
        BinOp::Ne => ord != Some(Ordering::Equal),
        _ => return Err(mismatch(op.symbol(), a, b)),
    })
}

fn complex_eq(op: BinOp, equal: bool, a: Scalar, b: Scalar) -> VrResult<bool> {
    match op {
        BinOp::Eq => Ok(equal),
        BinOp::Ne => Ok(!equal),
        _ => Err(mismatch(op.symbol(), a, b)),
    }
}

/// `neg` (wrapping on integers) and `not`.
pub(crate) fn unop(op: UnOp, a: Scalar) -> VrResult<Scalar> {
    use Scalar::*;
    Ok(match (op, a) {
        (UnOp::Not, Bool(x)) => Bool(!x),
        (UnOp::Neg, I32(x)) => I32(x.wrapping_neg()),
        (UnOp::Neg, I64(x)) => I64(x.wrapping_neg()),
        (UnOp::Neg, F32(x)) => F32(-x),
        (UnOp::Neg, F64(x)) => F64(-x),
        (UnOp::Neg, C64(x)) => C64(-x),
        (UnOp::Neg, C128(x)) => C128(-x),
        _ => return Err(internal(format!("{op:?} of {}", a.ty()))),
    })
}

fn invalid_cast(a: Scalar, to: ScalarType) -> VrError {
    VrError::runtime(format!(
        "invalid cast: {} value {} does not fit {to}",
        a.ty(),
        show(a)
    ))
}

/// A scalar as messages print it.
fn show(a: Scalar) -> String {
    match a {
        Scalar::Bool(x) => x.to_string(),
        Scalar::I32(x) => x.to_string(),
        Scalar::I64(x) => x.to_string(),
        Scalar::F32(x) => x.to_string(),
        Scalar::F64(x) => x.to_string(),
        Scalar::C64(x) => x.to_string(),
        Scalar::C128(x) => x.to_string(),
    }
}

/// Float to integer: truncation toward zero; NaN and out-of-range values are errors.
fn float_to_int(x: f64, a: Scalar, to: ScalarType) -> VrResult<i64> {
    let t = x.trunc();
    let fits = match to {
        ScalarType::I32 => (-2147483648.0..=2147483647.0).contains(&t),
        _ => (-9223372036854775808.0..9223372036854775808.0).contains(&t),
    };
    if x.is_nan() || !fits {
        return Err(invalid_cast(a, to));
    }
    Ok(t as i64)
}

/// `cast` between scalar types (docs/vrir-semantics.md, "Arithmetic").
pub(crate) fn cast(a: Scalar, to: ScalarType) -> VrResult<Scalar> {
    use Scalar::*;
    if a.ty() == to {
        return Ok(a);
    }
    // Complex sources convert only to complex types.
    if let C64(_) | C128(_) = a {
        let (re, im) = complex_parts(a);
        return match to {
            ScalarType::C64 => Ok(C64(Complex32::new(re as f32, im as f32))),
            ScalarType::C128 => Ok(C128(Complex64::new(re, im))),
            _ => Err(internal(format!("cast from {} to {to}", a.ty()))),
        };
    }
    // Now `a` is bool, integer or float.
    if to == ScalarType::Bool {
        let nonzero = match a {
            Bool(x) => x,
            I32(x) => x != 0,
            I64(x) => x != 0,
            F32(x) => x != 0.0,
            F64(x) => x != 0.0,
            _ => return Err(internal("cast to bool")),
        };
        return Ok(Bool(nonzero));
    }
    Ok(match (a, to) {
        (I32(x), ScalarType::I64) => I64(x as i64),
        (I64(x), ScalarType::I32) => I32(x as i32),
        (Bool(x), ScalarType::I32) => I32(x as i32),
        (Bool(x), ScalarType::I64) => I64(x as i64),
        (F32(x), ScalarType::I32 | ScalarType::I64) => int_of(float_to_int(x as f64, a, to)?, to),
        (F64(x), ScalarType::I32 | ScalarType::I64) => int_of(float_to_int(x, a, to)?, to),
        // Integer to float rounds to nearest (Rust's `as` does).
        (I32(x), ScalarType::F32) => F32(x as f32),
        (I64(x), ScalarType::F32) => F32(x as f32),
        (I32(x), ScalarType::F64) => F64(x as f64),
        (I64(x), ScalarType::F64) => F64(x as f64),
        (Bool(x), ScalarType::F32) => F32(x as u8 as f32),
        (Bool(x), ScalarType::F64) => F64(x as u8 as f64),
        (F32(x), ScalarType::F64) => F64(x as f64),
        (F64(x), ScalarType::F32) => F32(x as f32),
        (_, ScalarType::C64) => {
            let re = real_f64(a).ok_or_else(|| internal("cast to c64"))?;
            // Direct to f32: an integer rounds once, to nearest.
            let re32 = match a {
                I64(x) => x as f32,
                I32(x) => x as f32,
                _ => re as f32,
            };
            C64(Complex32::new(re32, 0.0))
        }
        (_, ScalarType::C128) => C128(Complex64::new(
            real_f64(a).ok_or_else(|| internal("cast to c128"))?,
            0.0,
        )),
        _ => return Err(internal(format!("cast from {} to {to}", a.ty()))),
    })
}

fn int_of(v: i64, to: ScalarType) -> Scalar {
    if to == ScalarType::I32 {
        Scalar::I32(v as i32)
    } else {
        Scalar::I64(v)
    }
}

fn real_f64(a: Scalar) -> Option<f64> {
    a.as_f64()
}

fn complex_parts(a: Scalar) -> (f64, f64) {
    match a {
        Scalar::C64(c) => (c.re as f64, c.im as f64),
        Scalar::C128(c) => (c.re, c.im),
        other => (other.as_f64().unwrap_or(0.0), 0.0),
    }
}

/// Element type of a library function's result for arguments of element type `t`
/// (the first argument's, for two-argument functions).
pub(crate) fn lib_result(f: LibFn, t: ScalarType) -> ScalarType {
    match f {
        LibFn::IsNan | LibFn::IsInf => ScalarType::Bool,
        LibFn::Real | LibFn::Imag => t.real_part(),
        LibFn::Abs if t.is_complex() => t.real_part(),
        LibFn::Complex => match t {
            ScalarType::F32 => ScalarType::C64,
            _ => ScalarType::C128,
        },
        _ => t,
    }
}

/// A one-argument element-wise library function on a scalar.
pub(crate) fn lib1(f: LibFn, a: Scalar) -> VrResult<Scalar> {
    use Scalar::*;
    let bad = || internal(format!("{} of {}", f.name(), a.ty()));
    Ok(match f {
        LibFn::Sqrt
        | LibFn::Exp
        | LibFn::Log
        | LibFn::Log10
        | LibFn::Sin
        | LibFn::Cos
        | LibFn::Tan
        | LibFn::Asin
        | LibFn::Acos
        | LibFn::Atan
        | LibFn::Sinh
        | LibFn::Cosh
        | LibFn::Tanh => match a {
            F32(x) => F32(transcendental!(f, x)),
            F64(x) => F64(transcendental!(f, x)),
            C64(x) => C64(complex_math::c64(f, x, x)),
            C128(x) => C128(complex_math::c128(f, x, x)),
            _ => return Err(bad()),
        },
        LibFn::Expm1 => match a {
            F32(x) => F32(x.exp_m1()),
            F64(x) => F64(x.exp_m1()),
            _ => return Err(bad()),
        },
        LibFn::Abs => match a {
            I32(x) => I32(x.wrapping_abs()),
            I64(x) => I64(x.wrapping_abs()),
            F32(x) => F32(x.abs()),
            F64(x) => F64(x.abs()),
            C64(x) => F32(x.re.hypot(x.im)),
            C128(x) => F64(x.re.hypot(x.im)),
            _ => return Err(bad()),
        },
        LibFn::Floor | LibFn::Ceil | LibFn::Round | LibFn::Trunc => match a {
            I32(_) | I64(_) => a,
            F32(x) => F32(rounding!(f, x)),
            F64(x) => F64(rounding!(f, x)),
            _ => return Err(bad()),
        },
        LibFn::IsNan => Bool(match a {
            F32(x) => x.is_nan(),
            F64(x) => x.is_nan(),
            C64(x) => x.re.is_nan() || x.im.is_nan(),
            C128(x) => x.re.is_nan() || x.im.is_nan(),
            _ => false,
        }),
        LibFn::IsInf => Bool(match a {
            F32(x) => x.is_infinite(),
            F64(x) => x.is_infinite(),
            C64(x) => x.re.is_infinite() || x.im.is_infinite(),
            C128(x) => x.re.is_infinite() || x.im.is_infinite(),
            _ => false,
        }),
        LibFn::Real => match a {
            C64(x) => F32(x.re),
            C128(x) => F64(x.re),
            _ => a,
        },
        LibFn::Imag => match a {
            C64(x) => F32(x.im),
            C128(x) => F64(x.im),
            Bool(_) => return Err(bad()),
            _ => Scalar::zero(a.ty()),
        },
        LibFn::Conj => match a {
            C64(x) => C64(x.conj()),
            C128(x) => C128(x.conj()),
            _ => a,
        },
        _ => return Err(bad()),
    })
}

/// A two-argument element-wise library function on scalars of one type.
pub(crate) fn lib2(f: LibFn, a: Scalar, b: Scalar) -> VrResult<Scalar> {
    use Scalar::*;
    let bad = || internal(format!("{} of {} and {}", f.name(), a.ty(), b.ty()));
    Ok(match (f, a, b) {
        (LibFn::Atan2, F32(x), F32(y)) => F32(x.atan2(y)),
        (LibFn::Atan2, F64(x), F64(y)) => F64(x.atan2(y)),
        (LibFn::Pow, F32(x), F32(y)) => F32(x.powf(y)),
        (LibFn::Pow, F64(x), F64(y)) => F64(x.powf(y)),
        (LibFn::Pow, C64(x), C64(y)) => C64(complex_math::c64(f, x, y)),
        (LibFn::Pow, C128(x), C128(y)) => C128(complex_math::c128(f, x, y)),
        (LibFn::Pow, I32(x), I32(y)) => I32(int_pow(x as i64, y as i64)? as i32),
        (LibFn::Pow, I64(x), I64(y)) => I64(int_pow(x, y)?),
        (LibFn::Min | LibFn::Max, I32(x), I32(y)) => {
            I32(if (f == LibFn::Min) == (x <= y) { x } else { y })
        }
        (LibFn::Min | LibFn::Max, I64(x), I64(y)) => {
            I64(if (f == LibFn::Min) == (x <= y) { x } else { y })
        }
        (LibFn::Min | LibFn::Max, F32(x), F32(y)) => {
            F32(float_min_max(f, x as f64, y as f64) as f32)
        }
        (LibFn::Min | LibFn::Max, F64(x), F64(y)) => F64(float_min_max(f, x, y)),
        (LibFn::Rem, I32(x), I32(y)) => I32(if y == 0 {
            return Err(division_by_zero());
        } else {
            x.wrapping_rem(y)
        }),
        (LibFn::Rem, I64(x), I64(y)) => I64(if y == 0 {
            return Err(division_by_zero());
        } else {
            x.wrapping_rem(y)
        }),
        (LibFn::Rem, F32(x), F32(y)) => F32(x % y),
        (LibFn::Rem, F64(x), F64(y)) => F64(x % y),
        (LibFn::Complex, F32(x), F32(y)) => C64(Complex32::new(x, y)),
        (LibFn::Complex, F64(x), F64(y)) => C128(Complex64::new(x, y)),
        _ => return Err(bad()),
    })
}

/// `min`/`max` of floats: NaN propagates.
/// NaN propagates; on a tie the first operand is returned, so `max(0, -0)` is `0` and
/// `max(-0, 0)` is `-0`, as in R (std's `f64::max` leaves the sign of a zero tie open).
fn float_min_max(f: LibFn, x: f64, y: f64) -> f64 {
    let y_wins = if f == LibFn::Min { y < x } else { y > x };
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if y_wins {
        y
    } else {
        x
    }
}

/// Integer power by squaring, wrapping on overflow (the low bits of the exact power,
/// which for an i32 operand are the low 32 bits of the i64 computation); a negative
/// exponent is an error.
fn int_pow(base: i64, exp: i64) -> VrResult<i64> {
    if exp < 0 {
        return Err(VrError::runtime(format!(
            "negative integer exponent {exp} in pow"
        )));
    }
    let (mut acc, mut b, mut e) = (1i64, base, exp as u64);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    Ok(acc)
}
