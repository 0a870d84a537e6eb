//! R's subscripts beyond plain positions, and the idioms that grow vectors.
//!
//! A negative subscript excludes (`x[-1]`, `x[-i]`, `x[-(1:2)]`, `m[-1, ]`), in reads and
//! writes: it becomes a mask of the dimension keeping every other position (`x[-1]`, a
//! plain range). As in R, excluded positions past the end and zeros are ignored, an
//! empty exclusion (`x[-integer(0)]`) selects nothing, and a positive value among the
//! negated ones is R's error "only 0's may be mixed with negative subscripts". A
//! positive subscript that is negative only at run time (`i <- -1; x[i]`) fails the
//! bounds check instead, which `bounds::explain` turns into a fallback to R.
//!
//! The idioms `growth` asks about: `NULL` and `c()` (nothing), `numeric(0)` and its
//! kin (empty), `c(x, ...)` (appending to `x`), `length(x)`.

use super::rules::{any_nan, bin, i64c, lib, COMPLEX, DOUBLE, LOGICAL};
use crate::frontend::hir::{Arg, Expr, ExprKind, Line, UnOp};
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::types::Ty;
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, ScalarType, Stmt, StmtKind, Type};

/// Reason of R's error for a positive subscript among negative ones.
pub const MIXED: &str = "mixed_subscripts";
/// Reason of an NA among negated subscripts (R's answer varies; it runs in R).
pub const NA_INDEX: &str = "na_index";

pub fn is_exclusion(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Unary(UnOp::Neg, _))
}

fn is_literal(e: &Expr, v: f64) -> bool {
    matches!(e.kind, ExprKind::Double(x) if x == v) || matches!(e.kind, ExprKind::Int(x) if x as f64 == v)
}

/// The index selecting what `-inner` keeps of a dimension of `extent` positions.
pub fn exclusion(lw: &mut Lowerer, e: &Expr, extent: vrir::Expr, line: Line) -> Option<LResult<vrir::Expr>> {
    let ExprKind::Unary(UnOp::Neg, inner) = &e.kind else { return None };
    Some(keep(lw, inner, extent, line))
}

fn keep(lw: &mut Lowerer, inner: &Expr, extent: vrir::Expr, line: Line) -> LResult<vrir::Expr> {
    if is_literal(inner, 1.0) {
        // `x[-1]`: the rest, a plain range (empty when the dimension has at most one).
        return Ok(vrir::Expr::Range { start: Some(Box::new(i64c(2))), stop: Some(Box::new(extent)), step: None });
    }
    let v = lw.expr(inner)?;
    if v.ty.rank > 1 {
        return Err(lw.unsupported("negative index by a matrix", line, "index with vectors or scalars"));
    }
    if v.ty.elem == COMPLEX {
        return Err(lw.unsupported("complex index", line, "an index is a number"));
    }
    let v = lw.hoist(v);
    if v.ty.elem == DOUBLE {
        let nan = any_nan(lw, &v);
        lw.raise_if(nan, NA_INDEX);
    }
    let extent = lw.hoist(Lowered::new(extent, Ty::scalar(ScalarType::I64)));
    let mask_ty = Ty::array(LOGICAL, 1);
    let mask = lw.temp(&mask_ty.vrir(lw.layout()));
    // R drops zero subscripts; when nothing else remains (`x[-0]`, `x[-integer(0)]`) the
    // index is empty and selects nothing.
    let zero = lw.cast(Lowered::new(vrir::Expr::lit(vrir::Literal::I32(0)), Ty::scalar(ScalarType::I32)), v.ty.elem).expr;
    let nonzero = bin(vrir::BinOp::Ne, v.expr.clone(), zero);
    let any = if v.ty.rank == 0 {
        nonzero
    } else {
        let count = lw.cast(Lowered::new(nonzero, v.ty.with_elem(LOGICAL)), ScalarType::I64);
        bin(vrir::BinOp::Gt, vrir::Expr::Reduce { op: vrir::ReduceOp::Sum, arg: Box::new(count.expr), axis: None, acc: None }, i64c(0))
    };
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: mask.clone() }],
        value: vrir::Expr::Alloc {
            init: AllocInit::Fill { value: Box::new(any) },
            ty: ArrayType::new(LOGICAL, 1, lw.layout()),
            dims: vec![extent.expr.clone()],
        },
    });
    let drop_one = |lw: &mut Lowerer, k: vrir::Expr| {
        lw.raise_if(bin(vrir::BinOp::Lt, k.clone(), i64c(0)), MIXED);
        let inside = bin(vrir::BinOp::And, bin(vrir::BinOp::Ge, k.clone(), i64c(1)), bin(vrir::BinOp::Le, k.clone(), extent.expr.clone()));
        let clear = Stmt {
            kind: StmtKind::Assign {
                targets: vec![LValue::Index { array: mask.clone(), indices: vec![k], flags: IndexFlags::default() }],
                value: vrir::Expr::lit(vrir::Literal::Bool(false)),
            },
            line: Some(line),
        };
        lw.emit(StmtKind::If { cond: inside, then: Block { on_gpu: false, stmts: vec![clear] }, els: None });
    };
    if v.ty.rank == 0 {
        let k = lw.cast(v, ScalarType::I64);
        let k = lw.hoist(k);
        drop_one(lw, k.expr);
    } else {
        let j = lw.temp(&Type::I64);
        let element = Lowered::new(
            vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![vrir::Expr::var(&j)], flags: IndexFlags::default() },
            Ty::scalar(v.ty.elem),
        );
        let outer = std::mem::take(lw.pre_mut());
        let k = lw.cast(element, ScalarType::I64);
        let k = lw.hoist(k);
        drop_one(lw, k.expr);
        let body = std::mem::replace(lw.pre_mut(), outer);
        lw.emit(StmtKind::For {
            vars: vec![j],
            domain: vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(lib(LibFn::Len, vec![v.expr]))), step: None },
            body: Block { on_gpu: false, stmts: body },
        });
    }
    Ok(vrir::Expr::var(mask))
}

/// `NULL` or `c()`.
pub fn is_null(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Null => true,
        ExprKind::Call { func, args } => func == "c" && args.is_empty(),
        _ => false,
    }
}

/// `NULL`, `c()`, `numeric(0)`, `numeric()`, `integer(0)`, `vector("double", 0)`,
/// `vector("numeric")`, ...
pub fn is_empty_vector(e: &Expr) -> bool {
    if is_null(e) {
        return true;
    }
    let ExprKind::Call { func, args } = &e.kind else { return false };
    let zero_length = |a: &Arg| is_literal(&a.value, 0.0);
    match func.as_str() {
        "numeric" | "double" | "integer" | "logical" | "complex" => match args.as_slice() {
            [] => true,
            [a] => (a.name.is_none() || a.name.as_deref() == Some("length")) && zero_length(a),
            _ => false,
        },
        "vector" => {
            let length = args.iter().find(|a| a.name.as_deref() == Some("length")).or_else(|| args.iter().filter(|a| a.name.is_none()).nth(1));
            length.is_none_or(zero_length)
        }
        _ => false,
    }
}

/// The parts of `c(name, parts...)`.
pub fn appended<'e>(e: &'e Expr, name: &str) -> Option<&'e [Arg]> {
    let ExprKind::Call { func, args } = &e.kind else { return None };
    match args.split_first() {
        Some((first, rest)) if func == "c" && first.name.is_none() && !rest.is_empty() && matches!(&first.value.kind, ExprKind::Var(n) if n == name) => {
            Some(rest)
        }
        _ => None,
    }
}

/// `length(x)`: `x`.
pub fn length_of(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { func, args } if func == "length" => match args.as_slice() {
            [a] if a.name.is_none() => match &a.value.kind {
                ExprKind::Var(n) => Some(n.as_str()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}
