//! Scalar VRIR functions that give Octave's answer where VRIR's own operation gives
//! another (rounding half away from zero, saturating integer conversion, `mod` and `rem`
//! with Octave's tolerance, `max`/`min` that skip NaN, Octave's range element count).
//! Each is written in VRIR's text form, transcribed from Octave's sources
//! (liboctave/numeric/lo-mappers.h, liboctave/array/Range.cc, oct-inttypes.h), and
//! added to the module the first time a function uses it. Element-wise use over arrays
//! goes through VRIR's `map`.

use crate::frontend::lower::Lowerer;
use crate::vrir;

/// `round`: half away from zero (C's `round`; VRIR's `round` is half to even).
pub const ROUND: &str = "_m_round";
/// double -> int32: rounded half away from zero, saturated, NaN to 0 (Octave's
/// `octave_int<int32_t>` conversion).
pub const TO_INT32: &str = "_m_to_int32";
/// double -> int64: rounded half away from zero, saturated at the int64 range, NaN to 0
/// (oct-inttypes.cc `convert_real`).
pub const TO_INT64: &str = "_m_to_int64";
/// int64 `+`, `-`, `.*`, `./` of two int64 values and `-x`: exact, saturated at the int64
/// range; the quotient rounded half away from zero, `x / 0` intmax, intmin or 0
/// (oct-inttypes.h `octave_int_arith_base<int64_t, true>`).
pub const I64_ADD: &str = "_m_i64_add";
pub const I64_SUB: &str = "_m_i64_sub";
pub const I64_MUL: &str = "_m_i64_mul";
pub const I64_DIV: &str = "_m_i64_div";
pub const I64_NEG: &str = "_m_i64_neg";
/// int64 with double, as Octave emulates it without long double (oct-inttypes.cc,
/// the Debian build of Octave 7): `x + y` is `x + int64(y)` (for |y| >= 2^63 or NaN:
/// `(x + int64(y/2)) + int64(y/2)`), `x - y` is `x + (-y)`, `y - x` is `(-x) + y` (for
/// x = intmin: `int64(y + 2^63)`); `x .* y` for a whole y is `x .* int64(y)`, for y =
/// 0.5 `x ./ 2`, for NaN and Inf `int64(double(x) * y)`; `x ./ y` for a whole y is
/// `x ./ int64(y)`, otherwise `x .* (1 / y)`; `y ./ x` is `int64(y / double(x))`.
pub const I64_ADD_F64: &str = "_m_i64_add_f64";
pub const F64_SUB_I64: &str = "_m_f64_sub_i64";
pub const I64_MUL_F64: &str = "_m_i64_mul_f64";
pub const I64_DIV_F64: &str = "_m_i64_div_f64";
/// Is `x .* y` of an int64 x and this double y one that compiled code computes as Octave
/// does (a whole number, 0.5, NaN, Inf; a whole |y| >= 2^63 saturates unless x is 0)? Octave multiplies by any other fraction through
/// a 128-bit split of the double (and by -0.5 through an undefined conversion), which
/// compiled code leaves to it.
pub const I64_MUL_EXACT: &str = "_m_i64_mul_exact";
/// The same for `x ./ y`: a whole y, or 1 / y one of `I64_MUL_EXACT`'s.
pub const I64_DIV_EXACT: &str = "_m_i64_div_exact";
/// The comparison of an int64 x with a double y as Octave's `emulate_mop` makes it: -1
/// (x < y), 0, 1 (x > y), 2 (y is NaN). double(x) is compared with y; only when they are
/// equal are the integers compared, and an x whose double is 2^63 (intmax) is greater,
/// one whose double is -2^63 (intmin included) less.
pub const I64_CMP_F64: &str = "_m_i64_cmp_f64";
/// `abs` of an int64: abs(intmin) is intmax.
pub const I64_ABS: &str = "_m_i64_abs";
/// `mod(x, y)` of doubles (lo-mappers.h `octave::math::mod`).
pub const MOD: &str = "_m_mod";
/// `rem(x, y)` of doubles (lo-mappers.h `octave::math::rem`).
pub const REM: &str = "_m_rem";
/// Two-argument `max`/`min` of doubles: a NaN operand gives the other one.
pub const MAX: &str = "_m_max";
pub const MIN: &str = "_m_min";
/// The number of elements of the range `base:inc:limit` (Range.cc `xinit`); -1 when
/// Octave's range holds NaN, -2 when it is too long to store.
pub const RANGE_NUMEL: &str = "_m_range_numel";
/// The last element of a range of `n` elements (Range.cc `xfinal_value`).
pub const RANGE_FINAL: &str = "_m_range_final";
/// `sign(x)` of a double.
pub const SIGN: &str = "_m_sign";

/// double -> int8, int16, uint8, uint16 (stored as i32), uint32 (as i64): rounded half
/// away from zero, saturated at the class's range, NaN to 0 (Octave's `convert_real`).
pub const TO_INT8: &str = "_m_to_int8";
pub const TO_INT16: &str = "_m_to_int16";
pub const TO_UINT8: &str = "_m_to_uint8";
pub const TO_UINT16: &str = "_m_to_uint16";
pub const TO_UINT32: &str = "_m_to_uint32";

/// The conversion helper of an integer class held in a wider element type.
pub fn to_class(c: crate::frontend::types::IntClass) -> &'static str {
    use crate::frontend::types::IntClass::*;
    match c {
        Int8 => TO_INT8,
        Int16 => TO_INT16,
        Uint8 => TO_UINT8,
        Uint16 => TO_UINT16,
        Uint32 => TO_UINT32,
    }
}

fn source(name: &str) -> Option<&'static str> {
    Some(match name {
        ROUND => {
            "(function _m_round ((x f64)) (f64)
              (locals (t f64))
              (set t (trunc x))
              (if (>= (abs (- x t)) 0.5)
                (block (if (> x 0.0) (block (set t (+ t 1.0))) (block (set t (- t 1.0))))))
              (return t))"
        }
        TO_INT32 => {
            "(function _m_to_int32 ((x f64)) (i32)
              (locals (t f64))
              (if (!= x x) (block (return 0:i32)))
              (set t (call _m_round x))
              (if (>= t 2147483647.0) (block (return 2147483647:i32)))
              (if (<= t -2147483648.0) (block (return -2147483648:i32)))
              (return (cast i32 t)))"
        }
        TO_INT8 => {
            "(function _m_to_int8 ((x f64)) (i32)
              (locals (t f64))
              (if (!= x x) (block (return 0:i32)))
              (set t (call _m_round x))
              (if (>= t 127.0) (block (return 127:i32)))
              (if (<= t -128.0) (block (return -128:i32)))
              (return (cast i32 t)))"
        }
        TO_INT16 => {
            "(function _m_to_int16 ((x f64)) (i32)
              (locals (t f64))
              (if (!= x x) (block (return 0:i32)))
              (set t (call _m_round x))
              (if (>= t 32767.0) (block (return 32767:i32)))
              (if (<= t -32768.0) (block (return -32768:i32)))
              (return (cast i32 t)))"
        }
        TO_UINT8 => {
            "(function _m_to_uint8 ((x f64)) (i32)
              (locals (t f64))
              (if (!= x x) (block (return 0:i32)))
              (set t (call _m_round x))
              (if (>= t 255.0) (block (return 255:i32)))
              (if (<= t 0.0) (block (return 0:i32)))
              (return (cast i32 t)))"
        }
        TO_UINT16 => {
            "(function _m_to_uint16 ((x f64)) (i32)
              (locals (t f64))
              (if (!= x x) (block (return 0:i32)))
              (set t (call _m_round x))
              (if (>= t 65535.0) (block (return 65535:i32)))
              (if (<= t 0.0) (block (return 0:i32)))
              (return (cast i32 t)))"
        }
        TO_UINT32 => {
            "(function _m_to_uint32 ((x f64)) (i64)
              (locals (t f64))
              (if (!= x x) (block (return 0)))
              (set t (call _m_round x))
              (if (>= t 4294967295.0) (block (return 4294967295)))
              (if (<= t 0.0) (block (return 0)))
              (return (cast i64 t)))"
        }
        TO_INT64 => {
            "(function _m_to_int64 ((x f64)) (i64)
              (locals (t f64))
              (if (!= x x) (block (return 0)))
              (set t (call _m_round x))
              (if (>= t 9223372036854775808.0) (block (return 9223372036854775807)))
              (if (<= t -9223372036854775808.0) (block (return (- -9223372036854775807 1))))
              (return (cast i64 t)))"
        }
        I64_ADD => {
            "(function _m_i64_add ((a i64) (b i64)) (i64)
              (locals (s i64))
              (set s (+ a b))
              (if (and (>= a 0) (and (>= b 0) (< s 0))) (block (return 9223372036854775807)))
              (if (and (< a 0) (and (< b 0) (>= s 0))) (block (return (- -9223372036854775807 1))))
              (return s))"
        }
        I64_SUB => {
            "(function _m_i64_sub ((a i64) (b i64)) (i64)
              (locals (s i64))
              (set s (- a b))
              (if (and (>= a 0) (and (< b 0) (< s 0))) (block (return 9223372036854775807)))
              (if (and (< a 0) (and (>= b 0) (>= s 0))) (block (return (- -9223372036854775807 1))))
              (return s))"
        }
        I64_NEG => {
            "(function _m_i64_neg ((a i64)) (i64)
              (locals)
              (if (== a (- -9223372036854775807 1)) (block (return 9223372036854775807)))
              (return (neg a)))"
        }
        I64_ABS => {
            "(function _m_i64_abs ((a i64)) (i64)
              (locals)
              (if (< a 0) (block (return (call _m_i64_neg a))))
              (return a))"
        }
        I64_MUL => {
            // The wrapped product, unless dividing it back does not give the factor.
            "(function _m_i64_mul ((a i64) (b i64)) (i64)
              (locals (p i64) (pos bool))
              (if (or (== a 0) (== b 0)) (block (return 0)))
              (set pos (or (and (< a 0) (< b 0)) (and (> a 0) (> b 0))))
              (if (or (and (== a -1) (== b (- -9223372036854775807 1))) (and (== b -1) (== a (- -9223372036854775807 1))))
                (block (return 9223372036854775807)))
              (set p (* a b))
              (if (!= (/ p a) b)
                (block (if pos (block (return 9223372036854775807)) (block (return (- -9223372036854775807 1))))))
              (return p))"
        }
        I64_DIV => {
            // Rounded half away from zero: 2|r| >= |y| as -|r| <= -|y| + |r| (no overflow).
            "(function _m_i64_div ((x i64) (y i64)) (i64)
              (locals (q i64) (r i64) (nr i64) (ny i64))
              (if (== y 0)
                (block
                  (if (> x 0) (block (return 9223372036854775807)))
                  (if (< x 0) (block (return (- -9223372036854775807 1))))
                  (return 0)))
              (if (and (== y -1) (== x (- -9223372036854775807 1))) (block (return 9223372036854775807)))
              (set q (/ x y))
              (set r (- x (* q y)))
              (set nr r)
              (if (> r 0) (block (set nr (neg r))))
              (set ny y)
              (if (> y 0) (block (set ny (neg y))))
              (if (and (!= r 0) (<= nr (- ny nr)))
                (block
                  (if (or (and (< x 0) (< y 0)) (and (> x 0) (> y 0)))
                    (block (set q (+ q 1)))
                    (block (set q (- q 1))))))
              (return q))"
        }
        I64_ADD_F64 => {
            "(function _m_i64_add_f64 ((x i64) (y f64)) (i64)
              (locals (h i64))
              (if (< (abs y) 9223372036854775808.0) (block (return (call _m_i64_add x (call _m_to_int64 y)))))
              (set h (call _m_to_int64 (/ y 2.0)))
              (return (call _m_i64_add (call _m_i64_add x h) h)))"
        }
        F64_SUB_I64 => {
            "(function _m_f64_sub_i64 ((y f64) (x i64)) (i64)
              (locals)
              (if (== x (- -9223372036854775807 1)) (block (return (call _m_to_int64 (+ y 9223372036854775808.0)))))
              (return (call _m_i64_add_f64 (neg x) y)))"
        }
        I64_MUL_EXACT => {
            "(function _m_i64_mul_exact ((y f64)) (bool)
              (locals)
              (return (or (== (trunc y) y) (or (== y 0.5) (or (!= y y) (isinf y))))))"
        }
        I64_DIV_EXACT => {
            "(function _m_i64_div_exact ((y f64)) (bool)
              (locals)
              (return (or (and (< (abs y) 9223372036854775808.0) (== (trunc y) y)) (call _m_i64_mul_exact (/ 1.0 y)))))"
        }
        I64_MUL_F64 => {
            // Only for the y of `_m_i64_mul_exact` (the lowered code checks first).
            "(function _m_i64_mul_f64 ((x i64) (y f64)) (i64)
              (locals)
              (if (and (< (abs y) 9223372036854775808.0) (== (trunc y) y)) (block (return (call _m_i64_mul x (cast i64 y)))))
              (if (== y 0.5) (block (return (call _m_i64_div x 2))))
              (if (or (!= y y) (isinf y)) (block (return (call _m_to_int64 (* (cast f64 x) y)))))
              (if (== x 0) (block (return 0)))
              (if (or (and (< x 0) (< y 0.0)) (and (> x 0) (> y 0.0))) (block (return 9223372036854775807)))
              (return (- -9223372036854775807 1)))"
        }
        I64_DIV_F64 => {
            // A y that is no whole number multiplies by 1 / y (checked by the caller
            // with `_m_i64_mul_exact`).
            "(function _m_i64_div_f64 ((x i64) (y f64)) (i64)
              (locals)
              (if (and (< (abs y) 9223372036854775808.0) (== (trunc y) y)) (block (return (call _m_i64_div x (cast i64 y)))))
              (return (call _m_i64_mul_f64 x (/ 1.0 y))))"
        }
        I64_CMP_F64 => {
            "(function _m_i64_cmp_f64 ((x i64) (y f64)) (i64)
              (locals (xx f64) (yi i64))
              (if (!= y y) (block (return 2)))
              (set xx (cast f64 x))
              (if (< xx y) (block (return -1)))
              (if (> xx y) (block (return 1)))
              (if (>= xx 9223372036854775808.0) (block (return 1)))
              (if (<= xx -9223372036854775808.0) (block (return -1)))
              (set yi (cast i64 xx))
              (if (< x yi) (block (return -1)))
              (if (> x yi) (block (return 1)))
              (return 0))"
        }
        MOD => {
            // y == 0: x. A non-integer y whose quotient is within eps of a whole number:
            // 0. Else x - floor(x/y)*y; the sign of y unless x == y.
            "(function _m_mod ((x f64) (y f64)) (f64)
              (locals (q f64) (r f64) (n f64))
              (if (== y 0.0) (block (return x)))
              (set q (/ x y))
              (set r 0.0)
              (set n (floor (+ q 0.5)))
              (if (and (!= (floor (+ y 0.5)) y) (< (abs (/ (- q n) n)) 2.220446049250313e-16))
                (block (set r 0.0))
                (block (set r (- x (* y (floor q))))))
              (if (!= x y)
                (block (if (< y 0.0) (block (set r (neg (abs r)))) (block (set r (abs r))))))
              (return r))"
        }
        REM => {
            "(function _m_rem ((x f64) (y f64)) (f64)
              (locals (q f64) (r f64) (n f64))
              (if (== y 0.0) (block (return nan)))
              (set q (/ x y))
              (set r 0.0)
              (set n (floor (+ q 0.5)))
              (if (and (!= (floor (+ y 0.5)) y) (< (abs (/ (- q n) n)) 2.220446049250313e-16))
                (block (set r 0.0))
                (block (set r (- x (* y (trunc q))))))
              (if (!= x y)
                (block (if (or (< x 0.0) (and (== x 0.0) (< (/ 1.0 x) 0.0))) (block (set r (neg (abs r)))) (block (set r (abs r))))))
              (return r))"
        }
        MAX => {
            "(function _m_max ((x f64) (y f64)) (f64)
              (locals)
              (if (!= y y) (block (return x)))
              (if (>= x y) (block (return x)))
              (return y))"
        }
        MIN => {
            "(function _m_min ((x f64) (y f64)) (f64)
              (locals)
              (if (!= y y) (block (return x)))
              (if (<= x y) (block (return x)))
              (return y))"
        }
        SIGN => {
            "(function _m_sign ((x f64)) (f64)
              (locals)
              (if (> x 0.0) (block (return 1.0)))
              (if (< x 0.0) (block (return -1.0)))
              (return x))"
        }
        RANGE_NUMEL => {
            // xinit and xnumel_internal (with Hagerty's tolerant floor xtfloor, ct = 3 eps).
            "(function _m_range_numel ((base f64) (inc f64) (limit f64)) (i64)
              (locals (ct f64) (x f64) (q f64) (rmax f64) (t1 f64) (tmp f64) (n i64) (dnel f64))
              (if (or (!= base base) (or (!= inc inc) (!= limit limit))) (block (return -1)))
              (if (or (== inc 0.0) (or (and (< limit base) (> inc 0.0)) (and (> limit base) (< inc 0.0))))
                (block (return 0)))
              (if (or (and (<= limit base) (< (+ base inc) limit)) (and (>= limit base) (> (+ base inc) limit)))
                (block (return 1)))
              (set dnel (/ (- limit base) inc))
              (if (!= dnel dnel) (block (return -1)))
              (if (or (isinf dnel) (or (isinf base) (isinf inc))) (block (return -2)))
              (if (> dnel 1e15) (block (return -2)))
              (set ct 6.661338147750939e-16)
              (set x (/ (+ (- limit base) inc) inc))
              (set q 1.0)
              (if (< x 0.0) (block (set q (- 1.0 ct))))
              (set rmax (/ q (- 2.0 ct)))
              (set t1 (+ 1.0 (floor x)))
              (set t1 (* (/ ct q) (abs t1)))
              (if (< rmax t1) (block (set t1 rmax)))
              (if (> ct t1) (block (set t1 ct)))
              (set t1 (floor (+ x t1)))
              (set tmp t1)
              (if (not (or (<= x 0.0) (< (- t1 x) rmax))) (block (set tmp (- t1 1.0))))
              (set n 0)
              (if (> tmp 0.0) (block (set n (cast i64 tmp))))
              (if (not (call _m_teq (+ base (* (cast f64 (- n 1)) inc)) limit))
                (block
                  (if (call _m_teq (+ base (* (cast f64 (- n 2)) inc)) limit)
                    (block (set n (- n 1)))
                    (block (if (call _m_teq (+ base (* (cast f64 n) inc)) limit) (block (set n (+ n 1))))))))
              (return n))"
        }
        "_m_teq" => {
            "(function _m_teq ((u f64) (v f64)) (bool)
              (locals (tu f64) (tv f64) (m f64))
              (set tu (abs u))
              (set tv (abs v))
              (set m tu)
              (if (> tv tu) (block (set m tv)))
              (return (< (abs (- u v)) (* m 6.661338147750939e-16))))"
        }
        RANGE_FINAL => {
            "(function _m_range_final ((base f64) (inc f64) (limit f64) (n i64)) (f64)
              (locals (r f64))
              (if (<= n 1) (block (return base)))
              (set r (+ base (* (cast f64 (- n 1)) inc)))
              (if (or (and (> inc 0.0) (>= r limit)) (and (< inc 0.0) (<= r limit))) (block (set r limit)))
              (if (and (== (call _m_round base) base) (== (call _m_round inc) inc)) (block (set r (call _m_round r))))
              (return r))"
        }
        _ => return None,
    })
}

/// Helpers a helper calls.
fn needs(name: &str) -> &'static [&'static str] {
    match name {
        TO_INT32 | TO_INT64 | RANGE_FINAL | TO_INT8 | TO_INT16 | TO_UINT8 | TO_UINT16 | TO_UINT32 => &[ROUND],
        I64_ABS => &[I64_NEG],
        I64_ADD_F64 => &[I64_ADD, TO_INT64],
        F64_SUB_I64 => &[I64_ADD_F64, TO_INT64],
        I64_MUL_F64 => &[I64_MUL, I64_DIV, TO_INT64],
        I64_DIV_F64 => &[I64_DIV, I64_MUL_F64],
        I64_DIV_EXACT => &[I64_MUL_EXACT],
        RANGE_NUMEL => &["_m_teq"],
        _ => &[],
    }
}

/// Add helper `name` (and what it calls) to the module being compiled; its name.
pub fn ensure(lw: &mut Lowerer, name: &'static str) -> &'static str {
    for dep in needs(name) {
        ensure(lw, dep);
    }
    if !lw.prog.helpers.contains_key(name) {
        let src = source(name).unwrap_or_else(|| panic!("no helper `{name}`"));
        let m = vrir::text::parse_module(&format!("(module helpers :index-base 1 {src})")).unwrap_or_else(|e| panic!("helper `{name}` does not parse: {e}"));
        let f = m.functions.into_iter().next().expect("one function");
        lw.prog.helpers.insert(name.to_string(), f);
    }
    name
}

/// `helper(args)` on scalars, or mapped over arrays (`map`) when any argument is one.
pub fn apply(lw: &mut Lowerer, name: &'static str, args: Vec<vrir::Expr>, any_array: bool) -> vrir::Expr {
    let func = ensure(lw, name).to_string();
    if any_array {
        vrir::Expr::Map { func, args }
    } else {
        vrir::Expr::Call { func, args }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_helper_parses_and_verifies() {
        let mut fns = Vec::new();
        for n in [
            ROUND, TO_INT32, TO_INT64, TO_INT8, TO_INT16, TO_UINT8, TO_UINT16, TO_UINT32, I64_ADD, I64_SUB, I64_MUL, I64_DIV, I64_NEG, I64_ABS, I64_ADD_F64, F64_SUB_I64, I64_MUL_F64, I64_DIV_F64, I64_MUL_EXACT, I64_DIV_EXACT, I64_CMP_F64, MOD, REM, MAX,
            MIN, SIGN, RANGE_NUMEL, "_m_teq", RANGE_FINAL,
        ] {
            let m = vrir::text::parse_module(&format!("(module h :index-base 1 {})", source(n).unwrap())).unwrap();
            fns.extend(m.functions);
        }
        let m = vrir::Module { name: "h".into(), index_base: 1, functions: fns };
        vrir::verify::verify_module(&m).unwrap();
    }
}
