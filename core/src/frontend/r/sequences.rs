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
/// `from`, `to` or `by`, or `seq(from, to, by)` whose `from` or `by` is not a whole-number
/// literal (R's sequence of doubles, `seq(-2, 0.5, 0.1)`, or a step known only at run
/// time: `seq_by` follows R's `seq.default` for both)?
pub fn is_value(args: &[Arg]) -> bool {
    let args = r_names(args);
    if args.len() > 1 && args.iter().any(|a| a.name.as_deref() == Some(LENGTH_OUT)) {
        return true;
    }
    let Ok(m) = crate::frontend::matching::match_args(&["from", "to", "by"], &args) else { return false };
    match (m.get(&args, 0), m.get(&args, 2)) {
        (Some(from), Some(by)) => !(whole_literal(&from.value) && whole_literal(&by.value)),
        _ => false,
    }
}

/// A whole-number literal (`2`, `-1`, `3L`) of R's integer range.
fn whole_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) => true,
        ExprKind::Double(v) => v.fract() == 0.0 && v.abs() <= INT_MAX as f64,
        ExprKind::Unary(crate::frontend::hir::UnOp::Neg, a) => whole_literal(a),
        _ => false,
    }
}

/// `seq(...)` as a value (`is_value`).
pub fn seq_value(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let named = r_names(args);
    if named.iter().any(|a| a.name.as_deref() == Some(LENGTH_OUT)) {
        return seq_length_out(lw, args, line);
    }
    let b = bind(lw, "seq", &named, &["from", "to", "by"], line)?;
    let from = required(lw, "seq", b[0], "from", line)?;
    let to = required(lw, "seq", b[1], "to", line)?;
    let by = required(lw, "seq", b[2], "by", line)?;
    seq_by(lw, from, to, by, line)
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
            if let (Some(from), None, None) = (b[0], b[1], b[2]) {
                return seq_one(lw, from, line);
            }
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

/// `seq(from, to, by)` as R's `seq.default` computes it: with `from`, `to` and `by`
/// integer or logical, the integers `from + (0:n) * by`; otherwise doubles, `n <-
/// as.integer((to - from) / by + 1e-10)`, `from + (0:n) * by` clamped to `to` (`pmin`
/// for a positive `by`, `pmax` for a negative one). R's errors are R's; where R returns
/// `from` or `to` itself over a zero span and that is an integer, R's result is an
/// integer where compiled code's is double: raised as `seq_value_type` (`unsupported`).
fn seq_by(lw: &mut Lowerer, from_e: &Expr, to_e: &Expr, by_e: &Expr, line: Line) -> LResult<Lowered> {
    let from = real_scalar(lw, from_e, "from", line)?;
    let to = real_scalar(lw, to_e, "to", line)?;
    let by = real_scalar(lw, by_e, "by", line)?;
    require_finite(lw, &from, "seq_from_not_finite");
    require_finite(lw, &to, "seq_to_not_finite");
    let logint = |t: Ty| matches!(t.elem, INTEGER | LOGICAL);
    let int = logint(from.ty) && logint(to.ty) && logint(by.ty);
    let f = lw.hoist(lw.cast(from.clone(), DOUBLE));
    let t = lw.hoist(lw.cast(to.clone(), DOUBLE));
    let b = lw.hoist(lw.cast(by.clone(), DOUBLE));
    let f64c = vrir::Expr::f64;
    let not = |e: vrir::Expr| vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(e) };
    let del = lw.hoist(Lowered::new(bin(vrir::BinOp::Sub, t.expr.clone(), f.expr.clone()), Ty::scalar(DOUBLE)));
    let zero_span = bin(vrir::BinOp::Eq, del.expr.clone(), f64c(0.0));
    // R: `if (del == 0 && to == 0) return(to)`, and `return(from)` for a zero span below:
    // of R's type for `from` or `to`, an integer unless both are doubles.
    if int || from.ty.elem != DOUBLE || to.ty.elem != DOUBLE {
        lw.raise_if(zero_span.clone(), "seq_value_type");
    }
    let n = lw.hoist(Lowered::new(bin(vrir::BinOp::Div, del.expr.clone(), b.expr.clone()), Ty::scalar(DOUBLE)));
    let not_finite = bin(vrir::BinOp::Or, lib(LibFn::IsNan, vec![n.expr.clone()]), lib(LibFn::IsInf, vec![n.expr.clone()]));
    // `by == 0` over a zero span returns `from`; any other non-finite n is R's error.
    let by_zero = bin(vrir::BinOp::Eq, b.expr.clone(), f64c(0.0));
    lw.raise_if(bin(vrir::BinOp::And, not_finite.clone(), not(bin(vrir::BinOp::And, by_zero, zero_span))), "seq_invalid_by");
    // An infinite `by` gives R's NaN (or `from`): left to R.
    lw.raise_if(lib(LibFn::IsInf, vec![b.expr.clone()]), "seq_by_infinite");
    lw.raise_if(bin(vrir::BinOp::Lt, n.expr.clone(), f64c(0.0)), "seq_wrong_sign");
    lw.raise_if(bin(vrir::BinOp::Gt, n.expr.clone(), f64c(INT_MAX as f64)), "seq_by_too_small");
    if int {
        // Integers: n <- as.integer(n); from + (0:n) * by never leaves [from, to].
        let n_int = lw.cast(n, ScalarType::I64).expr;
        let count = lw.hoist(Lowered::new(bin(vrir::BinOp::Add, n_int, i64c(1)), Ty::scalar(ScalarType::I64)));
        let fi = lw.hoist(lw.cast(from, ScalarType::I64));
        let bi = lw.hoist(lw.cast(by, ScalarType::I64));
        return Ok(tabulate(lw, INTEGER, &count.expr, |lw, k| {
            let v = bin(vrir::BinOp::Add, fi.expr, bin(vrir::BinOp::Mul, bin(vrir::BinOp::Sub, k, i64c(1)), bi.expr));
            lw.cast(Lowered::new(v, Ty::scalar(ScalarType::I64)), INTEGER).expr
        }));
    }
    // A span below 100 ulps of the larger end: R returns `from` (a double here); `by ==
    // 0` over a zero span too.
    let abs = |e: vrir::Expr| lib(LibFn::Abs, vec![e]);
    let tiny = bin(
        vrir::BinOp::Lt,
        bin(vrir::BinOp::Div, abs(del.expr.clone()), lib(LibFn::Max, vec![abs(t.expr.clone()), abs(f.expr.clone())])),
        f64c(100.0 * f64::EPSILON),
    );
    let single = bin(vrir::BinOp::Or, not_finite, tiny);
    // n <- as.integer(n + 1e-10): n + 1 elements, or R's `return(from)`: one, `from`
    // itself (`from + 0 * by` below, `by` being finite).
    let count = lw.temp(&Type::I64);
    let n_int = lw.cast(Lowered::new(bin(vrir::BinOp::Add, n.expr, f64c(1e-10)), Ty::scalar(DOUBLE)), ScalarType::I64).expr;
    let set = |name: &str, value: vrir::Expr| Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: name.to_string() }], value }, line: Some(line) };
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: count.clone() }], value: i64c(1) });
    lw.emit(StmtKind::If { cond: not(single), then: Block { on_gpu: false, stmts: vec![set(&count, bin(vrir::BinOp::Add, n_int, i64c(1)))] }, els: None });
    // pmin(x, to) for a positive `by`, pmax(x, to) for a negative one: s * min(s * x, s *
    // to) with s = +-1 (exact: a sign flip; no NaN can occur here).
    let sign = lw.temp(&Type::F64);
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: sign.clone() }], value: f64c(1.0) });
    lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Lt, b.expr.clone(), f64c(0.0)), then: Block { on_gpu: false, stmts: vec![set(&sign, f64c(-1.0))] }, els: None });
    let (start, step, end, s) = (f.expr, b.expr, t.expr, vrir::Expr::var(&sign));
    Ok(tabulate(lw, DOUBLE, &vrir::Expr::var(&count), |lw, k| {
        let steps = as_f64(lw, bin(vrir::BinOp::Sub, k, i64c(1)), ScalarType::I64);
        let x = bin(vrir::BinOp::Add, start, bin(vrir::BinOp::Mul, steps, step));
        let flip = |e: vrir::Expr| bin(vrir::BinOp::Mul, s.clone(), e);
        flip(lib(LibFn::Min, vec![flip(x), flip(end)]))
    }))
}

/// `seq(x)`, R's `seq.default` with one argument: `1L:x` for a single number, `1L:length(x)`
/// for a longer vector. A vector of length one at run time is its value in R, not its
/// length: raised as `seq_one_value` (`unsupported`).
fn seq_one(lw: &mut Lowerer, from: &Expr, line: Line) -> LResult<SeqParts> {
    let v = lw.expr(from)?;
    if v.ty.elem == COMPLEX {
        return Err(lw.unsupported("`seq` of a complex number", line, "R's sequence is then 1L (its mode is not numeric)"));
    }
    if v.ty.rank == 0 {
        let v = lw.hoist(v);
        require_finite(lw, &v, "seq_from_not_finite");
        let name = lw.bind_value(v);
        let one = Expr::new(ExprKind::Int(1), line);
        let colon = Expr::new(ExprKind::Binary(crate::frontend::hir::BinOp::Colon, Box::new(one), Box::new(Expr::new(ExprKind::Var(name.clone()), line))), line);
        let parts = lw.prog.lang.seq(lw, &colon).expect("`:` is a sequence");
        lw.unbind(&name);
        return parts;
    }
    let n = lw.hoist(Lowered::new(lib(LibFn::Len, vec![v.expr]), Ty::scalar(ScalarType::I64)));
    lw.raise_if(bin(vrir::BinOp::Eq, n.expr.clone(), i64c(1)), "seq_one_value");
    Ok(SeqParts { start: i64c(1), stop: n.expr, step: i64c(1), elem: INTEGER })
}
