//! MATLAB's operators on the engine's values: classes (double = f64, logical = bool,
//! int32 = i32, complex double = c128), element-wise arithmetic with MATLAB's operand
//! rules, integer saturation and rounding, comparisons, logical values, and the matrix
//! operators `*`, `/`, `\`, `^`.
//!
//! Shapes: every MATLAB array is compiled as an array of rank 2 or more; a value proven
//! to hold one element is a scalar (rank 0). Two arrays combine element-wise when their
//! dims are equal or when one of them has one element at run time (MATLAB's scalar
//! expansion); other sizes are Octave's broadcasting (compatible sizes: the call runs in
//! Octave, `unsupported`) or its "nonconformant arguments" error.

use super::helpers;
use super::rules::{bin, i64c, lib, COMPLEX, DOUBLE, INT32, INT64, LOGICAL};
use crate::frontend::hir::{BinOp, Line, UnOp};
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::types::{IntClass, Ty};
use crate::vrir::{self, Block, IndexFlags, LValue, LibFn, Literal, ReduceOp, ScalarType, Stmt, StmtKind};

/// Reason of operands whose sizes Octave broadcasts (the call runs in Octave).
pub const BROADCAST: &str = "broadcast";
/// Reason of operands whose sizes do not agree (Octave's error too).
pub const NONCONFORMANT: &str = "nonconformant";
/// Reason of NaN converted to a logical value (Octave's error too).
pub const NAN_LOGICAL: &str = "nan_logical";
/// Reason of a result MATLAB makes complex (sqrt of a negative number, ...): the call
/// runs in Octave.
pub const COMPLEX_RESULT: &str = "complex_result";
/// Reason of an int64 multiplied or divided by a double that is no whole number (nor
/// 0.5, NaN or Inf): Octave's exact 128-bit product is left to it.
pub const INT64_FRACTION: &str = "int64_fraction";
/// Reason of a matrix operation compiled code leaves to Octave (`\`, `/`, `^` of
/// matrices).
pub const MATRIX_OP: &str = "matrix_operation";

/// The class name MATLAB prints for an element type.
pub fn class_name(e: ScalarType) -> &'static str {
    match e {
        ScalarType::Bool => "logical",
        ScalarType::I32 => "int32",
        ScalarType::I64 => "int64",
        ScalarType::F32 => "single",
        ScalarType::F64 => "double",
        ScalarType::C64 => "single complex",
        ScalarType::C128 => "complex double",
    }
}

/// The class of `a op b` for arithmetic: an integer class wins (int32 with a double or a
/// logical is int32), then complex, then double (logical arithmetic is double).
pub fn arith_class(lw: &Lowerer, a: ScalarType, b: ScalarType, what: &str, line: Line) -> LResult<ScalarType> {
    for e in [a, b] {
        if !matches!(e, DOUBLE | LOGICAL | INT32 | INT64 | COMPLEX) {
            return Err(lw.unsupported(what, line, &format!("{} values do not compile (double, logical, int32, int64 and complex double do)", class_name(e))));
        }
    }
    if a == INT64 || b == INT64 {
        let other = if a == INT64 { b } else { a };
        if matches!(other, INT32 | COMPLEX) {
            return Err(lw.unsupported(what, line, &format!("an int64 operand with a {} one (Octave: binary operator not implemented)", class_name(other))));
        }
        return Ok(INT64);
    }
    if a == INT32 || b == INT32 {
        if a == COMPLEX || b == COMPLEX {
            return Err(lw.unsupported(what, line, "an int32 operand with a complex one (Octave: the operation is not defined)"));
        }
        return Ok(INT32);
    }
    Ok(if a == COMPLEX || b == COMPLEX { COMPLEX } else { DOUBLE })
}

/// The class of an operation with an operand of an integer class held in a wider
/// element type (`Ty::class`): that class, with a double or logical other operand or one
/// of the same class. Two different integer classes are Octave's error ("binary operator
/// not implemented for 'int8' by 'int16' operations"): `unsupported`, so that Octave runs
/// the function and raises it; so are int32, int64 and complex operands.
pub fn class_of_pair(lw: &Lowerer, a: Ty, b: Ty, what: &str, line: Line) -> LResult<IntClass> {
    let c = a.class.or(b.class).expect("an operand with a class");
    for t in [a, b] {
        match t.class {
            Some(k) if k == c => {}
            Some(k) => {
                return Err(lw.unsupported(what, line, &format!("an {} operand with an {} one (MATLAB: integers can only be combined with integers of the same class, or scalar doubles)", c.name(), k.name())))
            }
            None if matches!(t.elem, DOUBLE | LOGICAL) => {}
            None => return Err(lw.unsupported(what, line, &format!("an {} operand with a {} one (Octave: the operation is not defined)", c.name(), class_name(t.elem)))),
        }
    }
    Ok(c)
}

/// A value converted to integer class `c` as Octave converts: through double (exact for
/// every value of these classes, int32 and logical), rounded half away from zero,
/// saturated at the class's bounds, NaN to 0.
pub fn to_class(lw: &mut Lowerer, v: Lowered, c: IntClass) -> Lowered {
    if v.ty.class == Some(c) {
        return v;
    }
    let v = lw.cast(v, DOUBLE);
    let ty = Ty::of_class(c, v.ty.rank);
    if let vrir::Expr::Const { value: Literal::F64(x) } = v.expr {
        let (lo, hi) = c.bounds();
        let r = if x.is_nan() { 0.0 } else { x.round().clamp(lo, hi) };
        let lit = if c.storage() == INT64 { Literal::I64(r as i64) } else { Literal::I32(r as i32) };
        return Lowered::new(vrir::Expr::lit(lit), ty);
    }
    let arr = v.ty.rank > 0;
    Lowered::new(helpers::apply(lw, helpers::to_class(c), vec![v.expr], arr), ty)
}

/// `a op b` (`+ - .* ./`) with an operand of an integer class: computed in double, which
/// is exact for every operation of these classes whose result is in range (a product of
/// two uint32 values past 2^53 is past the class's bound, where it saturates anyway),
/// then converted to the class (rounded half away from zero, saturated, NaN to 0), as
/// Octave computes `octave_int<T>` arithmetic for T narrower than 64 bits.
fn class_arith(lw: &mut Lowerer, op: BinOp, c: IntClass, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let rank = a.ty.rank.max(b.ty.rank);
    let vop = match op {
        BinOp::Add => vrir::BinOp::Add,
        BinOp::Sub => vrir::BinOp::Sub,
        BinOp::Mul => vrir::BinOp::Mul,
        BinOp::Div => vrir::BinOp::Div,
        _ => return Err(lw.unsupported(&format!("`{}`", matlab_spelling(op)), line, &format!("of {} values (Octave's repeated saturating products are not compiled)", c.name()))),
    };
    let (a, b) = (lw.cast(a, DOUBLE), lw.cast(b, DOUBLE));
    let d = Lowered::new(bin(vop, a.expr, b.expr), Ty::array(DOUBLE, rank));
    Ok(to_class(lw, d, c))
}

/// A double value (scalar or array) converted to int32 as Octave converts: rounded half
/// away from zero, saturated, NaN to 0.
pub fn to_int32(lw: &mut Lowerer, v: Lowered) -> Lowered {
    let v = lw.cast(v, DOUBLE);
    if let vrir::Expr::Const { value: Literal::F64(x) } = v.expr {
        let r = if x.is_nan() { 0 } else { x.round().clamp(i32::MIN as f64, i32::MAX as f64) as i32 };
        return Lowered::new(vrir::Expr::lit(Literal::I32(r)), v.ty.with_elem(INT32));
    }
    let arr = v.ty.rank > 0;
    Lowered::new(helpers::apply(lw, helpers::TO_INT32, vec![v.expr], arr), v.ty.with_elem(INT32))
}

/// A value converted to int64 as Octave converts (`convert_real`): a double rounded half
/// away from zero, saturated, NaN to 0; logical and int32 values exactly.
pub fn to_int64(lw: &mut Lowerer, v: Lowered) -> Lowered {
    match v.ty.elem {
        INT64 => v,
        LOGICAL | INT32 => lw.cast(v, INT64),
        _ => {
            let v = lw.cast(v, DOUBLE);
            if let vrir::Expr::Const { value: Literal::F64(x) } = v.expr {
                let r = if x.is_nan() { 0 } else { x.round().clamp(i64::MIN as f64, i64::MAX as f64) as i64 };
                return Lowered::new(vrir::Expr::lit(Literal::I64(r)), v.ty.with_elem(INT64));
            }
            let arr = v.ty.rank > 0;
            Lowered::new(helpers::apply(lw, helpers::TO_INT64, vec![v.expr], arr), v.ty.with_elem(INT64))
        }
    }
}

/// A value converted to the integer class `e` (int32 or int64) as Octave converts.
pub fn to_int(lw: &mut Lowerer, v: Lowered, e: ScalarType) -> Lowered {
    if e == INT64 {
        to_int64(lw, v)
    } else if v.ty.elem == INT32 {
        v
    } else {
        to_int32(lw, v)
    }
}

/// A value as a logical (Octave: NaN raises "logical: NaN can't be converted to logical
/// value"; complex values are compared with zero).
pub fn to_logical(lw: &mut Lowerer, v: Lowered, line: Line) -> LResult<Lowered> {
    let ty = v.ty.with_elem(LOGICAL);
    match v.ty.elem {
        LOGICAL => Ok(v),
        INT32 => Ok(Lowered::new(bin(vrir::BinOp::Ne, v.expr, vrir::Expr::lit(Literal::I32(0))), ty)),
        INT64 => Ok(Lowered::new(bin(vrir::BinOp::Ne, v.expr, i64c(0)), ty)),
        DOUBLE => {
            let v = lw.hoist(v);
            if !matches!(v.expr, vrir::Expr::Const { value: Literal::F64(x) } if !x.is_nan()) {
                let c = any_nan(lw, &v);
                lw.raise_if(c, NAN_LOGICAL);
            }
            Ok(Lowered::new(bin(vrir::BinOp::Ne, v.expr, vrir::Expr::f64(0.0)), ty))
        }
        COMPLEX => {
            let v = lw.hoist(v);
            let re = lib(LibFn::Real, vec![v.expr.clone()]);
            let im = lib(LibFn::Imag, vec![v.expr]);
            Ok(Lowered::new(bin(vrir::BinOp::Or, bin(vrir::BinOp::Ne, re, vrir::Expr::f64(0.0)), bin(vrir::BinOp::Ne, im, vrir::Expr::f64(0.0))), ty))
        }
        other => Err(lw.unsupported("conversion to logical", line, &format!("{} values do not compile", class_name(other)))),
    }
}

/// True when any element of `v` (hoisted, double) is NaN.
pub fn any_nan(lw: &mut Lowerer, v: &Lowered) -> vrir::Expr {
    let isnan = lib(LibFn::IsNan, vec![v.expr.clone()]);
    if v.ty.rank == 0 {
        isnan
    } else {
        any_true(lw, Lowered::new(isnan, v.ty.with_elem(LOGICAL)))
    }
}

/// True when any element of a logical array is true (false for an empty one).
pub fn any_true(lw: &mut Lowerer, v: Lowered) -> vrir::Expr {
    let counts = lw.cast(v, ScalarType::I64).expr;
    bin(vrir::BinOp::Gt, vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(counts), axis: None, acc: None }, i64c(0))
}

/// The element count of an array, as i64.
pub fn numel(a: &vrir::Expr) -> vrir::Expr {
    lib(LibFn::Len, vec![a.clone()])
}

pub fn dim(a: &vrir::Expr, k: u32) -> vrir::Expr {
    vrir::Expr::Dim { arg: Box::new(a.clone()), axis: k }
}

/// The first element of an array (flattened when it has rank 2 or more).
pub fn first(a: &Lowered) -> Lowered {
    Lowered::new(
        vrir::Expr::Index { array: Box::new(a.expr.clone()), indices: vec![i64c(1)], flags: IndexFlags { flatten: a.ty.rank > 1, ..IndexFlags::default() } },
        a.ty.with_rank(0),
    )
}

/// Statements building a value into `target` (a fresh temporary), for one branch.
fn branch(lw: &mut Lowerer, target: &str, f: impl FnOnce(&mut Lowerer) -> LResult<Lowered>) -> LResult<(Vec<Stmt>, Ty)> {
    let (r, mut stmts) = lw.in_block(f);
    let v = r?;
    stmts.push(Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: target.to_string() }], value: v.expr }, line: Some(lw.line) });
    Ok((stmts, v.ty))
}

/// `f(a, b)` element-wise with MATLAB's size rule. Scalars broadcast in VRIR itself; two
/// arrays of one rank combine when their dims agree, or one of them has one element at
/// run time (it is then used as the scalar it is).
pub fn elementwise(
    lw: &mut Lowerer,
    a: Lowered,
    b: Lowered,
    what: &str,
    line: Line,
    f: &dyn Fn(&mut Lowerer, Lowered, Lowered) -> LResult<Lowered>,
) -> LResult<Lowered> {
    if a.ty.rank == 0 || b.ty.rank == 0 {
        return f(lw, a, b);
    }
    if a.ty.rank != b.ty.rank {
        return Err(lw.unsupported(what, line, &format!("operands of {} and {} dimensions (Octave broadcasts or raises an error)", a.ty.rank, b.ty.rank)));
    }
    let a = lw.hoist(a);
    let b = lw.hoist(b);
    // The result type: what `f` gives for two arrays (computed once to type the temp).
    let (probe, _) = lw.in_block(|lw| f(lw, a.clone(), b.clone()));
    let ty = probe?.ty;
    let t = lw.temp(&ty.vrir(lw.layout()));
    let (sa, _) = branch(lw, &t, |lw| {
        let x = first(&a);
        f(lw, x, b.clone())
    })?;
    let (sb, _) = branch(lw, &t, |lw| {
        let y = first(&b);
        f(lw, a.clone(), y)
    })?;
    let (mut same, _) = branch(lw, &t, |lw| f(lw, a.clone(), b.clone()))?;
    // Dims that differ: Octave broadcasts compatible ones (each pair equal or one of
    // them 1), else raises its error.
    let mut differ: Option<vrir::Expr> = None;
    let mut incompatible: Option<vrir::Expr> = None;
    for k in 0..a.ty.rank {
        let (da, db) = (dim(&a.expr, k), dim(&b.expr, k));
        let ne = bin(vrir::BinOp::Ne, da.clone(), db.clone());
        let bad = bin(vrir::BinOp::And, ne.clone(), bin(vrir::BinOp::And, bin(vrir::BinOp::Ne, da, i64c(1)), bin(vrir::BinOp::Ne, db, i64c(1))));
        differ = Some(match differ {
            None => ne,
            Some(d) => bin(vrir::BinOp::Or, d, ne),
        });
        incompatible = Some(match incompatible {
            None => bad,
            Some(d) => bin(vrir::BinOp::Or, d, bad),
        });
    }
    let (_, checks) = lw.in_block(|lw| {
        lw.raise_if(incompatible.expect("rank > 0"), NONCONFORMANT);
        lw.raise_if(differ.expect("rank > 0"), BROADCAST);
        Ok(())
    });
    let mut checked = checks;
    checked.append(&mut same);
    let one = |x: &Lowered| bin(vrir::BinOp::Eq, numel(&x.expr), i64c(1));
    let blk = |stmts: Vec<Stmt>| Block { on_gpu: false, stmts };
    let inner = Stmt { kind: StmtKind::If { cond: one(&b), then: blk(sb), els: Some(blk(checked)) }, line: Some(line) };
    lw.emit(StmtKind::If { cond: one(&a), then: blk(sa), els: Some(blk(vec![inner])) });
    Ok(Lowered::new(vrir::Expr::var(t), ty))
}

/// `-a`, `+a`, `~a`.
pub fn unary(lw: &mut Lowerer, op: UnOp, a: Lowered, line: Line) -> LResult<Lowered> {
    match op {
        UnOp::Not => {
            let l = to_logical(lw, a, line)?;
            let ty = l.ty;
            Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(l.expr) }, ty))
        }
        UnOp::Plus | UnOp::Neg if a.ty.class.is_some() => {
            if op == UnOp::Plus {
                return Ok(a);
            }
            // -int8(-128) saturates to 127; -uint8(5) is 0.
            let c = a.ty.class.expect("a class");
            let d = lw.cast(a, DOUBLE);
            let ty = d.ty;
            Ok(to_class(lw, Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(d.expr) }, ty), c))
        }
        UnOp::Plus | UnOp::Neg => {
            let e = arith_class(lw, a.ty.elem, DOUBLE, "unary minus", line)?;
            let e = if a.ty.elem == INT32 { INT32 } else { e };
            if op == UnOp::Plus {
                return Ok(if a.ty.elem == LOGICAL { lw.cast(a, DOUBLE) } else { a });
            }
            if e == INT64 {
                // -intmin saturates to intmax.
                let ty = a.ty;
                return Ok(Lowered::new(helpers::apply(lw, helpers::I64_NEG, vec![a.expr], ty.rank > 0), ty));
            }
            if e == INT32 {
                // -intmin saturates to intmax.
                let d = lw.cast(a, DOUBLE);
                let ty = d.ty;
                return Ok(to_int32(lw, Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(d.expr) }, ty)));
            }
            let a = lw.cast(a, e);
            let ty = a.ty;
            Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(a.expr) }, ty))
        }
    }
}

/// An element-wise arithmetic operator (`+ - .* ./ .^`) on two operands.
pub fn arith(lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{}`", matlab_spelling(op));
    if a.ty.class.is_some() || b.ty.class.is_some() {
        let c = class_of_pair(lw, a.ty, b.ty, &what, line)?;
        return elementwise(lw, a, b, &what, line, &|lw, a, b| class_arith(lw, op, c, a, b, line));
    }
    let e = arith_class(lw, a.ty.elem, b.ty.elem, &what, line)?;
    elementwise(lw, a, b, &what, line, &|lw, a, b| arith_same_shape(lw, op, e, a, b, line))
}

/// MATLAB's spelling of an engine operator.
pub fn matlab_spelling(op: BinOp) -> &'static str {
    match op {
        BinOp::Mul => ".*",
        BinOp::Div => "./",
        BinOp::Pow => ".^",
        BinOp::MatMul => "*",
        BinOp::Ne => "~=",
        other => other.spelling(),
    }
}

fn arith_same_shape(lw: &mut Lowerer, op: BinOp, e: ScalarType, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let rank = a.ty.rank.max(b.ty.rank);
    if e == INT64 {
        return int64_arith(lw, op, a, b, line);
    }
    if e == INT32 {
        // Computed in double, which is exact for every int32 operation whose result is
        // in range (and for the quotient's rounding), then rounded and saturated.
        let a = lw.cast(a, DOUBLE);
        let b = lw.cast(b, DOUBLE);
        let d = arith_same_shape(lw, op, DOUBLE, a, b, line)?;
        return Ok(to_int32(lw, d));
    }
    let (a, b) = (lw.cast(a, e), lw.cast(b, e));
    let ty = Ty::array(e, rank);
    let vop = match op {
        BinOp::Add => vrir::BinOp::Add,
        BinOp::Sub => vrir::BinOp::Sub,
        BinOp::Mul => vrir::BinOp::Mul,
        BinOp::Div => vrir::BinOp::Div,
        BinOp::Pow => return power(lw, a, b, e, rank, line),
        other => unreachable!("not arithmetic: {other:?}"),
    };
    Ok(Lowered::new(bin(vop, a.expr, b.expr), ty))
}

/// `a op b` with an int64 operand (the other int64, double or logical), as Octave
/// computes it (`helpers`, oct-inttypes): exact and saturated between int64 values (a
/// logical is the int64 0 or 1), and Octave's emulated rules with a double.
fn int64_arith(lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let rank = a.ty.rank.max(b.ty.rank);
    let ty = Ty::array(INT64, rank);
    let arr = rank > 0;
    let as_int = |lw: &mut Lowerer, v: Lowered| if v.ty.elem == LOGICAL { lw.cast(v, INT64) } else { v };
    let (a, b) = (as_int(lw, a), as_int(lw, b));
    let call = |lw: &mut Lowerer, f: &'static str, args: Vec<vrir::Expr>| Ok(Lowered::new(helpers::apply(lw, f, args, arr), ty));
    if op == BinOp::Pow {
        return Err(lw.unsupported("`.^`", line, "of int64 values (Octave's repeated saturating products are not compiled)"));
    }
    match (a.ty.elem, b.ty.elem) {
        (INT64, INT64) => {
            let f = match op {
                BinOp::Add => helpers::I64_ADD,
                BinOp::Sub => helpers::I64_SUB,
                BinOp::Mul => helpers::I64_MUL,
                _ => helpers::I64_DIV,
            };
            call(lw, f, vec![a.expr, b.expr])
        }
        (INT64, _) => {
            let b = lw.hoist(lw.cast(b, DOUBLE));
            match op {
                BinOp::Add => call(lw, helpers::I64_ADD_F64, vec![a.expr, b.expr]),
                BinOp::Sub => {
                    let minus_b = vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(b.expr) };
                    call(lw, helpers::I64_ADD_F64, vec![a.expr, minus_b])
                }
                BinOp::Mul => {
                    fraction_check(lw, helpers::I64_MUL_EXACT, &b);
                    call(lw, helpers::I64_MUL_F64, vec![a.expr, b.expr])
                }
                _ => {
                    fraction_check(lw, helpers::I64_DIV_EXACT, &b);
                    call(lw, helpers::I64_DIV_F64, vec![a.expr, b.expr])
                }
            }
        }
        _ => {
            let a = lw.hoist(lw.cast(a, DOUBLE));
            match op {
                BinOp::Add => call(lw, helpers::I64_ADD_F64, vec![b.expr, a.expr]),
                BinOp::Sub => call(lw, helpers::F64_SUB_I64, vec![a.expr, b.expr]),
                BinOp::Mul => {
                    fraction_check(lw, helpers::I64_MUL_EXACT, &a);
                    call(lw, helpers::I64_MUL_F64, vec![b.expr, a.expr])
                }
                _ => {
                    // Octave: int64(a / double(b)).
                    let bd = lw.cast(b, DOUBLE);
                    let q = Lowered::new(bin(vrir::BinOp::Div, a.expr, bd.expr), Ty::array(DOUBLE, rank));
                    Ok(to_int64(lw, q))
                }
            }
        }
    }
}

/// Raise `INT64_FRACTION` unless `check` (a helper of one double) holds for every
/// element of `v` (hoisted).
fn fraction_check(lw: &mut Lowerer, check: &'static str, v: &Lowered) {
    if let vrir::Expr::Const { value: Literal::F64(y) } = v.expr {
        if y.fract() == 0.0 {
            return;
        }
    }
    let ok = helpers::apply(lw, check, vec![v.expr.clone()], v.ty.rank > 0);
    let bad = vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(ok) };
    let c = if v.ty.rank == 0 { bad } else { any_true(lw, Lowered::new(bad, v.ty.with_elem(LOGICAL))) };
    lw.raise_if(c, INT64_FRACTION);
}

/// `a .^ b` of doubles or complex numbers. A negative base with a non-integer exponent
/// has a complex result in MATLAB: the call runs in Octave.
fn power(lw: &mut Lowerer, a: Lowered, b: Lowered, e: ScalarType, rank: u32, line: Line) -> LResult<Lowered> {
    let _ = line;
    let ty = Ty::array(e, rank);
    if e == DOUBLE {
        let whole_exponent = matches!(b.expr, vrir::Expr::Const { value: Literal::F64(y) } if y.fract() == 0.0);
        let nonneg_base = matches!(a.expr, vrir::Expr::Const { value: Literal::F64(x) } if x >= 0.0);
        if !whole_exponent && !nonneg_base {
            let a = lw.hoist(a);
            let b = lw.hoist(b);
            let neg = bin(vrir::BinOp::Lt, a.expr.clone(), vrir::Expr::f64(0.0));
            let frac = bin(vrir::BinOp::Ne, lib(LibFn::Floor, vec![b.expr.clone()]), b.expr.clone());
            let both = Lowered::new(bin(vrir::BinOp::And, neg, frac), Ty::array(LOGICAL, rank));
            let c = if rank == 0 { both.expr } else { any_true(lw, both) };
            lw.raise_if(c, COMPLEX_RESULT);
            // x.^2 is x*x in Octave's pow as in ours (both call the C library's pow).
            return Ok(Lowered::new(lib(LibFn::Pow, vec![a.expr, b.expr]), ty));
        }
    }
    Ok(Lowered::new(lib(LibFn::Pow, vec![a.expr, b.expr]), ty))
}

/// Comparisons: logical results; complex numbers compare equal or not only.
pub fn compare(lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{}`", matlab_spelling(op));
    let mut e = if a.ty.class.is_some() || b.ty.class.is_some() {
        // Exact in double (every value of these classes is a double).
        class_of_pair(lw, a.ty, b.ty, &what, line)?;
        DOUBLE
    } else {
        arith_class(lw, a.ty.elem, b.ty.elem, &what, line)?
    };
    if e == COMPLEX && !matches!(op, BinOp::Eq | BinOp::Ne) {
        return Err(lw.unsupported(&what, line, "ordering complex numbers (Octave compares their modulus, then their argument)"));
    }
    if e == INT32 {
        // Exact in double.
        e = DOUBLE;
    }
    if e == INT64 {
        return elementwise(lw, a, b, &what, line, &|lw, a, b| int64_compare(lw, op, a, b));
    }
    elementwise(lw, a, b, &what, line, &|lw, a, b| {
        let rank = a.ty.rank.max(b.ty.rank);
        let (a, b) = (lw.cast(a, e), lw.cast(b, e));
        let vop = match op {
            BinOp::Lt => vrir::BinOp::Lt,
            BinOp::Le => vrir::BinOp::Le,
            BinOp::Gt => vrir::BinOp::Gt,
            BinOp::Ge => vrir::BinOp::Ge,
            BinOp::Eq => vrir::BinOp::Eq,
            _ => vrir::BinOp::Ne,
        };
        Ok(Lowered::new(bin(vop, a.expr, b.expr), Ty::array(LOGICAL, rank)))
    })
}

/// A comparison with an int64 operand: between integers (a logical is 0 or 1) exact; with
/// a double as Octave's `emulate_mop` (`helpers::I64_CMP_F64`).
fn int64_compare(lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered) -> LResult<Lowered> {
    let rank = a.ty.rank.max(b.ty.rank);
    let ty = Ty::array(LOGICAL, rank);
    let vop = |op: BinOp| match op {
        BinOp::Lt => vrir::BinOp::Lt,
        BinOp::Le => vrir::BinOp::Le,
        BinOp::Gt => vrir::BinOp::Gt,
        BinOp::Ge => vrir::BinOp::Ge,
        BinOp::Eq => vrir::BinOp::Eq,
        _ => vrir::BinOp::Ne,
    };
    let as_int = |lw: &mut Lowerer, v: Lowered| if v.ty.elem == LOGICAL { lw.cast(v, INT64) } else { v };
    let (a, b) = (as_int(lw, a), as_int(lw, b));
    if a.ty.elem == INT64 && b.ty.elem == INT64 {
        return Ok(Lowered::new(bin(vop(op), a.expr, b.expr), ty));
    }
    // c = cmp(int, double) in {-1, 0, 1, 2 (NaN)}; with the double first the order turns.
    let (int, dbl, turned) = if a.ty.elem == INT64 { (a, b, false) } else { (b, a, true) };
    let dbl = lw.cast(dbl, DOUBLE);
    let c = helpers::apply(lw, helpers::I64_CMP_F64, vec![int.expr, dbl.expr], rank > 0);
    let c = lw.hoist(Lowered::new(c, Ty::array(INT64, rank)));
    let op = match (op, turned) {
        (BinOp::Lt, true) => BinOp::Gt,
        (BinOp::Gt, true) => BinOp::Lt,
        (BinOp::Le, true) => BinOp::Ge,
        (BinOp::Ge, true) => BinOp::Le,
        (op, _) => op,
    };
    let is = |v: i64| bin(vrir::BinOp::Eq, c.expr.clone(), i64c(v));
    let r = match op {
        BinOp::Lt => is(-1),
        BinOp::Gt => is(1),
        BinOp::Le => bin(vrir::BinOp::Or, is(-1), is(0)),
        BinOp::Ge => bin(vrir::BinOp::Or, is(0), is(1)),
        BinOp::Eq => is(0),
        _ => bin(vrir::BinOp::Ne, c.expr.clone(), i64c(0)),
    };
    Ok(Lowered::new(r, ty))
}

/// `&` and `|`, element-wise.
pub fn logical_op(lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{}`", op.spelling());
    let a = to_logical(lw, a, line)?;
    let b = to_logical(lw, b, line)?;
    elementwise(lw, a, b, &what, line, &|_, a, b| {
        let rank = a.ty.rank.max(b.ty.rank);
        let vop = if op == BinOp::And { vrir::BinOp::And } else { vrir::BinOp::Or };
        Ok(Lowered::new(bin(vop, a.expr, b.expr), Ty::array(LOGICAL, rank)))
    })
}

/// Raise `reason` unless `a` (hoisted array) has one element; its element.
fn one_element(lw: &mut Lowerer, a: &Lowered, reason: &str) -> Lowered {
    lw.raise_if(bin(vrir::BinOp::Ne, numel(&a.expr), i64c(1)), reason);
    first(a)
}

/// `a * b`: a product with a scalar (or an array of one element at run time) is
/// element-wise; two matrices multiply (`matmul`, BLAS as Octave's).
pub fn mtimes(lw: &mut Lowerer, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    if a.ty.rank == 0 || b.ty.rank == 0 {
        return arith(lw, BinOp::Mul, a, b, line);
    }
    let class = if a.ty.class.is_some() || b.ty.class.is_some() { Some(class_of_pair(lw, a.ty, b.ty, "`*`", line)?) } else { None };
    let e = match class {
        Some(c) => c.storage(),
        None => arith_class(lw, a.ty.elem, b.ty.elem, "`*`", line)?,
    };
    if a.ty.rank != 2 || b.ty.rank != 2 {
        return Err(lw.unsupported("`*`", line, "a matrix product of arrays with more than two dimensions"));
    }
    let a = lw.hoist(a);
    let b = lw.hoist(b);
    // A matrix product of integer matrices is Octave's error: left to it (MATRIX_OP).
    let ty = match class {
        Some(c) => Ty::of_class(c, 2),
        None => Ty::array(e, 2),
    };
    let t = lw.temp(&ty.vrir(lw.layout()));
    let (sa, _) = branch(lw, &t, |lw| {
        let x = first(&a);
        arith(lw, BinOp::Mul, x, b.clone(), line)
    })?;
    let (sb, _) = branch(lw, &t, |lw| {
        let y = first(&b);
        arith(lw, BinOp::Mul, a.clone(), y, line)
    })?;
    let (mm, _) = branch(lw, &t, |lw| {
        if matches!(e, INT32 | INT64) {
            lw.raise_if(vrir::Expr::lit(Literal::Bool(true)), MATRIX_OP);
            return Ok(Lowered::new(vrir::Expr::Alloc { init: vrir::AllocInit::Zeros, ty: vrir::ArrayType::new(e, 2, lw.layout()), dims: vec![i64c(0), i64c(0)] }, ty));
        }
        let x = lw.cast(a.clone(), e);
        let y = lw.cast(b.clone(), e);
        lw.raise_if(bin(vrir::BinOp::Ne, dim(&x.expr, 1), dim(&y.expr, 0)), NONCONFORMANT);
        Ok(Lowered::new(lib(LibFn::Matmul, vec![x.expr, y.expr]), ty))
    })?;
    let one = |x: &Lowered| bin(vrir::BinOp::Eq, numel(&x.expr), i64c(1));
    let blk = |stmts: Vec<Stmt>| Block { on_gpu: false, stmts };
    let inner = Stmt { kind: StmtKind::If { cond: one(&b), then: blk(sb), els: Some(blk(mm)) }, line: Some(line) };
    lw.emit(StmtKind::If { cond: one(&a), then: blk(sa), els: Some(blk(vec![inner])) });
    Ok(Lowered::new(vrir::Expr::var(t), ty))
}

/// `a / b` (`mrdivide`): division by a scalar (or one element) is element-wise; by a
/// matrix it is a least-squares solve, left to Octave.
pub fn mrdivide(lw: &mut Lowerer, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    if b.ty.rank == 0 {
        return arith(lw, BinOp::Div, a, b, line);
    }
    let b = lw.hoist(b);
    let y = one_element(lw, &b, MATRIX_OP);
    arith(lw, BinOp::Div, a, y, line)
}

/// `a \ b` (`mldivide`): with a scalar (or one element) `a` it is `b ./ a`; a linear
/// solve is left to Octave (`unsupported` at run time).
pub fn mldivide(lw: &mut Lowerer, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    if a.ty.rank == 0 {
        return arith(lw, BinOp::Div, b, a, line);
    }
    let a = lw.hoist(a);
    let x = one_element(lw, &a, MATRIX_OP);
    arith(lw, BinOp::Div, b, x, line)
}

/// `a ^ b` (`mpower`): scalars only (a matrix power is left to Octave).
pub fn mpower(lw: &mut Lowerer, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let a = if a.ty.rank > 0 {
        let a = lw.hoist(a);
        one_element(lw, &a, MATRIX_OP)
    } else {
        a
    };
    let b = if b.ty.rank > 0 {
        let b = lw.hoist(b);
        one_element(lw, &b, MATRIX_OP)
    } else {
        b
    };
    arith(lw, BinOp::Pow, a, b, line)
}

/// `a'` (conjugate) and `a.'`: a scalar is itself (conjugated); a matrix is transposed.
pub fn transpose(lw: &mut Lowerer, a: Lowered, conjugate: bool, line: Line) -> LResult<Lowered> {
    let a = if conjugate && a.ty.elem == COMPLEX {
        let ty = a.ty;
        Lowered::new(lib(LibFn::Conj, vec![a.expr]), ty)
    } else {
        a
    };
    match a.ty.rank {
        0 => Ok(a),
        2 => {
            let ty = a.ty;
            Ok(Lowered::new(lib(LibFn::Transpose, vec![a.expr]), ty))
        }
        _ => Err(lw.unsupported("transpose", line, "transposing an array of more than two dimensions (Octave: an error)")),
    }
}
