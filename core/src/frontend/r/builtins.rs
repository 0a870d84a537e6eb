//! R's library, mapped onto VRIR: vector constructors, sizes, reductions, math,
//! matrix products and sequences. Each entry follows R's result types (checked against
//! Rscript: `floor(1L)` is double, `abs(1L)` integer, `prod` always double, integer
//! `sum`/`cumsum` overflow is NA). Anything else called by name is a diagnostic naming it.

use super::rules::{bin, check_int_range, i64c, lib, to_i64, to_logical, COMPLEX, DOUBLE, INTEGER, LOGICAL};
use crate::frontend::hir::{Arg, Expr, ExprKind, Line, MissingKind};
use crate::frontend::rules::Language;
use crate::frontend::lists::{ListVal, Val};
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::matching;
use crate::frontend::types::{wider, Ty};
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, Literal, ReduceOp, ScalarType, Stmt, StmtKind, Type};

/// Match arguments to R's formals of `func` (`formals::of`; `compiled` when the table
/// has none) as R does (`frontend::matching`), and return those of the formals the
/// compiled form takes (`compiled`, in that order). A call R would reject is reported
/// in R's words; an argument R takes but compiled code does not is named.
pub(super) fn bind<'a>(lw: &Lowerer, func: &str, args: &'a [Arg], compiled: &[&str], line: Line) -> LResult<Vec<Option<&'a Expr>>> {
    let r_formals = super::formals::of(func).unwrap_or(compiled);
    let m = matching::match_args(r_formals, args).map_err(|m| lw.unsupported(&format!("call to `{func}`"), line, &matching::message(&m, args)))?;
    if let Some(&i) = m.dots.first() {
        let shown = matching::deparse(&args[i].value);
        return Err(lw.unsupported(&format!("argument `{shown}` of `{func}`"), line, &format!("compiled `{func}` takes {}", compiled.join(", "))));
    }
    for (k, f) in r_formals.iter().enumerate() {
        if let Some(a) = m.get(args, k) {
            if !compiled.contains(f) && !super::formals::is_default(func, f, &a.value) {
                return Err(lw.unsupported(&format!("argument `{f}` of `{func}`"), line, &format!("compiled `{func}` takes {}", compiled.join(", "))));
            }
        }
    }
    Ok(compiled.iter().map(|c| r_formals.iter().position(|f| f == c).and_then(|k| m.get(args, k)).map(|a| &a.value)).collect())
}

pub(super) fn required<'a>(lw: &Lowerer, func: &str, v: Option<&'a Expr>, name: &str, line: Line) -> LResult<&'a Expr> {
    v.ok_or_else(|| lw.unsupported(&format!("call to `{func}`"), line, &format!("argument `{name}` is missing")))
}

pub(super) fn arr_ty(lw: &Lowerer, t: Ty) -> Type {
    t.vrir(lw.layout())
}

fn array_type(elem: ScalarType, rank: u32) -> ArrayType {
    ArrayType::new(elem, rank, vrir::Layout::Col)
}

pub(super) fn alloc(init: AllocInit, elem: ScalarType, dims: Vec<vrir::Expr>) -> vrir::Expr {
    let rank = dims.len() as u32;
    vrir::Expr::Alloc { init, ty: array_type(elem, rank), dims }
}

/// Names R users reach for that compiled code does not offer, with the reason.
fn known_unsupported(name: &str) -> Option<&'static str> {
    Some(match name {
        "tapply" | "Vectorize" => "this member of the apply family does not compile; write the loop",
        "data.frame" | "unlist" | "setNames" => "building data frames, names and flattening lists do not compile",
        "environment" | "new.env" | "assign" | "get" | "exists" | "local" | "eval" | "parse" | "quote" | "substitute" | "sys.function" => {
            "environments and evaluation do not compile"
        }
        "UseMethod" | "NextMethod" | "setClass" | "new" | "setGeneric" | "setMethod" | "structure" | "class" | "inherits" => {
            "S3/S4 dispatch and classes do not compile"
        }
        "paste" | "paste0" | "sprintf" | "cat" | "print" | "message" | "warning" | "format" | "nchar" | "character" => {
            "strings and printing do not compile"
        }
        "is.nan" => "compiled doubles do not distinguish NA from NaN; use is.na",
        _ => return None,
    })
}

/// Whether a call of `name` may compile: the dispatcher below answers it, and it is
/// not one of the names refused with a reason.
pub fn compiles(name: &str) -> bool {
    known_unsupported(name).is_none() && crate::frontend::sections::dispatches(&super::rules::RULES, name)
}

pub fn call(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
    if let Some(r) = super::functionals::call(lw, name, args, line) {
        return Some(r);
    }
    if let Some(r) = super::library::call(lw, name, args, line) {
        return Some(r);
    }
    if let Some(reason) = known_unsupported(name) {
        return Some(Err(lw.unsupported(&format!("call to `{name}`"), line, reason)));
    }
    let r = match name {
        "length" | "nrow" | "ncol" | "NROW" | "NCOL" => sizes(lw, name, args, line),
        "dim" => dim(lw, args, line),
        "numeric" | "double" | "integer" | "logical" => vector_ctor(lw, name, args, line),
        "matrix" => matrix(lw, args, line),
        "array" => array(lw, args, line),
        "rep" => rep(lw, args, line),
        "c" => concat(lw, args, line),
        "sum" | "prod" | "mean" => total(lw, name, args, line),
        "min" | "max" => extreme(lw, name, args, line),
        "cumsum" => cumsum(lw, args, line),
        "cumprod" => cumprod(lw, args, line),
        "any" | "all" => any_all(lw, name, args, line),
        "rev" => rev(lw, args, line),
        "is.finite" => is_finite(lw, args, line),
        "colSums" | "rowSums" | "colMeans" | "rowMeans" => margins(lw, name, args, line),
        "abs" | "sqrt" | "exp" | "log" | "log10" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh"
        | "floor" | "ceiling" | "round" | "trunc" | "Re" | "Im" | "Mod" | "Conj" | "is.na" => math1(lw, name, args, line),
        "atan2" => atan2(lw, args, line),
        "ifelse" => ifelse(lw, args, line),
        "t" => transpose(lw, args, line),
        "crossprod" => crossprod(lw, args, line),
        "as.integer" | "as.double" | "as.numeric" | "as.logical" | "as.complex" => convert(lw, name, args, line),
        "invisible" | "identity" => one_arg(lw, name, args, line).and_then(|e| lw.expr(e)),
        "complex" => complex_ctor(lw, args, line),
        "seq" if super::sequences::is_value(args) => super::sequences::seq_value(lw, args, line),
        "seq_len" | "seq_along" | "seq" => super::sequences::seq_call(lw, name, args, line).and_then(|p| lw.materialize(p)),
        _ if super::random::is_random(name) => super::random::call(lw, name, args, line),
        _ => return None,
    };
    Some(r)
}

pub(super) fn one_arg<'a>(lw: &Lowerer, name: &str, args: &'a [Arg], line: Line) -> LResult<&'a Expr> {
    match args {
        [a] if a.name.is_none() || a.name.as_deref() == Some("x") => Ok(&a.value),
        _ => Err(lw.unsupported(&format!("call to `{name}`"), line, "compiled with exactly one argument")),
    }
}

fn sizes(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    if let ExprKind::Var(v) = &x.kind {
        if let (Some(n), "length" | "NROW") = (lw.growable_length(v), name) {
            return Ok(lw.cast(Lowered::new(n, Ty::scalar(ScalarType::I64)), INTEGER));
        }
    }
    let v = match lw.any_expr(x)? {
        Val::One(v) => v,
        Val::List(l) => return list_sizes(lw, name, l, line),
    };
    let int = Ty::scalar(INTEGER);
    let n = match (name, v.ty.rank) {
        (_, 0) => return Ok(Lowered::new(vrir::Expr::lit(Literal::I32(1)), int)),
        ("length", _) => lib(LibFn::Len, vec![v.expr]),
        ("NROW", 1) => lib(LibFn::Len, vec![v.expr]),
        ("NCOL", 1) => i64c(1),
        ("nrow" | "NROW", _) => vrir::Expr::Dim { arg: Box::new(v.expr), axis: 0 },
        ("ncol" | "NCOL", r) if r >= 2 => vrir::Expr::Dim { arg: Box::new(v.expr), axis: 1 },
        _ => return Err(lw.unsupported(&format!("`{name}` of a {}", v.ty), line, "R gives NULL for a vector")),
    };
    Ok(lw.cast(Lowered::new(n, Ty::scalar(ScalarType::I64)), INTEGER))
}

/// `length` of a list; `nrow`, `ncol` (and `NROW`, `NCOL`) of a data frame: its rows are
/// the length of its first column that compiled code holds (every column has it).
fn list_sizes(lw: &mut Lowerer, name: &str, l: ListVal, line: Line) -> LResult<Lowered> {
    let int = Ty::scalar(INTEGER);
    let count = |n: usize| Ok(Lowered::new(vrir::Expr::lit(Literal::I32(n as i32)), int));
    match (name, l.ty.frame) {
        ("length", _) | ("NROW", false) | ("ncol" | "NCOL", true) => count(l.ty.fields.len()),
        ("NCOL", false) => count(1),
        ("nrow" | "NROW", true) => {
            let column = (0..l.ty.fields.len()).find_map(|k| match l.element(k) {
                Ok(Val::One(v)) => Some(v),
                _ => None,
            });
            let Some(v) = column else {
                return Err(lw.unsupported(&format!("`{name}` of a data frame"), line, "none of its columns is a double, integer or logical vector"));
            };
            if v.ty.rank == 0 {
                return count(1);
            }
            let n = vrir::Expr::Dim { arg: Box::new(v.expr), axis: 0 };
            Ok(lw.cast(Lowered::new(n, Ty::scalar(ScalarType::I64)), INTEGER))
        }
        _ => Err(lw.unsupported(&format!("`{name}` of a list"), line, "R gives NULL for a list that is not a data frame")),
    }
}

fn dim(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, "dim", args, line)?;
    let v = lw.expr(x)?;
    if v.ty.rank < 2 {
        return Err(lw.unsupported(&format!("`dim` of a {}", v.ty), line, "R gives NULL for a vector"));
    }
    let v = lw.hoist(v);
    let ty = Ty::array(INTEGER, 1);
    let t = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: alloc(AllocInit::Zeros, INTEGER, vec![i64c(v.ty.rank as i64)]) });
    for k in 0..v.ty.rank {
        let d = lw.cast(Lowered::new(vrir::Expr::Dim { arg: Box::new(v.expr.clone()), axis: k }, Ty::scalar(ScalarType::I64)), INTEGER);
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Index { array: t.clone(), indices: vec![i64c(k as i64 + 1)], flags: IndexFlags::default() }],
            value: d.expr,
        });
    }
    Ok(Lowered::new(vrir::Expr::var(t), ty))
}

fn vector_ctor(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, name, args, &["length"], line)?;
    let n = match b[0] {
        Some(e) => {
            let v = lw.expr(e)?;
            to_i64(lw, v, &format!("`{name}` length"), line)?
        }
        None => i64c(0),
    };
    let elem = match name {
        "integer" => INTEGER,
        "logical" => LOGICAL,
        _ => DOUBLE,
    };
    Ok(Lowered::new(alloc(AllocInit::Zeros, elem, vec![n]), Ty::array(elem, 1)))
}

/// An array of `elem` with these dims holding `data` (a scalar: filled; a vector of
/// the right length: its elements in column-major order).
pub(super) fn shaped(lw: &mut Lowerer, data: Lowered, dims: Vec<vrir::Expr>, line: Line) -> LResult<Lowered> {
    let rank = dims.len() as u32;
    if data.ty.rank == 0 {
        let elem = data.ty.elem;
        return Ok(Lowered::new(alloc(AllocInit::Fill { value: Box::new(data.expr) }, elem, dims), Ty::array(elem, rank)));
    }
    if data.ty.rank != 1 {
        return Err(lw.unsupported("reshaping an array", line, "`matrix`/`array` compile from a scalar or a vector"));
    }
    let ty = Ty::array(data.ty.elem, rank);
    let t = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: alloc(AllocInit::Empty, data.ty.elem, dims) });
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Index {
            array: t.clone(),
            indices: vec![vrir::Expr::Range { start: None, stop: None, step: None }],
            flags: IndexFlags { flatten: true, ..IndexFlags::default() },
        }],
        value: data.expr,
    });
    Ok(Lowered::new(vrir::Expr::var(t), ty))
}

pub(super) fn count_arg(lw: &mut Lowerer, e: &Expr, what: &str, line: Line) -> LResult<vrir::Expr> {
    let v = lw.expr(e)?;
    let n = to_i64(lw, v, what, line)?;
    Ok(lw.hoist(Lowered::new(n, Ty::scalar(ScalarType::I64))).expr)
}

fn matrix(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    matrix_of(lw, args, None, line)
}

/// `matrix(data, nrow, ncol)`; `na`: the missing value that stands for absent data or
/// `NA` (`matrix(nrow = n, ncol = m)` assigned to a variable, see `library::na_filled`).
pub(super) fn matrix_of(lw: &mut Lowerer, args: &[Arg], na: Option<Lowered>, line: Line) -> LResult<Lowered> {
    let b = bind(lw, "matrix", args, &["data", "nrow", "ncol"], line)?;
    let data = match (na, b[0]) {
        (Some(v), _) => v,
        (None, Some(e)) => lw.expr(e)?,
        (None, None) => return Err(lw.unsupported("`matrix` without data", line, "R fills it with logical NA (assign it to a variable that also gets doubles, and it compiles as NA_real_)")),
    };
    let data = lw.hoist(data);
    let len = if data.ty.rank == 0 { i64c(1) } else { lib(LibFn::Len, vec![data.expr.clone()]) };
    // R: the missing extent is ceiling(length(data) / the given one).
    let ceil_div = |n: vrir::Expr, d: vrir::Expr| bin(vrir::BinOp::Div, bin(vrir::BinOp::Sub, bin(vrir::BinOp::Add, n, d.clone()), i64c(1)), d);
    let (nrow, ncol) = match (b[1], b[2]) {
        (Some(r), Some(c)) => (count_arg(lw, r, "`nrow`", line)?, count_arg(lw, c, "`ncol`", line)?),
        (Some(r), None) => {
            let r = count_arg(lw, r, "`nrow`", line)?;
            (r.clone(), ceil_div(len, r))
        }
        (None, Some(c)) => {
            let c = count_arg(lw, c, "`ncol`", line)?;
            (ceil_div(len, c.clone()), c)
        }
        (None, None) => (len, i64c(1)),
    };
    shaped(lw, data, vec![nrow, ncol], line)
}

fn array(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "array", args, &["data", "dim"], line)?;
    let data = match b[0] {
        Some(e) => lw.expr(e)?,
        None => return Err(lw.unsupported("`array` without data", line, "R fills it with logical NA")),
    };
    let dims_e = required(lw, "array", b[1], "dim", line)?;
    let parts: Vec<&Expr> = match &dims_e.kind {
        ExprKind::Call { func, args } if func == "c" && args.iter().all(|a| a.name.is_none()) => args.iter().map(|a| &a.value).collect(),
        _ => vec![dims_e],
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(lw.unsupported("`array` dims", line, "`dim = c(...)` with one to three extents"));
    }
    let mut dims = Vec::new();
    for p in parts {
        dims.push(count_arg(lw, p, "`array` extent", line)?);
    }
    let data = lw.hoist(data);
    shaped(lw, data, dims, line)
}

fn rep(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "rep", args, &["x", "times"], line)?;
    let x = lw.expr(required(lw, "rep", b[0], "x", line)?)?;
    let times = match b[1] {
        Some(e) => count_arg(lw, e, "`times`", line)?,
        None => i64c(1),
    };
    if x.ty.rank == 0 {
        let elem = x.ty.elem;
        return Ok(Lowered::new(alloc(AllocInit::Fill { value: Box::new(x.expr) }, elem, vec![times]), Ty::array(elem, 1)));
    }
    if x.ty.rank != 1 {
        return Err(lw.unsupported("`rep` of an array", line, "compiled `rep` repeats scalars and vectors"));
    }
    // out[((k-1)*n+1):(k*n)] <- x for k in 1..times.
    let x = lw.hoist(x);
    let n = lw.hoist(Lowered::new(lib(LibFn::Len, vec![x.expr.clone()]), Ty::scalar(ScalarType::I64)));
    let ty = x.ty;
    let out = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: out.clone() }],
        value: alloc(AllocInit::Empty, ty.elem, vec![bin(vrir::BinOp::Mul, n.expr.clone(), times.clone())]),
    });
    let k = lw.temp(&Type::I64);
    let lo = bin(vrir::BinOp::Add, bin(vrir::BinOp::Mul, bin(vrir::BinOp::Sub, vrir::Expr::var(&k), i64c(1)), n.expr.clone()), i64c(1));
    let hi = bin(vrir::BinOp::Mul, vrir::Expr::var(&k), n.expr.clone());
    let body = Stmt {
        kind: StmtKind::Assign {
            targets: vec![LValue::Index {
                array: out.clone(),
                indices: vec![vrir::Expr::Range { start: Some(Box::new(lo)), stop: Some(Box::new(hi)), step: None }],
                flags: IndexFlags::default(),
            }],
            value: x.expr,
        },
        line: Some(line),
    };
    lw.emit(StmtKind::For {
        vars: vec![k],
        domain: vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(times)), step: None },
        body: Block { on_gpu: false, stmts: vec![body] },
    });
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `c(...)` of scalars and vectors: a new vector of the widest element type.
fn concat(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    if args.is_empty() {
        return Err(lw.unsupported("`c()`", line, "an empty `c()` is NULL"));
    }
    let mut parts = Vec::new();
    // For each part, the bool variable saying whether it is there (`zero_droppable`).
    let mut present: Vec<Option<String>> = Vec::new();
    let mut elem = LOGICAL;
    for a in args {
        if a.name.is_some() {
            return Err(lw.unsupported("named element of `c(...)`", line, "names do not compile"));
        }
        let (v, there) = match zero_droppable(lw, &a.value, line) {
            Some(r) => {
                let (v, there) = r?;
                // A vector index read several elements (`y[n]`, `n` a vector): a part
                // like any vector, not one element that may drop out (it was stored
                // as one: a module the verifier rejected; found by fuzzing).
                let one = v.ty.rank == 0;
                (v, one.then_some(there))
            }
            None => (lw.expr(&a.value)?, None),
        };
        if v.ty.rank > 1 {
            return Err(lw.unsupported("`c(...)` of a matrix", line, "compiled `c` joins scalars and vectors"));
        }
        elem = wider(elem, v.ty.elem);
        parts.push(lw.hoist(v));
        present.push(there);
    }
    // Positions are constants while every part so far is a scalar that is there.
    let mut len = i64c(parts.iter().zip(&present).filter(|(p, t)| p.ty.rank == 0 && t.is_none()).count() as i64);
    for (p, t) in parts.iter().zip(&present) {
        if let Some(t) = t {
            let one = lw.cast(Lowered::new(vrir::Expr::var(t), Ty::scalar(LOGICAL)), ScalarType::I64).expr;
            len = bin(vrir::BinOp::Add, len, one);
        } else if p.ty.rank > 0 {
            len = bin(vrir::BinOp::Add, len, lib(LibFn::Len, vec![p.expr.clone()]));
        }
    }
    let ty = Ty::array(elem, 1);
    let out = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(AllocInit::Empty, elem, vec![len]) });
    let mut pos: Option<String> = None;
    for (k, (p, there)) in parts.into_iter().zip(present).enumerate() {
        let scalar = p.ty.rank == 0;
        let n = if scalar { i64c(1) } else { lib(LibFn::Len, vec![p.expr.clone()]) };
        let v = lw.cast(p, elem);
        if let Some(there) = there {
            // Written, and counted, only when the element is there.
            let at = match &pos {
                Some(name) => name.clone(),
                None => {
                    let name = lw.temp(&Type::I64);
                    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: name.clone() }], value: i64c(k as i64) });
                    pos = Some(name.clone());
                    name
                }
            };
            let next = bin(vrir::BinOp::Add, vrir::Expr::var(&at), i64c(1));
            let store = Stmt { kind: StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices: vec![next.clone()], flags: IndexFlags::default() }], value: v.expr }, line: Some(line) };
            let step = Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: at.clone() }], value: next }, line: Some(line) };
            lw.emit(StmtKind::If { cond: vrir::Expr::var(&there), then: Block { on_gpu: false, stmts: vec![store, step] }, els: None });
            continue;
        }
        if pos.is_none() && scalar {
            lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices: vec![i64c(k as i64 + 1)], flags: IndexFlags::default() }], value: v.expr });
            continue;
        }
        let at = match &pos {
            Some(name) => name.clone(),
            None => {
                let name = lw.temp(&Type::I64);
                lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: name.clone() }], value: i64c(k as i64) });
                pos = Some(name.clone());
                name
            }
        };
        let index = if scalar {
            bin(vrir::BinOp::Add, vrir::Expr::var(&at), i64c(1))
        } else {
            vrir::Expr::Range {
                start: Some(Box::new(bin(vrir::BinOp::Add, vrir::Expr::var(&at), i64c(1)))),
                stop: Some(Box::new(bin(vrir::BinOp::Add, vrir::Expr::var(&at), n.clone()))),
                step: None,
            }
        };
        lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices: vec![index], flags: IndexFlags::default() }], value: v.expr });
        lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: at.clone() }], value: bin(vrir::BinOp::Add, vrir::Expr::var(&at), n) });
    }
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// An argument of `c(...)` that reads one element with indices computed at run time
/// (`m[floor(x), ceiling(y)]`): R's index 0 selects nothing there, so the element drops
/// out of the result (the neighbours of a border cell in a stencil, the rays of the
/// ReactorLabs volcano benchmark). Lowered as the read when no index truncates to 0,
/// and a bool variable saying which; with a zero index, another index that is negative
/// or past its extent (R: an error, or an exclusion) raises `zero_index_other`
/// (`unsupported`). None when `e` is not such a read.
fn zero_droppable(lw: &mut Lowerer, e: &Expr, line: Line) -> Option<LResult<(Lowered, String)>> {
    let ExprKind::Index { target, indices, double: false } = &e.kind else { return None };
    let ExprKind::Var(name) = &target.kind else { return None };
    let t = lw.var_type(name, line).ok()?;
    if t.rank == 0 || t.rank as usize != indices.len() || lw.is_growable(name) {
        return None;
    }
    let idx: Vec<&Expr> = indices.iter().map(|i| i.as_ref()).collect::<Option<_>>()?;
    // Literal indices, exclusions and sequences keep their own rules.
    let lang = lw.prog.lang;
    let sequence = |i: &Expr| match &i.kind {
        ExprKind::Binary(crate::frontend::hir::BinOp::Colon, ..) => true,
        ExprKind::Call { func, .. } => matches!(func.as_str(), "seq" | "seq_len" | "seq_along" | "c" | "which" | "rev"),
        _ => false,
    };
    if idx.iter().any(|i| matches!(i.kind, ExprKind::Double(_) | ExprKind::Int(_)) || lang.is_exclusion(i) || sequence(i)) {
        return None;
    }
    Some(zero_droppable_read(lw, name, t, &idx, line))
}

fn zero_droppable_read(lw: &mut Lowerer, name: &str, t: Ty, idx: &[&Expr], line: Line) -> LResult<(Lowered, String)> {
    let mut values = Vec::new();
    for i in idx {
        values.push(lw.expr(i)?);
    }
    let bound: Vec<String> = values.iter().map(|v| lw.bind_value(v.clone())).collect();
    let read = Expr::new(
        ExprKind::Index {
            target: Box::new(Expr::new(ExprKind::Var(name.to_string()), line)),
            indices: bound.iter().map(|b| Some(Expr::new(ExprKind::Var(b.clone()), line))).collect(),
            double: false,
        },
        line,
    );
    if values.iter().any(|v| v.ty.rank != 0 || !matches!(v.ty.elem, INTEGER | DOUBLE)) {
        // Not a read of one element: R's rules as for any index.
        let r = lw.expr(&read);
        bound.iter().for_each(|b| lw.unbind(b));
        let v = r?;
        let there = lw.temp(&Type::BOOL);
        lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: there.clone() }], value: vrir::Expr::lit(vrir::Literal::Bool(true)) });
        return Ok((v, there));
    }
    // R truncates a double index toward zero: 0.5 selects nothing too.
    let whole: Vec<vrir::Expr> = values.iter().map(|v| lw.hoist(lw.cast(v.clone(), ScalarType::I64)).expr).collect();
    let zero = whole.iter().map(|w| bin(vrir::BinOp::Eq, w.clone(), i64c(0))).reduce(|a, b| bin(vrir::BinOp::Or, a, b)).expect("one index or more");
    let there = lw.temp(&Type::BOOL);
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: there.clone() }], value: vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(zero.clone()) } });
    let var = vrir::Expr::var(lw.vrir_var_name(name));
    let outside = whole
        .iter()
        .enumerate()
        .map(|(k, w)| {
            let extent = if t.rank == 1 { lib(LibFn::Len, vec![var.clone()]) } else { vrir::Expr::Dim { arg: Box::new(var.clone()), axis: k as u32 } };
            bin(vrir::BinOp::Or, bin(vrir::BinOp::Lt, w.clone(), i64c(0)), bin(vrir::BinOp::Gt, w.clone(), extent))
        })
        .reduce(|a, b| bin(vrir::BinOp::Or, a, b))
        .expect("one index or more");
    lw.raise_if(bin(vrir::BinOp::And, zero, outside), "zero_index_other");
    let (v, stmts) = lw.in_block(|lw| lw.expr(&read));
    bound.iter().for_each(|b| lw.unbind(b));
    let v = v?;
    let out = lw.temp(&v.ty.vrir(lw.layout()));
    let mut stmts = stmts;
    stmts.push(Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: v.expr }, line: Some(line) });
    lw.emit(StmtKind::If { cond: vrir::Expr::var(&there), then: Block { on_gpu: false, stmts }, els: None });
    Ok((Lowered::new(vrir::Expr::var(out), v.ty), there))
}

/// R accumulates `sum`, `prod`, `mean`, `cumsum`, `cumprod` and `colSums` & co. of
/// doubles in `long double` (summary.c, cum.c, array.c): on x86-64 the x87 80-bit
/// format, VRIR's `:acc f80`. Elsewhere R's `long double` is another format (binary128,
/// or plain double), which compiled code does not reproduce: refused, so R runs it.
fn long_double(lw: &Lowerer, name: &str, line: Line) -> LResult<Option<vrir::Accum>> {
    if cfg!(target_arch = "x86_64") {
        Ok(Some(vrir::Accum::F80))
    } else {
        Err(lw.unsupported(&format!("`{name}` of doubles"), line, "R accumulates it in long double, whose format on this platform compiled code does not reproduce"))
    }
}

/// `x + 0`: what R's `long double` accumulation of one double (or complex) gives
/// (`0.0L + x` rounded back: `x`, with -0 becoming +0).
fn plus_zero(v: vrir::Expr, elem: ScalarType) -> vrir::Expr {
    let zero = if elem == COMPLEX { vrir::Expr::lit(Literal::C128([0.0, 0.0])) } else { vrir::Expr::f64(0.0) };
    bin(vrir::BinOp::Add, v, zero)
}

fn total(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let v = lw.expr(x)?;
    let scalar = |e, t| Lowered::new(e, Ty::scalar(t));
    let reduce = |op, arg: vrir::Expr, acc| vrir::Expr::Reduce { op, arg: Box::new(arg), axis: None, acc };
    match name {
        "sum" => match v.ty.elem {
            LOGICAL | INTEGER => {
                // Exact in i64 (R: int64, or long double, both exact in R's range).
                let wide = lw.cast(v, ScalarType::I64);
                let s = if wide.ty.rank == 0 { wide.expr } else { reduce(ReduceOp::Sum, wide.expr, None) };
                let s = lw.hoist(scalar(s, ScalarType::I64));
                check_int_range(lw, &s);
                Ok(lw.cast(s, INTEGER))
            }
            e if v.ty.rank == 0 => Ok(scalar(plus_zero(v.expr, e), e)),
            e => {
                // Doubles, and each part of complex numbers (csum).
                let acc = long_double(lw, name, line)?;
                Ok(scalar(reduce(ReduceOp::Sum, v.expr, acc), e))
            }
        },
        "prod" => {
            // Integers too: R multiplies them in long double (iprod), exact as doubles.
            let e = wider(DOUBLE, v.ty.elem);
            let v = lw.cast(v, e);
            if v.ty.rank == 0 && e == DOUBLE {
                return Ok(scalar(v.expr, e));
            }
            // One complex number is still multiplied into 1+0i (Inf+0i gives Inf+NaNi).
            let v = vector_of_one(v);
            let acc = long_double(lw, name, line)?;
            Ok(scalar(reduce(ReduceOp::Prod, v.expr, acc), e))
        }
        _ => {
            // mean: of doubles and complex numbers R's refined two-pass mean (real_mean,
            // complex_mean); of integers and logicals the long double sum over n.
            let refined = matches!(v.ty.elem, DOUBLE | COMPLEX);
            let e = wider(DOUBLE, v.ty.elem);
            let v = lw.cast(v, e);
            if v.ty.rank == 0 {
                return Ok(scalar(plus_zero(v.expr, e), e));
            }
            let acc = long_double(lw, name, line)?;
            let op = if refined { ReduceOp::MeanRefined } else { ReduceOp::Mean };
            Ok(scalar(reduce(op, v.expr, acc), e))
        }
    }
}

fn extreme(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    if args.iter().any(|a| a.name.is_some()) {
        return Err(lw.unsupported(&format!("named argument of `{name}`"), line, "`na.rm` does not compile"));
    }
    let mut vals = Vec::new();
    for a in args {
        vals.push(lw.expr(&a.value)?);
    }
    if vals.is_empty() {
        return Err(lw.unsupported(&format!("`{name}()`"), line, "no arguments"));
    }
    if vals.iter().any(|v| v.ty.elem == COMPLEX) {
        return Err(lw.unsupported(&format!("`{name}` of complex numbers"), line, "R does not order complex numbers"));
    }
    let elem = vals.iter().fold(INTEGER, |e, v| wider(e, v.ty.elem));
    let rop = if name == "min" { ReduceOp::Min } else { ReduceOp::Max };
    let fop = if name == "min" { LibFn::Min } else { LibFn::Max };
    let mut acc: Option<vrir::Expr> = None;
    for v in vals {
        let v = lw.cast(v, elem);
        let s = if v.ty.rank == 0 { v.expr } else { vrir::Expr::Reduce { op: rop, arg: Box::new(v.expr), axis: None, acc: None } };
        acc = Some(match acc {
            None => s,
            Some(a) => lib(fop, vec![a, s]),
        });
    }
    Ok(Lowered::new(acc.expect("at least one argument"), Ty::scalar(elem)))
}

/// `any(x)`, `all(x)`: logical values (NaN raises, as a logical NA would need).
fn any_all(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let v = lw.expr(x)?;
    let v = to_logical(lw, v, line)?;
    if v.ty.rank == 0 {
        return Ok(v);
    }
    let v = lw.hoist(v);
    let count = vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(lw.cast(v.clone(), ScalarType::I64).expr), axis: None, acc: None };
    let e = if name == "any" {
        bin(vrir::BinOp::Gt, count, i64c(0))
    } else {
        bin(vrir::BinOp::Eq, count, lib(LibFn::Len, vec![v.expr]))
    };
    Ok(Lowered::new(e, Ty::scalar(LOGICAL)))
}

fn rev(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, "rev", args, line)?;
    let v = lw.expr(x)?;
    if v.ty.rank == 0 {
        // A single value reversed is itself.
        return Ok(v);
    }
    if v.ty.rank != 1 {
        return Err(lw.unsupported(&format!("`rev` of a {}", v.ty), line, "compiled `rev` takes a vector"));
    }
    let v = lw.hoist(v);
    let range = vrir::Expr::Range { start: Some(Box::new(lib(LibFn::Len, vec![v.expr.clone()]))), stop: Some(Box::new(i64c(1))), step: Some(Box::new(i64c(-1))) };
    let ty = v.ty;
    Ok(Lowered::new(vrir::Expr::Index { array: Box::new(v.expr), indices: vec![range], flags: IndexFlags::default() }, ty))
}

fn is_finite(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, "is.finite", args, line)?;
    let v = lw.expr(x)?;
    let ty = v.ty.with_elem(LOGICAL);
    // Compiled integers and logicals are never NA: as doubles they are finite.
    let v = if matches!(v.ty.elem, DOUBLE | COMPLEX) { v } else { lw.cast(v, DOUBLE) };
    let v = lw.hoist(v);
    let bad = bin(vrir::BinOp::Or, lib(LibFn::IsNan, vec![v.expr.clone()]), lib(LibFn::IsInf, vec![v.expr]));
    Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(bad) }, ty))
}

/// `colSums` and friends of a matrix: a reduction along one axis in long double, the
/// means divided there too (R's array.c); R returns double.
fn margins(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let v = lw.expr(x)?;
    if v.ty.rank != 2 || v.ty.elem == COMPLEX {
        return Err(lw.unsupported(&format!("`{name}` of a {}", v.ty), line, "compiled for real matrices"));
    }
    let v = lw.cast(v, DOUBLE);
    let axis = if name.starts_with("col") { 0 } else { 1 };
    let op = if name.ends_with("Sums") { ReduceOp::Sum } else { ReduceOp::Mean };
    let acc = long_double(lw, name, line)?;
    Ok(Lowered::new(vrir::Expr::Reduce { op, arg: Box::new(v.expr), axis: Some(axis), acc }, Ty::array(DOUBLE, 1)))
}

/// `cumsum`/`cumprod` of doubles: R's running value is long double (cum.c), each
/// element rounded; `cumprod` of integers is double in R.
fn scan(lw: &mut Lowerer, op: vrir::ScanOp, v: Lowered, line: Line) -> LResult<Lowered> {
    let name = op.name();
    let v = lw.cast(v, DOUBLE);
    if v.ty.rank == 0 {
        let one = if op == vrir::ScanOp::Sum { plus_zero(v.expr, DOUBLE) } else { v.expr };
        return Ok(vector_of_one(Lowered::new(one, Ty::scalar(DOUBLE))));
    }
    let acc = long_double(lw, name, line)?;
    Ok(Lowered::new(vrir::Expr::Scan { op, arg: Box::new(v.expr), acc }, Ty::array(DOUBLE, 1)))
}

fn cumprod(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, "cumprod", args, line)?;
    let v = lw.expr(x)?;
    if v.ty.rank > 1 {
        return Err(lw.unsupported("`cumprod` of a matrix", line, "compiled `cumprod` takes a vector"));
    }
    if v.ty.elem == COMPLEX {
        return Err(lw.unsupported("`cumprod` of complex numbers", line, "not compiled yet"));
    }
    scan(lw, vrir::ScanOp::Prod, v, line)
}

fn cumsum(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, "cumsum", args, line)?;
    let v = lw.expr(x)?;
    if v.ty.rank > 1 {
        return Err(lw.unsupported("`cumsum` of a matrix", line, "compiled `cumsum` takes a vector"));
    }
    if v.ty.elem == COMPLEX {
        return Err(lw.unsupported("`cumsum` of complex numbers", line, "not compiled yet"));
    }
    let elem = wider(INTEGER, v.ty.elem);
    if elem == DOUBLE {
        return scan(lw, vrir::ScanOp::Sum, v, line);
    }
    // Integers: exact in i64 (R's running double is exact in R's integer range).
    let acc_elem = ScalarType::I64;
    let v = lw.cast(v, acc_elem);
    let v = lw.hoist(v);
    let (src, n) = if v.ty.rank == 0 {
        return Ok(vector_of_one(lw.cast(v, elem)));
    } else {
        (v.expr.clone(), lib(LibFn::Len, vec![v.expr.clone()]))
    };
    let ty = Ty::array(elem, 1);
    let out = lw.temp(&arr_ty(lw, ty));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(AllocInit::Empty, elem, vec![n.clone()]) });
    let acc = lw.temp(&Type::scalar(acc_elem));
    let zero = if acc_elem == ScalarType::I64 { i64c(0) } else { vrir::Expr::f64(0.0) };
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: acc.clone() }], value: zero });
    let k = lw.temp(&Type::I64);
    let mut body = vec![Stmt {
        kind: StmtKind::Assign {
            targets: vec![LValue::Var { name: acc.clone() }],
            value: bin(vrir::BinOp::Add, vrir::Expr::var(&acc), vrir::Expr::Index { array: Box::new(src), indices: vec![vrir::Expr::var(&k)], flags: IndexFlags::default() }),
        },
        line: Some(line),
    }];
    // An integer running sum that leaves R's range is NA from there on: raise.
    let saved = std::mem::take(lw.pre_mut());
    if elem == INTEGER {
        check_int_range(lw, &Lowered::new(vrir::Expr::var(&acc), Ty::scalar(ScalarType::I64)));
    }
    body.append(lw.pre_mut());
    *lw.pre_mut() = saved;
    let stored = lw.cast(Lowered::new(vrir::Expr::var(&acc), Ty::scalar(acc_elem)), elem);
    body.push(Stmt {
        kind: StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices: vec![vrir::Expr::var(&k)], flags: IndexFlags::default() }], value: stored.expr },
        line: Some(line),
    });
    lw.emit(StmtKind::For {
        vars: vec![k],
        domain: vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(n)), step: None },
        body: Block { on_gpu: false, stmts: body },
    });
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// A scalar as a vector of length one (R's values are all vectors).
fn vector_of_one(v: Lowered) -> Lowered {
    if v.ty.rank > 0 {
        return v;
    }
    let elem = v.ty.elem;
    Lowered::new(alloc(AllocInit::Fill { value: Box::new(v.expr) }, elem, vec![i64c(1)]), Ty::array(elem, 1))
}

fn math1(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let v = lw.expr(x)?;
    let e = v.ty.elem;
    let same = |f: LibFn, v: Lowered| {
        let ty = v.ty;
        Lowered::new(lib(f, vec![v.expr]), ty)
    };
    Ok(match name {
        "abs" => match e {
            LOGICAL | INTEGER => same(LibFn::Abs, lw.cast(v, INTEGER)),
            COMPLEX => Lowered::new(lib(LibFn::Abs, vec![v.expr]), v.ty.with_elem(DOUBLE)),
            _ => same(LibFn::Abs, v),
        },
        "Mod" => {
            let v = if e == COMPLEX { v } else { lw.cast(v, DOUBLE) };
            let ty = v.ty.with_elem(DOUBLE);
            Lowered::new(lib(LibFn::Abs, vec![v.expr]), ty)
        }
        "Re" | "Im" => {
            let v = if e == COMPLEX { v } else { lw.cast(v, DOUBLE) };
            let ty = v.ty.with_elem(DOUBLE);
            Lowered::new(lib(if name == "Re" { LibFn::Real } else { LibFn::Imag }, vec![v.expr]), ty)
        }
        "Conj" => {
            let v = if e == COMPLEX { v } else { lw.cast(v, DOUBLE) };
            same(LibFn::Conj, v)
        }
        "is.na" => match e {
            DOUBLE | COMPLEX => Lowered::new(lib(LibFn::IsNan, vec![v.expr]), v.ty.with_elem(LOGICAL)),
            // Compiled integers and logicals are never NA (arguments are checked).
            _ => Lowered::new(lib(LibFn::IsNan, vec![lw.cast(v.clone(), DOUBLE).expr]), v.ty.with_elem(LOGICAL)),
        },
        "floor" | "ceiling" | "round" | "trunc" => {
            if e == COMPLEX && name != "round" {
                return Err(lw.unsupported(&format!("`{name}` of a complex number"), line, "R does not define it"));
            }
            if e == COMPLEX {
                return Err(lw.unsupported("`round` of a complex number", line, "not compiled yet"));
            }
            let f = match name {
                "floor" => LibFn::Floor,
                "ceiling" => LibFn::Ceil,
                "round" => LibFn::Round,
                _ => LibFn::Trunc,
            };
            same(f, lw.cast(v, DOUBLE))
        }
        _ => {
            let f = LibFn::from_name(name).expect("the dispatcher passes library names");
            let v = if e == COMPLEX { v } else { lw.cast(v, DOUBLE) };
            same(f, v)
        }
    })
}

fn atan2(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "atan2", args, &["y", "x"], line)?;
    let y = lw.expr(required(lw, "atan2", b[0], "y", line)?)?;
    let x = lw.expr(required(lw, "atan2", b[1], "x", line)?)?;
    if y.ty.elem == COMPLEX || x.ty.elem == COMPLEX {
        return Err(lw.unsupported("`atan2` of complex numbers", line, "not compiled"));
    }
    let (y, x) = super::recycle::conform(lw, "`atan2`", y, x, line)?;
    let rank = y.ty.rank.max(x.ty.rank);
    let (y, x) = (lw.cast(y, DOUBLE), lw.cast(x, DOUBLE));
    Ok(Lowered::new(lib(LibFn::Atan2, vec![y.expr, x.expr]), Ty::array(DOUBLE, rank)))
}

/// `ifelse(test, yes, no)`: element-wise choice, through a scalar helper function
/// (`_ifelse_<type>`) called directly on scalars and mapped over arrays. The result has
/// the shape of `test`; `yes` and `no` are scalars, of that shape or of length 1
/// (other lengths, which R recycles, raise `recycling`: see `recycle::fit`). Its type is the wider of `yes` and
/// `no`, where R's is the wider of the branches some element actually took (values are
/// equal). Both `yes` and `no` are evaluated, as R does whenever `test` holds both
/// TRUE and FALSE.
fn ifelse(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "ifelse", args, &["test", "yes", "no"], line)?;
    let test = lw.expr(required(lw, "ifelse", b[0], "test", line)?)?;
    let (yes_e, no_e) = (required(lw, "ifelse", b[1], "yes", line)?, required(lw, "ifelse", b[2], "no", line)?);
    // R's `NA` as a branch takes the other branch's type (`ifelse(x > 0, x, NA)`).
    let is_na = |e: &Expr| e.kind == ExprKind::Missing(MissingKind::Logical);
    let (yes, no, na_in_yes) = match (is_na(yes_e), is_na(no_e)) {
        (false, true) => {
            let yes = lw.expr(yes_e)?;
            let no = super::rules::RULES.missing_as(lw, no_e, yes.ty.elem).expect("an NA literal")?;
            (yes, no, Some(false))
        }
        (true, false) => {
            let no = lw.expr(no_e)?;
            let yes = super::rules::RULES.missing_as(lw, yes_e, no.ty.elem).expect("an NA literal")?;
            (yes, no, Some(true))
        }
        _ => (lw.expr(yes_e)?, lw.expr(no_e)?, None),
    };
    let test = to_logical(lw, test, line)?;
    let test = lw.hoist(test);
    if test.ty.rank == 0 && (yes.ty.rank != 0 || no.ty.rank != 0) {
        return Err(lw.unsupported("`ifelse` with a single test and array branches", line, "R takes their first elements; index them explicitly"));
    }
    if let Some(in_yes) = na_in_yes {
        // R's result is logical (all NA) when no element takes the other branch.
        let only_na = if test.ty.rank == 0 {
            if in_yes {
                test.expr.clone()
            } else {
                vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(test.expr.clone()) }
            }
        } else {
            let count = vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(lw.cast(test.clone(), ScalarType::I64).expr), axis: None, acc: None };
            bin(vrir::BinOp::Eq, count, if in_yes { lib(LibFn::Len, vec![test.expr.clone()]) } else { i64c(0) })
        };
        lw.raise_if(only_na, "ifelse_all_na");
    }
    let (test, yes, no) = if test.ty.rank != 0 {
        let test = lw.hoist(test);
        let yes = super::recycle::fit(lw, "`ifelse`", &test, yes, line)?;
        let no = super::recycle::fit(lw, "`ifelse`", &test, no, line)?;
        (test, yes, no)
    } else {
        (test, yes, no)
    };
    let elem = wider(yes.ty.elem, no.ty.elem);
    let (yes, no) = (lw.cast(yes, elem), lw.cast(no, elem));
    let helper = format!("_ifelse_{}", format!("{elem:?}").to_lowercase());
    let scalar_ty = Type::Scalar { elem };
    lw.prog.helpers.entry(helper.clone()).or_insert_with(|| {
        let ret = |v: &str| Stmt { kind: StmtKind::Return { values: vec![vrir::Expr::var(v)] }, line: Some(line) };
        let param = |n: &str, ty: Type| vrir::Param { name: n.into(), ty, restrict: false };
        vrir::Function {
            name: helper.clone(),
            params: vec![param("test", Type::Scalar { elem: LOGICAL }), param("yes", scalar_ty.clone()), param("no", scalar_ty.clone())],
            results: vec![scalar_ty.clone()],
            locals: vec![],
            body: vec![Stmt {
                kind: StmtKind::If {
                    cond: vrir::Expr::var("test"),
                    then: Block { on_gpu: false, stmts: vec![ret("yes")] },
                    els: Some(Block { on_gpu: false, stmts: vec![ret("no")] }),
                },
                line: Some(line),
            }],
            line: None,
        }
    });
    let call_args = vec![test.expr, yes.expr, no.expr];
    if test.ty.rank == 0 {
        Ok(Lowered::new(vrir::Expr::Call { func: helper, args: call_args }, Ty::scalar(elem)))
    } else {
        Ok(Lowered::new(vrir::Expr::Map { func: helper, args: call_args }, Ty::array(elem, test.ty.rank)))
    }
}

/// A 1-D value as a matrix with these extents (column-major).
pub(super) fn as_matrix(lw: &mut Lowerer, v: Lowered, rows: vrir::Expr, cols: vrir::Expr, line: Line) -> LResult<Lowered> {
    let v = lw.hoist(v);
    shaped(lw, v, vec![rows, cols], line)
}

fn transpose(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, "t", args, line)?;
    let v = lw.expr(x)?;
    match v.ty.rank {
        2 => {
            let ty = v.ty;
            Ok(Lowered::new(lib(LibFn::Transpose, vec![v.expr]), ty))
        }
        1 => {
            let v = lw.hoist(v);
            let n = lib(LibFn::Len, vec![v.expr.clone()]);
            as_matrix(lw, v, i64c(1), n, line)
        }
        _ => Err(lw.unsupported(&format!("`t` of a {}", v.ty), line, "compiled `t` takes a vector or a matrix")),
    }
}

/// R's `%*%`: always a matrix; a vector is a column, or a row where that conforms.
pub fn matmul(lw: &mut Lowerer, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    if a.ty.rank == 0 || b.ty.rank == 0 || a.ty.rank > 2 || b.ty.rank > 2 {
        return Err(lw.unsupported("`%*%`", line, &format!("of a {} and a {}: compiled for vectors and matrices", a.ty, b.ty)));
    }
    let e = wider(DOUBLE, wider(a.ty.elem, b.ty.elem));
    let (a, b) = (lw.cast(a, e), lw.cast(b, e));
    let (a, b) = (lw.hoist(a), lw.hoist(b));
    let product = lib(LibFn::Matmul, vec![a.expr.clone(), b.expr.clone()]);
    match (a.ty.rank, b.ty.rank) {
        (2, 2) => Ok(Lowered::new(product, Ty::array(e, 2))),
        (2, 1) => {
            let rows = vrir::Expr::Dim { arg: Box::new(a.expr), axis: 0 };
            as_matrix(lw, Lowered::new(product, Ty::array(e, 1)), rows, i64c(1), line)
        }
        (1, 2) => {
            let cols = vrir::Expr::Dim { arg: Box::new(b.expr), axis: 1 };
            as_matrix(lw, Lowered::new(product, Ty::array(e, 1)), i64c(1), cols, line)
        }
        _ => Ok(Lowered::new(alloc(AllocInit::Fill { value: Box::new(product) }, e, vec![i64c(1), i64c(1)]), Ty::array(e, 2))),
    }
}

fn crossprod(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "crossprod", args, &["x", "y"], line)?;
    let x = lw.expr(required(lw, "crossprod", b[0], "x", line)?)?;
    let x = lw.hoist(x);
    let y = match b[1] {
        Some(e) => lw.expr(e)?,
        None => x.clone(),
    };
    let tx = match x.ty.rank {
        2 => {
            let ty = x.ty;
            Lowered::new(lib(LibFn::Transpose, vec![x.expr]), ty)
        }
        1 => {
            let n = lib(LibFn::Len, vec![x.expr.clone()]);
            as_matrix(lw, x, i64c(1), n, line)?
        }
        _ => return Err(lw.unsupported("`crossprod` of a scalar", line, "compiled for vectors and matrices")),
    };
    let y = if y.ty.rank == 1 {
        let y = lw.hoist(y);
        let n = lib(LibFn::Len, vec![y.expr.clone()]);
        as_matrix(lw, y, n, i64c(1), line)?
    } else {
        y
    };
    matmul(lw, tx, y, line)
}

fn convert(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let x = one_arg(lw, name, args, line)?;
    let v = lw.expr(x)?;
    match name {
        "as.logical" => to_logical(lw, v, line),
        "as.integer" => {
            if v.ty.elem == COMPLEX {
                return Err(lw.unsupported("`as.integer` of a complex number", line, "use Re()"));
            }
            let v = if v.ty.elem == DOUBLE {
                let v = lw.hoist(v);
                raise_if_not_integer(lw, &v)?;
                v
            } else {
                v
            };
            Ok(lw.cast(v, INTEGER))
        }
        "as.complex" => Ok(lw.cast(v, COMPLEX)),
        _ => {
            if v.ty.elem == COMPLEX {
                return Err(lw.unsupported(&format!("`{name}` of a complex number"), line, "use Re()"));
            }
            Ok(lw.cast(v, DOUBLE))
        }
    }
}

/// Reason of `as.integer` of a double that is NA in R (NaN, NA, or outside R's
/// integers: from 2^31 up, or -2^31 and below, -2^31 being R's NA itself).
pub const AS_INTEGER_NA: &str = "as_integer_na";

/// Before `as.integer(x)` of doubles (`v`, hoisted): raise `AS_INTEGER_NA` (kind
/// `unsupported`, so the call runs in R and gives its NA) where an element would be NA
/// in R. Without it the cast failed as `invalid cast` (a plain run-time error where R
/// answers), and -2^31 itself, a valid i32, came out as an integer where R has NA
/// (random R programs, issue 21).
fn raise_if_not_integer(lw: &mut Lowerer, v: &Lowered) -> LResult<()> {
    let inside = |x: vrir::Expr| {
        bin(
            vrir::BinOp::And,
            bin(vrir::BinOp::Gt, x.clone(), vrir::Expr::f64(-2_147_483_648.0)),
            bin(vrir::BinOp::Lt, x, vrir::Expr::f64(2_147_483_648.0)),
        )
    };
    let cond = if v.ty.rank == 0 {
        vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(inside(v.expr.clone())) }
    } else {
        let good = lw.cast(Lowered::new(inside(v.expr.clone()), v.ty.with_elem(LOGICAL)), ScalarType::I64);
        bin(vrir::BinOp::Ne, vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(good.expr), axis: None, acc: None }, lib(LibFn::Len, vec![v.expr.clone()]))
    };
    lw.raise_if(cond, AS_INTEGER_NA);
    Ok(())
}

fn complex_ctor(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let b = bind(lw, "complex", args, &["length.out", "real", "imaginary"], line)?;
    if b[0].is_some() {
        return Err(lw.unsupported("`complex(length.out = )`", line, "use complex(real = , imaginary = )"));
    }
    let zero = Lowered::new(vrir::Expr::f64(0.0), Ty::scalar(DOUBLE));
    let re = match b[1] {
        Some(e) => lw.expr(e)?,
        None => zero.clone(),
    };
    let im = match b[2] {
        Some(e) => lw.expr(e)?,
        None => zero,
    };
    let (re, im) = super::recycle::conform(lw, "`complex`", re, im, line)?;
    let rank = re.ty.rank.max(im.ty.rank);
    let (re, im) = (lw.cast(re, DOUBLE), lw.cast(im, DOUBLE));
    Ok(Lowered::new(lib(LibFn::Complex, vec![re.expr, im.expr]), Ty::array(COMPLEX, rank)))
}
