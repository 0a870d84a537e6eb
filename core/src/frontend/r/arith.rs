//! R's double `^`, `%%` and `%/%` where C's (and VRIR's) operations give other answers.
//!
//! - `^` is R_pow (arithmetic.c): `x^2` is `x * x`; `1^y` and `x^0` are 1; a zero base
//!   gives `+0` or `+Inf` whatever its sign and the exponent's parity (C's `pow(-0, 3)`
//!   is `-0`, `pow(-0, -1)` `-Inf`); a negative base with an infinite exponent, and
//!   `-Inf` with a fractional one, are NaN (C: 0, 1 or Inf); `(-Inf)^-3` is `+0`. VRIR's
//!   `pow` is C's, so the double `^` calls the helper [`POW`] with R's cases.
//! - `%%` and `%/%` of doubles finish in `long double` in R (`tmp = x1 - floor(q) * x2`
//!   and a second floor of `tmp / x2`, with special rules for infinite divisors and
//!   quotients below 1): `8 %% 0.001` is `0.0009999999999998335`, `1 %/% 0.1` is 9,
//!   `1 %% -Inf` is `-Inf`, where `x - floor(x / y) * y` in doubles gives 0, 10, NaN.
//!   Where both operands are whole numbers below 2^31 in magnitude every step of R's
//!   computation is exact, and so is VRIR's `mod`/`idiv`: that case is compiled (with
//!   `%/%`'s `-0` made `0`, as R never gives it); any other operand raises
//!   [`INEXACT_MODULUS`] (kind `unsupported`: the call runs in R). Found by the random
//!   R programs (issue 21).

use super::super::lower::{Lowered, Lowerer};
use super::super::types::Ty;
use crate::vrir::{self, LibFn, Literal, ReduceOp, ScalarType};

/// The helper computing R's double `x^y`.
pub const POW: &str = "_r_pow";

/// Reason raised where a double `%%` or `%/%` has an operand R's long-double steps might
/// round differently from compiled code.
pub const INEXACT_MODULUS: &str = "inexact_modulus";

const POW_SOURCE: &str = "(module r_arith :index-base 1
  (function _r_pow ((x f64) (y f64)) (f64)
    (locals)
    (if (== y 2.0) (block (return (* x x))))
    (if (or (== x 1.0) (== y 0.0)) (block (return 1.0)))
    (if (== x 0.0)
      (block
        (if (> y 0.0) (block (return 0.0)))
        (if (< y 0.0) (block (return inf)))
        (return y)))
    (if (or (isnan x) (isnan y)) (block (return (+ x y))))
    (if (and (not (isinf x)) (not (isinf y))) (block (return (pow x y))))
    (if (isinf x)
      (block
        (if (> x 0.0)
          (block
            (if (< y 0.0) (block (return 0.0)))
            (return x)))
        (if (and (not (isinf y)) (== y (floor y)))
          (block
            (if (< y 0.0) (block (return 0.0)))
            (if (!= (rem y 2.0) 0.0) (block (return x)))
            (return (neg x))))))
    (if (and (isinf y) (>= x 0.0))
      (block
        (if (> y 0.0)
          (block
            (if (>= x 1.0) (block (return y)))
            (return 0.0)))
        (if (< x 1.0) (block (return (neg y))))
        (return 0.0)))
    (return nan)))";

/// R's `a ^ b` of doubles (`a`, `b` already doubles, conformed, of rank up to `rank`).
pub fn pow(lw: &mut Lowerer, a: Lowered, b: Lowered, rank: u32) -> Lowered {
    let ty = Ty::array(ScalarType::F64, rank);
    if matches!(b.expr, vrir::Expr::Const { value: Literal::F64(y) } if y == 2.0) {
        // R_POW's square, and the commonest power: VRIR's `pow` by 2, which is `x * x`
        // for every x (LLVM folds it to one multiplication), so no call.
        return Lowered::new(vrir::Expr::Lib { func: LibFn::Pow, args: vec![a.expr, b.expr] }, ty);
    }
    lw.prog.helpers.entry(POW.to_string()).or_insert_with(|| {
        let m = vrir::text::parse_module(POW_SOURCE).expect("R's pow helper parses");
        m.functions.into_iter().next().expect("one function")
    });
    let args = vec![a.expr, b.expr];
    let expr = if rank == 0 {
        vrir::Expr::Call { func: POW.into(), args }
    } else {
        vrir::Expr::Map { func: POW.into(), args }
    };
    Lowered::new(expr, ty)
}

/// `%%`/`%/%` of doubles: raise [`INEXACT_MODULUS`] unless every element of both
/// operands is a whole number of magnitude below 2^31 (see the module doc); returns the
/// operands to use.
pub fn exact_operands(lw: &mut Lowerer, a: Lowered, b: Lowered) -> (Lowered, Lowered) {
    let small_whole = |x: &vrir::Expr| {
        let x = x.clone();
        vrir::Expr::binary(
            vrir::BinOp::And,
            vrir::Expr::binary(vrir::BinOp::Eq, vrir::Expr::Lib { func: LibFn::Floor, args: vec![x.clone()] }, x.clone()),
            vrir::Expr::binary(vrir::BinOp::Lt, vrir::Expr::Lib { func: LibFn::Abs, args: vec![x] }, vrir::Expr::f64(2_147_483_648.0)),
        )
    };
    let known = |v: &Lowered| matches!(v.expr, vrir::Expr::Const { value: Literal::F64(x) } if x == x.floor() && x.abs() < 2_147_483_648.0);
    let mut conds = Vec::new();
    let mut checked = |lw: &mut Lowerer, v: Lowered| {
        if known(&v) {
            return v;
        }
        let v = lw.hoist(v);
        let ok = small_whole(&v.expr);
        conds.push(if v.ty.rank == 0 {
            vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(ok) }
        } else {
            let good = lw.cast(Lowered::new(ok, v.ty.with_elem(ScalarType::Bool)), ScalarType::I64);
            vrir::Expr::binary(
                vrir::BinOp::Ne,
                vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(good.expr), axis: None, acc: None },
                vrir::Expr::Lib { func: LibFn::Len, args: vec![v.expr.clone()] },
            )
        });
        v
    };
    let a = checked(lw, a);
    let b = checked(lw, b);
    if let Some(cond) = conds.into_iter().reduce(|x, y| vrir::Expr::binary(vrir::BinOp::Or, x, y)) {
        lw.raise_if(cond, INEXACT_MODULUS);
    }
    (a, b)
}
