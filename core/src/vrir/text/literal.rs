//! The spelling of constants, read and written: integers with an optional `:i32`/`:i64`
//! suffix, floats that always contain `.` or an exponent (or are `nan`, `inf`, `-inf`)
//! with an optional `:f32`/`:f64` suffix, and the parts of complex constants.
//!
//! Floats are written in the shortest form that reads back to the same value of their own
//! type, and read directly at their own type (an `f32` is rounded once, from the decimal).

use crate::vrir::ast::Literal;

fn is_named_float(s: &str) -> bool {
    matches!(s, "nan" | "inf" | "-inf" | "+inf")
}

fn looks_numeric(s: &str) -> bool {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let mut chars = unsigned.chars();
    match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('.') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// A constant atom, `None` when the atom is not shaped like one (then it may be a name).
pub fn read_literal(s: &str) -> Result<Option<Literal>, String> {
    match s {
        "true" => return Ok(Some(Literal::Bool(true))),
        "false" => return Ok(Some(Literal::Bool(false))),
        _ => {}
    }
    let (body, suffix) = match s.split_once(':') {
        Some((b, suffix)) => (b, Some(suffix)),
        None => (s, None),
    };
    if is_named_float(body) || looks_numeric(body) && (body.contains(['.', 'e', 'E'])) {
        return match suffix {
            None | Some("f64") => Ok(Some(Literal::F64(float(body)?))),
            Some("f32") => Ok(Some(Literal::F32(float(body)?))),
            Some("i32" | "i64") => Err(format!(
                "`{s}`: a float constant cannot have an integer type"
            )),
            Some(other) => Err(format!(
                "`{s}`: unknown constant type `{other}` (expected f32 or f64)"
            )),
        };
    }
    if !looks_numeric(body) {
        return Ok(None);
    }
    if !body
        .strip_prefix(['-', '+'])
        .unwrap_or(body)
        .bytes()
        .all(|b| b.is_ascii_digit())
    {
        return Err(format!("`{s}` is not a number"));
    }
    let out_of_range = |t: &str| format!("`{s}` is out of range for {t}");
    match suffix {
        None | Some("i64") => body
            .parse()
            .map(|v| Some(Literal::I64(v)))
            .map_err(|_| out_of_range("i64")),
        Some("i32") => body
            .parse()
            .map(|v| Some(Literal::I32(v)))
            .map_err(|_| out_of_range("i32")),
        Some("f32" | "f64") => Err(format!(
            "`{s}`: a float constant needs a `.` or an exponent (`{body}.0`)"
        )),
        Some(other) => Err(format!(
            "`{s}`: unknown constant type `{other}` (expected i32 or i64)"
        )),
    }
}

/// Parse a float atom at type `T` directly (no double rounding through f64 for f32).
fn float<T: FloatText>(body: &str) -> Result<T, String> {
    match body {
        "nan" => return Ok(T::NAN),
        "inf" | "+inf" => return Ok(T::INFINITY),
        "-inf" => return Ok(T::NEG_INFINITY),
        _ => {}
    }
    if !is_float_syntax(body) {
        return Err(format!("`{body}` is not a number"));
    }
    let v: T = body
        .parse()
        .map_err(|_| format!("`{body}` is not a number"))?;
    if v.is_infinite() {
        return Err(format!(
            "`{body}` is out of range (write `inf` for infinity)"
        ));
    }
    Ok(v)
}

/// `[+-]digits[.digits][(e|E)[+-]digits]` with at least one mantissa digit; `.5` and `5.`
/// are allowed. Checked here because Rust's parser also accepts words like "infinity".
fn is_float_syntax(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = match exponent {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
    };
    mantissa_ok && exponent_ok
}

/// What reading and writing need of f32 and f64, so that one function serves both.
pub trait FloatText: Copy + std::str::FromStr + std::fmt::Debug {
    const NAN: Self;
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    fn is_infinite(self) -> bool;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
}

impl FloatText for f32 {
    const NAN: f32 = f32::NAN;
    const INFINITY: f32 = f32::INFINITY;
    const NEG_INFINITY: f32 = f32::NEG_INFINITY;
    fn is_infinite(self) -> bool {
        f32::is_infinite(self)
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn is_sign_negative(self) -> bool {
        f32::is_sign_negative(self)
    }
}

impl FloatText for f64 {
    const NAN: f64 = f64::NAN;
    const INFINITY: f64 = f64::INFINITY;
    const NEG_INFINITY: f64 = f64::NEG_INFINITY;
    fn is_infinite(self) -> bool {
        f64::is_infinite(self)
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn is_sign_negative(self) -> bool {
        f64::is_sign_negative(self)
    }
}

/// A part of a complex constant: a float atom without suffix. `Err(None)` when the atom
/// is not shaped like a float at all (the caller names what it found).
pub fn complex_part_text<T: FloatText>(s: &str) -> Result<T, Option<String>> {
    let float_shaped = is_named_float(s) || looks_numeric(s) && s.contains(['.', 'e', 'E']);
    if !float_shaped || s.contains(':') {
        return Err(None);
    }
    float(s).map_err(Some)
}

/// Shortest round-trip form that always reads back as a float: Rust's `Debug` gives
/// `1.0`, `0.1`, `1e-7`, `1e16`, `-0.0` (it switches to an exponent outside 1e-4..1e16).
pub fn float_text<T: FloatText>(v: T) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        (if v.is_sign_negative() { "-inf" } else { "inf" }).into()
    } else {
        format!("{v:?}")
    }
}
