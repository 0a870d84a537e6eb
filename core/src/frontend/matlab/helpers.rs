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
        TO_INT32 | RANGE_FINAL => &[ROUND],
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
        for n in [ROUND, TO_INT32, MOD, REM, MAX, MIN, SIGN, RANGE_NUMEL, "_m_teq", RANGE_FINAL] {
            let m = vrir::text::parse_module(&format!("(module h :index-base 1 {})", source(n).unwrap())).unwrap();
            fns.extend(m.functions);
        }
        let m = vrir::Module { name: "h".into(), index_base: 1, functions: fns };
        vrir::verify::verify_module(&m).unwrap();
    }
}
