//! R's recycling rule for element-wise operations (`+`, `==`, `&`, `atan2`, `ifelse`,
//! ...), decided at run time. Ranks are static but lengths are not: a vector that
//! holds one element at run time (`x[1:1]`, `numeric(1)`, a length-1 argument handed
//! in as a vector) must combine with any vector as R's length-1 operand does.
//!
//! Compiled code follows R wherever R's answer is element-wise with a broadcast
//! scalar: equal lengths, or one operand of length 1 (a length-1 vector also combines
//! with a matrix). Every other pair of lengths raises `recycling`, naming both lengths;
//! R has an answer there (the shorter operand repeated, with a warning when the lengths
//! are not multiples), so the R adapter runs the function in R. Arrays of equal rank two
//! or more need equal dims, which VRIR checks (R raises `non-conformable arrays` too).
//! This is lowering, not an optimization: nothing is counted.

use super::rules::{bin, i64c, lib};
use crate::frontend::hir::Line;
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, StmtKind};

/// Reason of the run-time error for lengths R would recycle and compiled code does not.
pub const RECYCLING: &str = "recycling";

/// The operands of an element-wise operation, made to combine as R's do: equal lengths,
/// or a length-1 operand broadcast. Scalars pass through untouched (VRIR broadcasts
/// them), so provably scalar code pays nothing.
pub fn conform(lw: &mut Lowerer, what: &str, a: Lowered, b: Lowered, line: Line) -> LResult<(Lowered, Lowered)> {
    match (a.ty.rank, b.ty.rank) {
        (0, _) | (_, 0) => Ok((a, b)),
        // `x * x`: one variable has one length.
        _ if matches!(a.expr, vrir::Expr::Var { .. }) && a.expr == b.expr => Ok((a, b)),
        (1, 1) => vectors(lw, a, b),
        (1, _) => {
            let (a, b) = single_element(lw, a, b, true);
            Ok((a, b))
        }
        (_, 1) => {
            let (b, a) = single_element(lw, b, a, false);
            Ok((a, b))
        }
        (p, q) if p == q => Ok((a, b)),
        _ => Err(lw.unsupported(what, line, &format!("between a {} and a {}: R requires equal dims (or a vector)", a.ty, b.ty))),
    }
}

/// `v` recycled over `shape`, which gives the result its shape (`ifelse`'s `yes` and
/// `no` over `test`): a scalar, `v` itself where the lengths agree, its one element
/// where it has one; any other length raises `recycling` (R repeats or cuts `v`).
pub fn fit(lw: &mut Lowerer, what: &str, shape: &Lowered, v: Lowered, line: Line) -> LResult<Lowered> {
    match (shape.ty.rank, v.ty.rank) {
        (_, 0) => Ok(v),
        (1, 1) => {
            let s = lw.hoist(shape.clone());
            let v = reassignable(lw, v);
            let (ls, lv) = (len(&s), len(&v));
            let one = bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, lv.clone(), i64c(1)), bin(vrir::BinOp::Ne, ls.clone(), i64c(1)));
            broadcast_if(lw, one, &v, ls.clone());
            lw.raise_if_counts(bin(vrir::BinOp::Ne, len(&v), ls.clone()), RECYCLING, [ls, len(&v)]);
            Ok(v)
        }
        (p, 1) if p > 1 => {
            let s = lw.hoist(shape.clone());
            Ok(single_element(lw, v, s, false).0)
        }
        (p, q) if p == q => Ok(v),
        _ => Err(lw.unsupported(what, line, &format!("a {} for a {}: R requires the test's shape (or a vector)", v.ty, shape.ty))),
    }
}

/// Two vectors: the length-1 one (if the other is not) becomes a full-length copy of
/// its element; lengths that still differ raise `recycling`.
fn vectors(lw: &mut Lowerer, a: Lowered, b: Lowered) -> LResult<(Lowered, Lowered)> {
    let a = reassignable(lw, a);
    let b = reassignable(lw, b);
    let only = |x: &Lowered, y: &Lowered| bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, len(x), i64c(1)), bin(vrir::BinOp::Ne, len(y), i64c(1)));
    let a_only = only(&a, &b);
    broadcast_if(lw, a_only, &a, len(&b));
    let b_only = only(&b, &a);
    broadcast_if(lw, b_only, &b, len(&a));
    lw.raise_if_counts(bin(vrir::BinOp::Ne, len(&a), len(&b)), RECYCLING, [len(&a), len(&b)]);
    Ok((a, b))
}

/// A vector `v` combined with a higher-rank array `other`: R accepts it here (without
/// repeating it) only when it has one element, which becomes a scalar operand. Returns
/// `(v's element, other hoisted)`; the error names the lengths in operand order.
fn single_element(lw: &mut Lowerer, v: Lowered, other: Lowered, v_first: bool) -> (Lowered, Lowered) {
    let v = lw.hoist(v);
    let other = lw.hoist(other);
    let counts = if v_first { [len(&v), len(&other)] } else { [len(&other), len(&v)] };
    lw.raise_if_counts(bin(vrir::BinOp::Ne, len(&v), i64c(1)), RECYCLING, counts);
    let elem = Lowered::new(first(&v), crate::frontend::types::Ty::scalar(v.ty.elem));
    (elem, other)
}

/// `v` in a temporary the recycling code may reassign (never a parameter or a variable
/// of the source: those keep their values).
fn reassignable(lw: &mut Lowerer, v: Lowered) -> Lowered {
    let t = lw.temp(&v.ty.vrir(lw.layout()));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: v.expr });
    Lowered::new(vrir::Expr::var(t), v.ty)
}

/// When `cond` holds, replace the vector in temporary `v` by `n` copies of its first
/// element.
fn broadcast_if(lw: &mut Lowerer, cond: vrir::Expr, v: &Lowered, n: vrir::Expr) {
    let vrir::Expr::Var { name } = &v.expr else { unreachable!("`reassignable` gives a variable") };
    let fill = vrir::Expr::Alloc {
        init: AllocInit::Fill { value: Box::new(first(v)) },
        ty: ArrayType::new(v.ty.elem, 1, lw.layout()),
        dims: vec![n],
    };
    let set = crate::vrir::Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: name.clone() }], value: fill }, line: Some(lw.line) };
    lw.emit(StmtKind::If { cond, then: Block { on_gpu: false, stmts: vec![set] }, els: None });
}

fn len(v: &Lowered) -> vrir::Expr {
    lib(LibFn::Len, vec![v.expr.clone()])
}

/// The first element of a (hoisted) array, in column-major order.
fn first(v: &Lowered) -> vrir::Expr {
    vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![i64c(1)], flags: IndexFlags { flatten: v.ty.rank > 1, ..IndexFlags::default() } }
}
