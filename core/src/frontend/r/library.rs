//! More of R's library, as numeric code uses it: `which.max`/`which.min`, `range`,
//! `diff`, `outer` with an operator named by a string, `tcrossprod`, `stopifnot`,
//! `vector(mode, length)`, `matrix(nrow =, ncol =)` without data, the `bitw*`
//! functions, `pmax`/`pmin` and the `is.*` type tests. Each follows R 4's result types
//! and edge cases, checked against Rscript (core/tests/frontend_r/rules.R): where R's
//! answer is NA or a value compiled code cannot hold (`which.max` of an all-NA vector
//! is `integer(0)`), the call raises a check of kind `unsupported` and runs in R.

use super::builtins::{alloc, arr_ty, as_matrix, bind, count_arg, matmul, matrix_of, one_arg, required};
use super::deparse::deparse;
use super::rules::{any_nan, bin, i64c, lib, to_logical, COMPLEX, DOUBLE, INTEGER, LOGICAL, RULES};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line, MissingKind};
use crate::frontend::lower::{stop_reason, LResult, Lowered, Lowerer};
use crate::frontend::rules::Language;
use crate::frontend::types::{wider, Ty};
use crate::vrir::{self, AllocInit, Block, IndexFlags, LValue, LibFn, Literal, Local, ReduceOp, ScalarType, Stmt, StmtKind, Type};

/// `which.max`/`which.min` of an empty or all-NA vector: R's answer is `integer(0)`.
pub const WHICH_EMPTY: &str = "which_empty";
/// A `bitw*` result or operand that is NA in R.
pub const BITW_NA: &str = "bitw_na";
/// R's error for `diff(x, lag, differences)` with a count below 1.
pub const DIFF_LAG: &str = "diff_lag";

pub fn call(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
    Some(match name {
        "which.max" | "which.min" => which_extreme(lw, name, args, line),
        "range" => range(lw, args, line),
        "diff" => diff(lw, args, line),
        "tcrossprod" => tcrossprod(lw, args, line),
        "stopifnot" => stopifnot(lw, args, line),
        "vector" => return vector(lw, args, line),
        "bitwAnd" | "bitwOr" | "bitwXor" => bitw2(lw, name, args, line),
        "bitwNot" => bitw_not(lw, args, line),
        "bitwShiftL" | "bitwShiftR" => bitw_shift(lw, name, args, line),
        "pmax" | "pmin" => parallel_extreme(lw, name, args, line),
        "is.numeric" | "is.double" | "is.integer" | "is.logical" | "is.complex" | "is.vector" | "is.matrix" | "is.array" | "is.null" => {
            is_type(lw, name, args, line)
        }
        _ => return None,
    })
}

fn scalar(e: vrir::Expr, t: ScalarType) -> Lowered {
    Lowered::new(e, Ty::scalar(t))
}

fn set(name: &str, value: vrir::Expr, line: Line) -> Stmt {
    Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: name.into() }], value }, line: Some(line) }
}

fn for_range(var: &str, stop: vrir::Expr, stmts: Vec<Stmt>) -> StmtKind {
    StmtKind::For {
        vars: vec![var.into()],
        domain: vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(stop)), step: None },
        body: Block { on_gpu: false, stmts },
    }
}

/// Whether any element of bool `c` (hoisted when an array) holds.
fn any_of(lw: &mut Lowerer, c: Lowered) -> vrir::Expr {
    if c.ty.rank == 0 {
        return c.expr;
    }
    let count = lw.cast(c, ScalarType::I64);
    bin(vrir::BinOp::Gt, vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(count.expr), axis: None, acc: None }, i64c(0))
}

/// `which.max(x)`, `which.min(x)`: the position of the first largest (smallest) element,
/// NA and NaN skipped; an integer.
fn which_extreme(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let v = lw.expr(x)?;
    if v.ty.elem == COMPLEX {
        return Err(lw.unsupported(&format!("`{name}` of complex numbers"), line, "R does not order them"));
    }
    if v.ty.rank == 0 {
        if v.ty.elem == DOUBLE {
            let v = lw.hoist(v);
            lw.raise_if(lib(LibFn::IsNan, vec![v.expr]), WHICH_EMPTY);
        }
        return Ok(scalar(vrir::Expr::lit(Literal::I32(1)), INTEGER));
    }
    let v = if v.ty.elem == LOGICAL { lw.cast(v, INTEGER) } else { v };
    let v = lw.hoist(v);
    let elem = v.ty.elem;
    let best = lw.temp(&Type::I64);
    let value = lw.temp(&Type::scalar(elem));
    let k = lw.temp(&Type::I64);
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: best.clone() }], value: i64c(0) });
    let zero = if elem == DOUBLE { vrir::Expr::f64(0.0) } else { vrir::Expr::lit(Literal::I32(0)) };
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: value.clone() }], value: zero });
    let element = vrir::Expr::Index {
        array: Box::new(v.expr.clone()),
        indices: vec![vrir::Expr::var(&k)],
        flags: IndexFlags { flatten: v.ty.rank > 1, ..IndexFlags::default() },
    };
    let e = lw.temp(&Type::scalar(elem));
    let cmp = if name == "which.max" { vrir::BinOp::Gt } else { vrir::BinOp::Lt };
    let better = bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, vrir::Expr::var(&best), i64c(0)), bin(cmp, vrir::Expr::var(&e), vrir::Expr::var(&value)));
    let take = if elem == DOUBLE {
        bin(vrir::BinOp::And, vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(lib(LibFn::IsNan, vec![vrir::Expr::var(&e)])) }, better)
    } else {
        better
    };
    let body = vec![
        set(&e, element, line),
        Stmt {
            kind: StmtKind::If {
                cond: take,
                then: Block { on_gpu: false, stmts: vec![set(&best, vrir::Expr::var(&k), line), set(&value, vrir::Expr::var(&e), line)] },
                els: None,
            },
            line: Some(line),
        },
    ];
    lw.emit(for_range(&k, lib(LibFn::Len, vec![v.expr]), body));
    lw.raise_if(bin(vrir::BinOp::Eq, vrir::Expr::var(&best), i64c(0)), WHICH_EMPTY);
    Ok(lw.cast(scalar(vrir::Expr::var(best), ScalarType::I64), INTEGER))
}

/// `range(...)`: `c(min(...), max(...))` over every argument (integer for logicals and
/// integers, as R).
fn range(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    if args.is_empty() || args.iter().any(|a| a.name.is_some()) {
        return Err(lw.unsupported("`range` with these arguments", line, "compiled with unnamed vectors (`na.rm` does not compile)"));
    }
    let mut vals = Vec::new();
    for a in args {
        let v = lw.expr(&a.value)?;
        if v.ty.elem == COMPLEX {
            return Err(lw.unsupported("`range` of complex numbers", line, "R does not order them"));
        }
        vals.push(lw.hoist(v));
    }
    let elem = vals.iter().fold(INTEGER, |e, v| wider(e, v.ty.elem));
    let mut lo: Option<vrir::Expr> = None;
    let mut hi: Option<vrir::Expr> = None;
    for v in vals {
        let v = lw.cast(v, elem);
        let (a, b) = if v.ty.rank == 0 {
            (v.expr.clone(), v.expr)
        } else {
            (
                vrir::Expr::Reduce { op: ReduceOp::Min, arg: Box::new(v.expr.clone()), axis: None, acc: None },
                vrir::Expr::Reduce { op: ReduceOp::Max, arg: Box::new(v.expr), axis: None, acc: None },
            )
        };
        lo = Some(lo.map_or(a.clone(), |l| lib(LibFn::Min, vec![l, a])));
        hi = Some(hi.map_or(b.clone(), |h| lib(LibFn::Max, vec![h, b])));
    }
    let ty = Ty::array(elem, 1);
    let out = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(AllocInit::Empty, elem, vec![i64c(2)]) });
    for (k, v) in [lo, hi].into_iter().enumerate() {
        let v = v.expect("at least one argument");
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Index { array: out.clone(), indices: vec![i64c(k as i64 + 1)], flags: IndexFlags::default() }],
            value: v,
        });
    }
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `diff(x, lag = 1, differences = 1)` of a vector: `x[(1+lag):n] - x[1:(n-lag)]`,
/// `differences` times, with R's arithmetic (integers stay integers, checked); empty
/// once the vector is not longer than `lag`.
fn diff(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "diff", args, &["x", "lag", "differences"], line)?;
    let v = lw.expr(required(lw, "diff", b[0], "x", line)?)?;
    if v.ty.rank > 1 {
        return Err(lw.unsupported("`diff` of a matrix", line, "R differences its rows; compiled `diff` takes a vector"));
    }
    if v.ty.elem == LOGICAL {
        return Err(lw.unsupported("`diff` of a logical vector", line, "R's result type depends on its length"));
    }
    let lag = match b[1] {
        Some(e) => count_arg(lw, e, "`lag`", line)?,
        None => i64c(1),
    };
    let times = match b[2] {
        Some(e) => count_arg(lw, e, "`differences`", line)?,
        None => i64c(1),
    };
    lw.raise_if(bin(vrir::BinOp::Or, bin(vrir::BinOp::Lt, lag.clone(), i64c(1)), bin(vrir::BinOp::Lt, times.clone(), i64c(1))), DIFF_LAG);
    let v = crate::frontend::growth::vector_of_one(v, lw.layout());
    let ty = v.ty;
    let r = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: r.clone() }], value: v.expr });
    let n = lw.temp(&Type::I64);
    let d = lw.temp(&Type::I64);
    let slice = |start: vrir::Expr, stop: vrir::Expr| {
        Lowered::new(
            vrir::Expr::Index {
                array: Box::new(vrir::Expr::var(&r)),
                indices: vec![vrir::Expr::Range { start: Some(Box::new(start)), stop: Some(Box::new(stop)), step: None }],
                flags: IndexFlags::default(),
            },
            ty,
        )
    };
    // The body of one difference, with the checks the subtraction needs.
    let outer = std::mem::take(lw.pre_mut());
    let later = slice(bin(vrir::BinOp::Add, lag.clone(), i64c(1)), vrir::Expr::var(&n));
    let earlier = slice(i64c(1), bin(vrir::BinOp::Sub, vrir::Expr::var(&n), lag.clone()));
    let step = RULES.binary(lw, BinOp::Sub, later, earlier, line);
    let mut differ = std::mem::replace(lw.pre_mut(), outer);
    let step = step?;
    differ.push(set(&r, step.expr, line));
    let empty = slice(i64c(1), i64c(0));
    let body = vec![
        set(&n, lib(LibFn::Len, vec![vrir::Expr::var(&r)]), line),
        Stmt {
            kind: StmtKind::If {
                cond: bin(vrir::BinOp::Le, vrir::Expr::var(&n), lag),
                then: Block { on_gpu: false, stmts: vec![set(&r, empty.expr, line)] },
                els: Some(Block { on_gpu: false, stmts: differ }),
            },
            line: Some(line),
        },
    ];
    lw.emit(for_range(&d, times, body));
    Ok(Lowered::new(vrir::Expr::var(r), ty))
}

/// The operator an `outer` FUN string names, for [`outer_op`]: R's arithmetic ones.
pub(super) fn outer_operator(name: &str) -> Option<BinOp> {
    Some(match name {
        "*" => BinOp::Mul,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "/" => BinOp::Div,
        "^" => BinOp::Pow,
        "%%" => BinOp::Mod,
        "%/%" => BinOp::IDiv,
        _ => return None,
    })
}

/// `outer(X, Y, FUN)` of vectors with FUN an arithmetic operator (`"*"`, the default,
/// or another given as a string; `functionals::outer` sends them here): the `length(X)`
/// by `length(Y)` matrix of `X[i] FUN Y[j]`. R computes `"*"` as `tcrossprod` (a double
/// product, whatever the types) and the others with the operator's own rules.
pub(super) fn outer_op(lw: &mut Lowerer, x: &Expr, y: &Expr, op: BinOp, line: Line) -> LResult<Lowered> {
    let layout = lw.layout();
    let mut sides = Vec::new();
    for e in [x, y] {
        let v = lw.expr(e)?;
        if v.ty.rank > 1 {
            return Err(lw.unsupported("`outer` of a matrix", line, "R's result is an array of dim c(dim(X), dim(Y)); compiled `outer` takes vectors"));
        }
        let v = crate::frontend::growth::vector_of_one(v, layout);
        sides.push(lw.hoist(v));
    }
    let (x, y) = (sides.remove(0), sides.remove(0));
    let nx = lw.hoist(scalar(lib(LibFn::Len, vec![x.expr.clone()]), ScalarType::I64));
    let ny = lw.hoist(scalar(lib(LibFn::Len, vec![y.expr.clone()]), ScalarType::I64));
    let (i, j) = (lw.temp(&Type::I64), lw.temp(&Type::I64));
    let at = |v: &Lowered, k: &str| {
        scalar(vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![vrir::Expr::var(k)], flags: IndexFlags::default() }, v.ty.elem)
    };
    let outer_pre = std::mem::take(lw.pre_mut());
    let value = if op == BinOp::Mul {
        let e = wider(DOUBLE, wider(x.ty.elem, y.ty.elem));
        let (a, b) = (lw.cast(at(&x, &i), e), lw.cast(at(&y, &j), e));
        Ok(scalar(bin(vrir::BinOp::Mul, a.expr, b.expr), e))
    } else {
        RULES.binary(lw, op, at(&x, &i), at(&y, &j), line)
    };
    let mut body = std::mem::replace(lw.pre_mut(), outer_pre);
    let value = value?;
    let ty = Ty::array(value.ty.elem, 2);
    let out = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: out.clone() }],
        value: alloc(AllocInit::Empty, value.ty.elem, vec![nx.expr.clone(), ny.expr.clone()]),
    });
    body.push(Stmt {
        kind: StmtKind::Assign {
            targets: vec![LValue::Index { array: out.clone(), indices: vec![vrir::Expr::var(&i), vrir::Expr::var(&j)], flags: IndexFlags::default() }],
            value: value.expr,
        },
        line: Some(line),
    });
    let inner = Stmt { kind: for_range(&i, nx.expr, body), line: Some(line) };
    lw.emit(for_range(&j, ny.expr, vec![inner]));
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `tcrossprod(x, y = x)`: `x %*% t(y)`, vectors as columns.
fn tcrossprod(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "tcrossprod", args, &["x", "y"], line)?;
    let x = lw.expr(required(lw, "tcrossprod", b[0], "x", line)?)?;
    let x = lw.hoist(x);
    let y = match b[1] {
        Some(e) => {
            let y = lw.expr(e)?;
            lw.hoist(y)
        }
        None => x.clone(),
    };
    let column = |lw: &mut Lowerer, v: Lowered| -> LResult<Lowered> {
        match v.ty.rank {
            2 => Ok(v),
            1 => {
                let n = lib(LibFn::Len, vec![v.expr.clone()]);
                as_matrix(lw, v, n, i64c(1), line)
            }
            _ => Err(lw.unsupported("`tcrossprod` of a scalar", line, "compiled for vectors and matrices")),
        }
    };
    let x = column(lw, x)?;
    let y = column(lw, y)?;
    let y = lw.hoist(y);
    let ty = y.ty;
    let yt = Lowered::new(lib(LibFn::Transpose, vec![y.expr]), ty);
    matmul(lw, x, yt, line)
}

/// `stopifnot(cond, ...)`: R's error "cond is not TRUE" ("are not all TRUE" for a
/// longer vector), or the argument's name as the message (`stopifnot("n must be
/// positive" = n > 0)`), for the first argument that fails; in order. Its value (NULL)
/// is dropped by the engine (`Marker::Check`).
fn stopifnot(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    for a in args {
        let text = match &a.name {
            Some(n) => Some(n.clone()),
            None => deparse(&a.value),
        };
        let Some(text) = text else {
            return Err(lw.unsupported("`stopifnot` of this expression", line, "its message (R's deparse of it) is not known"));
        };
        let v = lw.expr(&a.value)?;
        let v = to_logical(lw, v, line)?;
        let v = lw.hoist(v);
        let not = |e: vrir::Expr| vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(e) };
        if v.ty.rank == 0 {
            let message = if a.name.is_some() { text } else { format!("{text} is not TRUE") };
            lw.raise_if(not(v.expr), &stop_reason(&message));
            continue;
        }
        let n = lw.hoist(scalar(lib(LibFn::Len, vec![v.expr.clone()]), ScalarType::I64));
        let count = lw.cast(v.clone(), ScalarType::I64);
        let trues = vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(count.expr), axis: None, acc: None };
        let failed = lw.hoist(scalar(bin(vrir::BinOp::Ne, trues, n.expr.clone()), LOGICAL));
        if a.name.is_some() {
            lw.raise_if(failed.expr, &stop_reason(&text));
        } else {
            let one = bin(vrir::BinOp::And, failed.expr.clone(), bin(vrir::BinOp::Eq, n.expr.clone(), i64c(1)));
            lw.raise_if(one, &stop_reason(&format!("{text} is not TRUE")));
            lw.raise_if(failed.expr, &stop_reason(&format!("{text} are not all TRUE")));
        }
    }
    Ok(scalar(vrir::Expr::lit(Literal::Bool(true)), LOGICAL))
}

/// `vector(mode = "logical", length = 0)` of an atomic mode; None for other modes (a
/// list is not numeric code's).
fn vector(lw: &mut Lowerer, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
    let b = bind(lw, "vector", args, &["mode", "length"], line).ok()?;
    let elem = match b[0].map(|e| &e.kind) {
        None => LOGICAL,
        Some(ExprKind::Str(m)) => match m.as_str() {
            "double" | "numeric" => DOUBLE,
            "integer" => INTEGER,
            "logical" => LOGICAL,
            "complex" => COMPLEX,
            _ => return None,
        },
        Some(_) => return None,
    };
    let n = match b[1] {
        Some(e) => match count_arg(lw, e, "`vector` length", line) {
            Ok(n) => n,
            Err(err) => return Some(Err(err)),
        },
        None => i64c(0),
    };
    lw.raise_if(bin(vrir::BinOp::Lt, n.clone(), i64c(0)), "negative_length");
    Some(Ok(Lowered::new(alloc(AllocInit::Zeros, elem, vec![n]), Ty::array(elem, 1))))
}

/// A constructor of missing values assigned to a variable of element type `elem`:
/// `matrix(nrow = n, ncol = m)` and `matrix(NA, ...)` (R: a logical NA matrix, which
/// the variable's double or complex type turns into NA_real_ or NA_complex_).
pub fn na_filled(lw: &mut Lowerer, e: &Expr, elem: Option<ScalarType>) -> Option<LResult<Lowered>> {
    let ExprKind::Call { func, args } = &e.kind else { return None };
    if func != "matrix" || lw.is_user_function(func) {
        return None;
    }
    let data = args.iter().find(|a| a.name.as_deref() == Some("data")).or_else(|| args.iter().find(|a| a.name.is_none()));
    let data_is_na = match data {
        None => true,
        Some(a) => a.value.kind == ExprKind::Missing(MissingKind::Logical),
    };
    if !data_is_na {
        return None;
    }
    let rest: Vec<Arg> = match data {
        Some(d) => args.iter().filter(|a| !std::ptr::eq(*a, d)).cloned().collect(),
        None => args.to_vec(),
    };
    let mut rest = rest;
    // The data position stays taken, so `matrix(NA, 2, 3)` keeps its extents.
    rest.insert(0, Arg { name: Some("data".into()), value: Expr::new(ExprKind::Double(0.0), e.line) });
    let na = match elem.and_then(|t| RULES.missing_value(t).map(|v| (t, v))) {
        Some((t, v)) => scalar(vrir::Expr::lit(v), t),
        None if !lw.final_pass() => scalar(vrir::Expr::lit(Literal::Bool(false)), LOGICAL),
        None => {
            return Some(Err(lw.unsupported(
                "`matrix` of NA",
                e.line,
                "R's matrix without data is a logical NA matrix; it compiles only as a variable that also holds doubles or complex numbers (its NA is then NA_real_)",
            )))
        }
    };
    Some(matrix_of(lw, &rest, Some(na), e.line))
}

/// `a` as an unsigned 32-bit value in i64 (R's `bitw*` view of an integer); doubles are
/// truncated as `as.integer` does, NA and values outside R's integers raise.
fn unsigned(lw: &mut Lowerer, name: &str, a: Lowered, line: Line) -> LResult<Lowered> {
    let w = match a.ty.elem {
        INTEGER => lw.cast(a, ScalarType::I64),
        DOUBLE => {
            let a = lw.hoist(a);
            let limit = 2147483648.0;
            let e = a.expr.clone();
            let bad = bin(
                vrir::BinOp::Or,
                lib(LibFn::IsNan, vec![e.clone()]),
                bin(vrir::BinOp::Or, bin(vrir::BinOp::Ge, e.clone(), vrir::Expr::f64(limit)), bin(vrir::BinOp::Le, e, vrir::Expr::f64(-limit))),
            );
            let bad = any_of(lw, Lowered::new(bad, a.ty.with_elem(LOGICAL)));
            lw.raise_if(bad, BITW_NA);
            lw.cast(a, ScalarType::I64)
        }
        _ => return Err(lw.unsupported(&format!("`{name}` of a {}", a.ty), line, "R's `bitw*` take integers (or doubles)")),
    };
    let w = lw.hoist(w);
    let negative = lw.cast(Lowered::new(bin(vrir::BinOp::Lt, w.expr.clone(), i64c(0)), w.ty.with_elem(LOGICAL)), ScalarType::I64);
    let ty = w.ty;
    Ok(lw.hoist(Lowered::new(bin(vrir::BinOp::Add, w.expr, bin(vrir::BinOp::Mul, negative.expr, i64c(1 << 32))), ty)))
}

/// An unsigned 32-bit value (i64) as R's integer; INT_MIN is R's NA: raise.
fn from_unsigned(lw: &mut Lowerer, u: Lowered) -> Lowered {
    let u = lw.hoist(u);
    let high = lw.cast(Lowered::new(bin(vrir::BinOp::Ge, u.expr.clone(), i64c(1 << 31)), u.ty.with_elem(LOGICAL)), ScalarType::I64);
    let ty = u.ty;
    let s = lw.hoist(Lowered::new(bin(vrir::BinOp::Sub, u.expr, bin(vrir::BinOp::Mul, high.expr, i64c(1 << 32))), ty));
    let na = Lowered::new(bin(vrir::BinOp::Eq, s.expr.clone(), i64c(-(1 << 31))), ty.with_elem(LOGICAL));
    let na = any_of(lw, na);
    lw.raise_if(na, BITW_NA);
    lw.cast(s, INTEGER)
}

/// The module's helper `_bitw_and(a, b)`: the bitwise and of two unsigned 32-bit
/// values held in i64 (VRIR has no bit operations), bit by bit from the lowest.
fn and_helper(lw: &mut Lowerer, line: Line) -> String {
    let name = "_bitw_and".to_string();
    lw.prog.helpers.entry(name.clone()).or_insert_with(|| {
        let v = |n: &str| vrir::Expr::var(n);
        let odd = |x: &str| bin(vrir::BinOp::Eq, bin(vrir::BinOp::Mod, v(x), i64c(2)), i64c(1));
        let halve = |x: &str| set(x, bin(vrir::BinOp::IDiv, v(x), i64c(2)), line);
        let step = vec![
            Stmt {
                kind: StmtKind::If {
                    cond: bin(vrir::BinOp::And, odd("x"), odd("y")),
                    then: Block { on_gpu: false, stmts: vec![set("r", bin(vrir::BinOp::Add, v("r"), v("p")), line)] },
                    els: None,
                },
                line: Some(line),
            },
            halve("x"),
            halve("y"),
            set("p", bin(vrir::BinOp::Mul, v("p"), i64c(2)), line),
        ];
        let both = bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, v("x"), i64c(0)), bin(vrir::BinOp::Gt, v("y"), i64c(0)));
        let param = |n: &str| vrir::Param { name: n.into(), ty: Type::I64, restrict: false };
        let local = |n: &str| Local { name: n.into(), ty: Type::I64 };
        vrir::Function {
            name: name.clone(),
            params: vec![param("a"), param("b")],
            results: vec![Type::I64],
            locals: vec![local("x"), local("y"), local("r"), local("p")],
            body: vec![
                set("x", v("a"), line),
                set("y", v("b"), line),
                set("r", i64c(0), line),
                set("p", i64c(1), line),
                Stmt { kind: StmtKind::While { cond: both, body: Block { on_gpu: false, stmts: step } }, line: Some(line) },
                Stmt { kind: StmtKind::Return { values: vec![v("r")] }, line: Some(line) },
            ],
            line: None,
        }
    });
    name
}

/// `bitwAnd`, `bitwOr`, `bitwXor` (or = a + b - and, xor = a + b - 2 and).
fn bitw2(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, name, args, &["a", "b"], line)?;
    let a = lw.expr(required(lw, name, b[0], "a", line)?)?;
    let c = lw.expr(required(lw, name, b[1], "b", line)?)?;
    let (a, c) = super::recycle::conform(lw, &format!("`{name}`"), a, c, line)?;
    let ua = unsigned(lw, name, a, line)?;
    let uc = unsigned(lw, name, c, line)?;
    let rank = ua.ty.rank.max(uc.ty.rank);
    let ty = Ty::array(ScalarType::I64, rank);
    let helper = and_helper(lw, line);
    let call_args = vec![ua.expr.clone(), uc.expr.clone()];
    let and = if rank == 0 { vrir::Expr::Call { func: helper, args: call_args } } else { vrir::Expr::Map { func: helper, args: call_args } };
    let sum = bin(vrir::BinOp::Add, ua.expr, uc.expr);
    let u = match name {
        "bitwAnd" => and,
        "bitwOr" => bin(vrir::BinOp::Sub, sum, and),
        _ => bin(vrir::BinOp::Sub, sum, bin(vrir::BinOp::Mul, i64c(2), and)),
    };
    Ok(from_unsigned(lw, Lowered::new(u, ty)))
}

fn bitw_not(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "bitwNot", args, &["a"], line)?;
    let a = lw.expr(required(lw, "bitwNot", b[0], "a", line)?)?;
    let u = unsigned(lw, "bitwNot", a, line)?;
    let ty = u.ty;
    Ok(from_unsigned(lw, Lowered::new(bin(vrir::BinOp::Sub, i64c((1 << 32) - 1), u.expr), ty)))
}

/// `bitwShiftL(a, n)`, `bitwShiftR(a, n)`: shifts of the unsigned value; `n` outside
/// 0..31 is NA in R.
fn bitw_shift(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, name, args, &["a", "n"], line)?;
    let a = lw.expr(required(lw, name, b[0], "a", line)?)?;
    let n = lw.expr(required(lw, name, b[1], "n", line)?)?;
    let (a, n) = super::recycle::conform(lw, &format!("`{name}`"), a, n, line)?;
    let u = unsigned(lw, name, a, line)?;
    let n = match n.ty.elem {
        INTEGER | DOUBLE => n,
        _ => return Err(lw.unsupported(&format!("`{name}` shift of a {}", n.ty), line, "R's shift is a number")),
    };
    let n = lw.hoist(n);
    if n.ty.elem == DOUBLE {
        let nan = any_nan(lw, &n);
        lw.raise_if(nan, BITW_NA);
    }
    let bad = bin(
        vrir::BinOp::Or,
        bin(vrir::BinOp::Lt, n.expr.clone(), lw.cast(scalar(i64c(0), ScalarType::I64), n.ty.elem).expr),
        bin(vrir::BinOp::Gt, n.expr.clone(), lw.cast(scalar(i64c(31), ScalarType::I64), n.ty.elem).expr),
    );
    let bad = any_of(lw, Lowered::new(bad, n.ty.with_elem(LOGICAL)));
    lw.raise_if(bad, BITW_NA);
    let nf = lw.cast(n, DOUBLE);
    let power = Lowered::new(lib(LibFn::Pow, vec![vrir::Expr::f64(2.0), nf.expr]), nf.ty);
    let power = lw.cast(power, ScalarType::I64);
    let rank = u.ty.rank.max(power.ty.rank);
    let ty = Ty::array(ScalarType::I64, rank);
    let shifted = if name == "bitwShiftL" {
        bin(vrir::BinOp::Mod, bin(vrir::BinOp::Mul, u.expr, power.expr), i64c(1 << 32))
    } else {
        bin(vrir::BinOp::IDiv, u.expr, power.expr)
    };
    Ok(from_unsigned(lw, Lowered::new(shifted, ty)))
}

/// `pmax(...)`, `pmin(...)`: element-wise over R's recycling (equal lengths or length
/// one), NA (NaN) propagating; integer for logicals and integers. R keeps the first
/// argument's dims: a matrix elsewhere than first is refused.
fn parallel_extreme(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    if args.is_empty() || args.iter().any(|a| a.name.is_some()) {
        return Err(lw.unsupported(&format!("`{name}` with these arguments"), line, "compiled with unnamed arguments (`na.rm` does not compile)"));
    }
    let mut vals = Vec::new();
    for a in args {
        let v = lw.expr(&a.value)?;
        if v.ty.elem == COMPLEX {
            return Err(lw.unsupported(&format!("`{name}` of complex numbers"), line, "R does not order them"));
        }
        vals.push(v);
    }
    if vals.iter().skip(1).any(|v| v.ty.rank >= 2 && v.ty.rank != vals[0].ty.rank) {
        return Err(lw.unsupported(&format!("`{name}` with a matrix after the first argument"), line, "R's result takes the first argument's shape"));
    }
    let elem = vals.iter().fold(INTEGER, |e, v| wider(e, v.ty.elem));
    let f = if name == "pmax" { LibFn::Max } else { LibFn::Min };
    let mut vals = vals.into_iter();
    let first = vals.next().expect("at least one argument");
    let mut acc = lw.cast(first, elem);
    for v in vals {
        let v = lw.cast(v, elem);
        let (a, b) = super::recycle::conform(lw, &format!("`{name}`"), acc, v, line)?;
        let rank = a.ty.rank.max(b.ty.rank);
        acc = lw.hoist(Lowered::new(lib(f, vec![a.expr, b.expr]), Ty::array(elem, rank)));
    }
    Ok(acc)
}

/// `is.numeric(x)` and the other type tests, on a literal or on an argument the function
/// never reassigns: compiled types are joins (a variable assigned an integer and a
/// double is double throughout), so R's answer is known only there.
fn is_type(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let ty = match &x.kind {
        ExprKind::Double(_) => Ty::scalar(DOUBLE),
        ExprKind::Int(_) => Ty::scalar(INTEGER),
        ExprKind::Bool(_) => Ty::scalar(LOGICAL),
        ExprKind::Imaginary(_) => Ty::scalar(COMPLEX),
        ExprKind::Var(v) => match lw.argument_type(v) {
            Some(t) => t,
            None => {
                return Err(lw.unsupported(
                    &format!("`{name}({v})`"),
                    line,
                    "compiled only for an argument the function does not reassign (compiled types may be wider than R's)",
                ))
            }
        },
        _ => return Err(lw.unsupported(&format!("`{name}` of an expression"), line, "compiled for arguments and constants")),
    };
    let e = ty.elem;
    let answer = match name {
        "is.numeric" => e == INTEGER || e == DOUBLE,
        "is.double" => e == DOUBLE,
        "is.integer" => e == INTEGER,
        "is.logical" => e == LOGICAL,
        "is.complex" => e == COMPLEX,
        "is.vector" => ty.rank <= 1,
        "is.matrix" => ty.rank == 2,
        "is.array" => ty.rank >= 2,
        _ => false,
    };
    Ok(scalar(vrir::Expr::lit(Literal::Bool(answer)), LOGICAL))
}
