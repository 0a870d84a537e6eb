//! R's sequences: `seq_len`, `seq_along`, `a:b` (in `rules`), `seq(from, to[, by])`
//! and the `length.out` forms of `seq`. Integer sequences with a step are `SeqParts`,
//! which loops and indexing use without building a vector; `seq(from, to, length.out =
//! n)` and `seq(from, by =, length.out =)` are values built element by element with
//! R's own arithmetic, so that every element is R's to the bit. Result types follow
//! R's `seq.default` (checked against Rscript); where R's type depends on run-time
//! values the compiled form has one static type and raises, for the other case, an
//! error of kind `unsupported` (the R adapter runs the call in R).

use super::builtins::{bind, count_arg, required};
use super::rules::{bin, i64c, lib, COMPLEX, DOUBLE, INTEGER, INT_MAX, LOGICAL};
use crate::frontend::hir::{Arg, Expr, ExprKind, Line};
use crate::frontend::lists::Val;
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::rules::SeqParts;
use crate::frontend::types::Ty;
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, ScalarType, Stmt, StmtKind, Type};

const LENGTH_OUT: &str = "length.out";

/// The arguments of `seq` with R's partial matching of `length.out` (`length = 5`, `len
/// = 5`): the one formal of `seq.default` that names are abbreviated to in practice.
fn r_names(args: &[Arg]) -> Vec<Arg> {
    args.iter()
        .map(|a| match &a.name {
            Some(n) if !n.is_empty() && LENGTH_OUT.starts_with(n.as_str()) => Arg { name: Some(LENGTH_OUT.into()), value: a.value.clone() },
            _ => a.clone(),
        })
        .collect()
}

/// Is this `seq(...)` call a value rather than a `SeqParts` sequence: `length.out` with
/// `from`, `to` or `by`?
pub fn is_value(args: &[Arg]) -> bool {
    let args = r_names(args);
    args.len() > 1 && args.iter().any(|a| a.name.as_deref() == Some(LENGTH_OUT))
}

/// `length.out` as R's `seq` reads it: a finite non-negative number, rounded up; a
/// hoisted i64.
fn length_out(lw: &mut Lowerer, e: &Expr, line: Line) -> LResult<vrir::Expr> {
    let v = lw.expr(e)?;
    if v.ty.rank != 0 || v.ty.elem == COMPLEX {
        return Err(lw.unsupported("`length.out` of `seq`", line, &format!("expected a single number, got a {}", v.ty)));
    }
    let n = if v.ty.elem == DOUBLE {
        let v = lw.hoist(v);
        let bad = bin(
            vrir::BinOp::Or,
            bin(vrir::BinOp::Or, lib(LibFn::IsNan, vec![v.expr.clone()]), lib(LibFn::IsInf, vec![v.expr.clone()])),
            bin(vrir::BinOp::Lt, v.expr.clone(), vrir::Expr::f64(0.0)),
        );
        lw.raise_if(bad, "seq_bad_length");
        lw.cast(Lowered::new(lib(LibFn::Ceil, vec![v.expr]), Ty::scalar(DOUBLE)), ScalarType::I64)
    } else {
        let n = lw.hoist(lw.cast(v, ScalarType::I64));
        lw.raise_if(bin(vrir::BinOp::Lt, n.expr.clone(), i64c(0)), "seq_bad_length");
        n
    };
    Ok(lw.hoist(n).expr)
}

/// A real scalar argument of `seq`, hoisted.
fn real_scalar(lw: &mut Lowerer, e: &Expr, what: &str, line: Line) -> LResult<Lowered> {
    let v = lw.expr(e)?;
    if v.ty.rank != 0 || v.ty.elem == COMPLEX {
        return Err(lw.unsupported(&format!("`{what}` of `seq`"), line, &format!("expected a single real number, got a {}", v.ty)));
    }
    Ok(lw.hoist(v))
}

/// Raise R's error for a `from` or `to` that is NaN or infinite (`reason`).
fn require_finite(lw: &mut Lowerer, v: &Lowered, reason: &str) {
    if v.ty.elem == DOUBLE {
        lw.raise_if(bin(vrir::BinOp::Or, lib(LibFn::IsNan, vec![v.expr.clone()]), lib(LibFn::IsInf, vec![v.expr.clone()])), reason);
    }
}

/// A fresh vector of `n` (hoisted) elements of `elem`, element k (1-based) being
/// `value(k)` for the i64 variable k.
fn tabulate(lw: &mut Lowerer, elem: ScalarType, n: &vrir::Expr, value: impl FnOnce(&mut Lowerer, vrir::Expr) -> vrir::Expr) -> Lowered {
    let ty = Ty::array(elem, 1);
    let out = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![n.clone()] });
    let k = lw.temp(&Type::I64);
    let outer = std::mem::take(lw.pre_mut());
    let v = value(lw, vrir::Expr::var(&k));
    let mut body = std::mem::replace(lw.pre_mut(), outer);
    body.push(Stmt { kind: StmtKind::Assign { targets: vec![element(&out, vrir::Expr::var(&k))], value: v }, line: Some(lw.line) });
    lw.emit(StmtKind::For {
        vars: vec![k],
        domain: vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(n.clone())), step: None },
        body: Block { on_gpu: false, stmts: body },
    });
    Lowered::new(vrir::Expr::var(out), ty)
}

fn element(array: &str, k: vrir::Expr) -> LValue {
    LValue::Index { array: array.to_string(), indices: vec![k], flags: IndexFlags::default() }
}

fn as_f64(lw: &Lowerer, e: vrir::Expr, from: ScalarType) -> vrir::Expr {
    lw.cast(Lowered::new(e, Ty::scalar(from)), DOUBLE).expr
}

/// `seq(from, to, length.out = n)`, `seq(from, length.out = n)` and `seq(from, by =,
/// length.out = n)`.
pub fn seq_length_out(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let args = r_names(args);
    let b = bind(lw, "seq", &args, &["from", "to", "by", LENGTH_OUT], line)?;
    let n_expr = required(lw, "seq", b[3], LENGTH_OUT, line)?;
    match (b[0], b[1], b[2]) {
        (Some(from), to, None) => from_to(lw, from, to, n_expr, line),
        (Some(from), None, Some(by)) => from_by(lw, from, by, n_expr, line),
        _ => Err(lw.unsupported(
            "`seq` with `length.out`",
            line,
            "compiled forms are seq(length.out =), seq(from, to, length.out =), seq(from, length.out =) and seq(from, by =, length.out =)",
        )),
    }
}

/// `seq(from, to, length.out = n)` (and without `to`: `to = from + n - 1`), for a double
/// `from`: R's `c(from, from + (1:(n-2)) * ((to - from) / (n - 1)), to)`, `n` copies of
/// `from` when `to == from` and n > 2, `c(from, to)[1:n]` for n <= 2; always double
/// except `integer(0)` for n = 0 (raised as `seq_empty_integer`).
fn from_to(lw: &mut Lowerer, from_e: &Expr, to_e: Option<&Expr>, n_expr: &Expr, line: Line) -> LResult<Lowered> {
    let from = real_scalar(lw, from_e, "from", line)?;
    if from.ty.elem != DOUBLE {
        // R's type then depends on the values (`from == to`, `(to - from) %% (n - 1)`).
        return Err(lw.unsupported(
            "`seq(from, to, length.out =)` with an integer or logical `from`",
            line,
            "R's result is integer or double depending on the values; pass a double `from` (e.g. `as.double(from)`)",
        ));
    }
    let to = match to_e {
        Some(e) => {
            let t = real_scalar(lw, e, "to", line)?;
            Some(lw.hoist(lw.cast(t, DOUBLE)))
        }
        None => None,
    };
    // R checks `from` and `to` before `length.out`.
    require_finite(lw, &from, "seq_from_not_finite");
    if let Some(t) = &to {
        require_finite(lw, t, "seq_to_not_finite");
    }
    let n = length_out(lw, n_expr, line)?;
    lw.raise_if(bin(vrir::BinOp::Eq, n.clone(), i64c(0)), "seq_empty_integer");
    let to = match to {
        Some(t) => t,
        // R: `to <- from + (length.out - 1)`.
        None => {
            let n1 = as_f64(lw, bin(vrir::BinOp::Sub, n.clone(), i64c(1)), ScalarType::I64);
            lw.hoist(Lowered::new(bin(vrir::BinOp::Add, from.expr.clone(), n1), Ty::scalar(DOUBLE)))
        }
    };
    let del = lw.hoist(Lowered::new(bin(vrir::BinOp::Sub, to.expr.clone(), from.expr.clone()), Ty::scalar(DOUBLE)));
    // R scales by 1/4 when to - from overflows; compiled code leaves that to R.
    lw.raise_if(lib(LibFn::IsInf, vec![del.expr.clone()]), "seq_range_overflow");
    let n1 = as_f64(lw, bin(vrir::BinOp::Sub, n.clone(), i64c(1)), ScalarType::I64);
    let by = lw.hoist(Lowered::new(bin(vrir::BinOp::Div, del.expr, n1), Ty::scalar(DOUBLE)));
    let start = from.expr.clone();
    let out = tabulate(lw, DOUBLE, &n, |lw, k| {
        let steps = as_f64(lw, bin(vrir::BinOp::Sub, k, i64c(1)), ScalarType::I64);
        bin(vrir::BinOp::Add, start, bin(vrir::BinOp::Mul, steps, by.expr))
    });
    let vrir::Expr::Var { name } = &out.expr else { unreachable!("tabulate gives a variable") };
    let name = name.clone();
    let set = |target: LValue, value: vrir::Expr| Stmt { kind: StmtKind::Assign { targets: vec![target], value }, line: Some(line) };
    // The ends are `from` and `to` themselves, as R's c(from, ..., to).
    lw.emit(StmtKind::If {
        cond: bin(vrir::BinOp::Ge, n.clone(), i64c(2)),
        then: Block { on_gpu: false, stmts: vec![set(element(&name, n.clone()), to.expr.clone())] },
        els: None,
    });
    lw.emit(StmtKind::Assign { targets: vec![element(&name, i64c(1))], value: from.expr.clone() });
    // R: `rep.int(from, length.out)` when from == to and n > 2.
    let fill = vrir::Expr::Alloc { init: AllocInit::Fill { value: Box::new(from.expr.clone()) }, ty: ArrayType::new(DOUBLE, 1, lw.layout()), dims: vec![n.clone()] };
    lw.emit(StmtKind::If {
        cond: bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, n, i64c(2)), bin(vrir::BinOp::Eq, from.expr, to.expr)),
        then: Block { on_gpu: false, stmts: vec![set(LValue::Var { name }, fill)] },
        els: None,
    });
    Ok(out)
}

/// `seq(from, by = by, length.out = n)`: R's `from + (0:(n-1)) * by`. Integer when
/// `from` and `by` are integer or logical and the last value `from + (n-1) * by` is an
/// R integer (else R's result is double: raised as `seq_double_result`); double
/// otherwise, where n = 0 is R's `integer(0)` (raised as `seq_empty_integer`).
fn from_by(lw: &mut Lowerer, from_e: &Expr, by_e: &Expr, n_expr: &Expr, line: Line) -> LResult<Lowered> {
    let from = real_scalar(lw, from_e, "from", line)?;
    let by = real_scalar(lw, by_e, "by", line)?;
    require_finite(lw, &from, "seq_from_not_finite");
    let n = length_out(lw, n_expr, line)?;
    let logint = |t: Ty| matches!(t.elem, INTEGER | LOGICAL);
    if logint(from.ty) && logint(by.ty) {
        let from = lw.hoist(lw.cast(from, ScalarType::I64));
        let by = lw.hoist(lw.cast(by, ScalarType::I64));
        // R: `to <- from + (length.out - 1) * by`, in double, must be an integer.
        let n1 = as_f64(lw, bin(vrir::BinOp::Sub, n.clone(), i64c(1)), ScalarType::I64);
        let last = bin(vrir::BinOp::Add, as_f64(lw, from.expr.clone(), ScalarType::I64), bin(vrir::BinOp::Mul, n1, as_f64(lw, by.expr.clone(), ScalarType::I64)));
        let last = lw.hoist(Lowered::new(last, Ty::scalar(DOUBLE)));
        let limit = vrir::Expr::f64(INT_MAX as f64);
        let outside = bin(vrir::BinOp::Or, bin(vrir::BinOp::Gt, last.expr.clone(), limit.clone()), bin(vrir::BinOp::Lt, last.expr, vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(limit) }));
        lw.raise_if(bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, n.clone(), i64c(0)), outside), "seq_double_result");
        return Ok(tabulate(lw, INTEGER, &n, |lw, k| {
            let v = bin(vrir::BinOp::Add, from.expr, bin(vrir::BinOp::Mul, bin(vrir::BinOp::Sub, k, i64c(1)), by.expr));
            lw.cast(Lowered::new(v, Ty::scalar(ScalarType::I64)), INTEGER).expr
        }));
    }
    lw.raise_if(bin(vrir::BinOp::Eq, n.clone(), i64c(0)), "seq_empty_integer");
    let from = lw.hoist(lw.cast(from, DOUBLE));
    let by = lw.hoist(lw.cast(by, DOUBLE));
    Ok(tabulate(lw, DOUBLE, &n, |lw, k| {
        let steps = as_f64(lw, bin(vrir::BinOp::Sub, k, i64c(1)), ScalarType::I64);
        bin(vrir::BinOp::Add, from.expr, bin(vrir::BinOp::Mul, steps, by.expr))
    }))
}

/// `seq_len(n)`, `seq_along(x)`, `seq(from, to)` and `seq(from, to, by)` as sequences.
pub fn seq_call(lw: &mut Lowerer, func: &str, args: &[Arg], line: Line) -> LResult<SeqParts> {
    match func {
        "seq_len" => {
            let b = bind(lw, func, args, &["length.out"], line)?;
            let n = count_arg(lw, required(lw, func, b[0], "length.out", line)?, "`seq_len`", line)?;
            lw.raise_if(bin(vrir::BinOp::Lt, n.clone(), i64c(0)), "negative_length");
            Ok(SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INTEGER })
        }
        "seq_along" => {
            let b = bind(lw, func, args, &["along.with"], line)?;
            let along = required(lw, func, b[0], "along.with", line)?;
            if let Some(n) = match &along.kind {
                ExprKind::Var(v) => lw.growable_length(v),
                _ => None,
            } {
                return Ok(SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INTEGER });
            }
            let v = match lw.any_expr(along)? {
                Val::One(v) => v,
                Val::List(l) => return Ok(SeqParts { start: i64c(1), stop: i64c(l.ty.fields.len() as i64), step: i64c(1), elem: INTEGER }),
            };
            let n = if v.ty.rank == 0 { i64c(1) } else { lib(LibFn::Len, vec![v.expr]) };
            Ok(SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INTEGER })
        }
        _ => {
            let args = r_names(args);
            let args = args.as_slice();
            if let [only] = args {
                if only.name.as_deref() == Some(LENGTH_OUT) {
                    // `seq(length.out = n)` is `seq_len(n)` (of n rounded up).
                    let n = length_out(lw, &only.value, line)?;
                    return Ok(SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INTEGER });
                }
            }
            let b = bind(lw, func, args, &["from", "to", "by"], line)?;
            let from = required(lw, func, b[0], "from", line)?;
            let to = required(lw, func, b[1], "to", line)?;
            let Some(by) = b[2] else {
                let colon = Expr::new(ExprKind::Binary(crate::frontend::hir::BinOp::Colon, Box::new(from.clone()), Box::new(to.clone())), line);
                return lw.prog.lang.seq(lw, &colon).expect("`:` is a sequence");
            };
            let vf = lw.expr(from)?;
            let vt = lw.expr(to)?;
            let vb = lw.expr(by)?;
            if [vf.ty, vt.ty, vb.ty].iter().any(|t| t.rank != 0 || t.elem == COMPLEX) {
                return Err(lw.unsupported("`seq(from, to, by)`", line, "compiled with single real numbers"));
            }
            let all_int = [vf.ty, vt.ty, vb.ty].iter().all(|t| t.elem == INTEGER);
            let whole = |lw: &mut Lowerer, v: Lowered| -> vrir::Expr {
                if v.ty.elem != DOUBLE {
                    return lw.cast(v, ScalarType::I64).expr;
                }
                let v = lw.hoist(v);
                let s = lw.hoist(lw.cast(v.clone(), ScalarType::I64));
                let back = lw.cast(s.clone(), DOUBLE);
                lw.raise_if(bin(vrir::BinOp::Ne, back.expr, v.expr), "non_integer_start");
                s.expr
            };
            let start = whole(lw, vf);
            let step = whole(lw, vb);
            let start = lw.hoist(Lowered::new(start, Ty::scalar(ScalarType::I64))).expr;
            let step = lw.hoist(Lowered::new(step, Ty::scalar(ScalarType::I64))).expr;
            // n = trunc((to - from) / by); R rejects a negative n ("wrong sign in 'by'").
            let fromf = lw.cast(Lowered::new(start.clone(), Ty::scalar(ScalarType::I64)), DOUBLE).expr;
            let stepf = lw.cast(Lowered::new(step.clone(), Ty::scalar(ScalarType::I64)), DOUBLE).expr;
            let tof = lw.cast(vt, DOUBLE).expr;
            let q = lw.hoist(Lowered::new(bin(vrir::BinOp::Div, bin(vrir::BinOp::Sub, tof, fromf), stepf), Ty::scalar(DOUBLE)));
            lw.raise_if(bin(vrir::BinOp::Lt, q.expr.clone(), vrir::Expr::f64(0.0)), "seq_wrong_sign");
            let n = lw.cast(q, ScalarType::I64).expr;
            let stop = bin(vrir::BinOp::Add, start.clone(), bin(vrir::BinOp::Mul, n, step.clone()));
            Ok(SeqParts { start, stop, step, elem: if all_int { INTEGER } else { DOUBLE } })
        }
    }
}
