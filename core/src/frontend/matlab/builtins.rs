//! MATLAB's library as compiled code: constructors (`zeros ones eye true false colon
//! linspace repmat reshape`), sizes (`size numel length ndims isempty`), reductions
//! (`sum prod mean max min any all cumsum cumprod norm dot`), element-wise math, class
//! conversions (`double int32 logical`), `find`, concatenation (`[a b; c d]`) and the
//! front end's own helpers (`__vr_*`, written by `resolve`). Each follows Octave's
//! definition (the sources named where rounding depends on them); where MATLAB's result
//! has a shape compiled code cannot give (a reduction of a matrix without a dimension),
//! a run-time check leaves the call to Octave.
//!
//! Names that are no compiled builtin (`rand`, `disp`, `fprintf`, ...) are `None`, which
//! the engine reports as an unknown function; a few are named with the reason.

use super::helpers;
use super::index::{self, builtin_call, one_by_one, reshape2};
use super::ops::{self, dim, numel};
use super::rules::{bin, i64c, lib, COMPLEX, DOUBLE, INT32, INT64, LOGICAL};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line};
use crate::frontend::lower::{LErr, LResult, Lowered, Lowerer};
use crate::frontend::rules::ArrayLoop;
use crate::frontend::types::{IntClass, Ty};
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, Literal, ReduceOp, ScalarType, ScanOp, Stmt, StmtKind};

/// A dimension argument that is not a whole number (Octave's error).
pub const DIM_NOT_INTEGER: &str = "dim_not_integer";
/// Pieces of a concatenation whose sizes do not fit (Octave's error).
pub const CONCAT_MISMATCH: &str = "concat_mismatch";
/// `reshape` to another element count (Octave's error).
pub const RESHAPE_COUNT: &str = "reshape_count";
/// `dot` of vectors of different lengths (Octave's error).
pub const VECTOR_LENGTHS: &str = "vector_lengths";
/// A reduction of a matrix without a dimension: MATLAB's result is a row.
pub const REDUCE_MATRIX: &str = "reduce_matrix";
/// `max`/`min`/`mean` of an empty array (MATLAB: an empty result).
pub const EMPTY_REDUCTION: &str = "empty_reduction";
/// `for v = M` over a matrix of several rows (MATLAB: column vectors) where the loop
/// variable is compiled as a scalar.
pub const COLUMNS_LOOP: &str = "columns_loop";
/// A `for` loop of no turn whose scalar variable is read outside the loop (Octave
/// assigns it the empty sequence).
pub const EMPTY_LOOP: &str = "empty_loop";
/// `__vr_columns(M, read_outside)`: the sequence of a `for` loop over an array
/// (`resolve`); `read_outside` says whether the loop variable is read outside the loop.
pub const COLUMNS_SOURCE: &str = "__vr_columns";
/// The library calls written for int64 arguments (`rules::Matlab::int64_guard` refuses
/// int64 arguments of every other).
/// The library calls written for the integer classes held in wider element types
/// (`Ty::class`: int8, int16, uint8, uint16, uint32); every other refuses their values
/// (`rules::Matlab::classes`). Sizes and predicates read no element; conversions and the
/// operator forms are class-aware (`ops::to_class`, `ops::arith`).
pub const TAKES_CLASSES: &[&str] = &[
    "int8", "int16", "uint8", "uint16", "uint32", "double", "logical", "intmax", "intmin", "size", "numel", "length", "ndims", "isempty", "isscalar", "isvector", "rows", "columns",
    "times", "plus", "minus", "rdivide", "mtimes", "mrdivide", "mldivide", "ctranspose", "transpose",
];

pub const TAKES_INT64: &[&str] = &[
    "int64", "int32", "double", "logical", "intmax", "intmin", "abs", "floor", "ceil", "fix", "round", "real", "conj", "size", "numel", "length", "ndims", "isempty", "isscalar",
    "isvector", "rows", "columns", "zeros", "ones", "times", "plus", "minus", "rdivide", "mtimes", "mrdivide", "mldivide", "ldivide", "ctranspose", "transpose", "horzcat", "vertcat",
    "__vr_end", "__vr_integral", "__vr_loopvar", "__vr_as_count", "__vr_size_count", "__vr_matrix", "__vr_columns", "__vr_nonempty_range", "__vr_case", "__vr_grows",
];
/// `__vr_nonempty_range(a:b)` before a loop over a range whose variable is read outside
/// the loop: raises `EMPTY_LOOP` when the range is empty.
pub const NONEMPTY_RANGE: &str = "__vr_nonempty_range";
/// `&&`/`||` of an array.
pub const CONDITION_ARRAY: &str = "condition_array";

fn f64c(v: f64) -> vrir::Expr {
    vrir::Expr::f64(v)
}

fn scalar(e: vrir::Expr, t: ScalarType) -> Lowered {
    Lowered::new(e, Ty::scalar(t))
}

fn values(lw: &mut Lowerer, args: &[Arg]) -> LResult<Vec<Lowered>> {
    args.iter().map(|a| lw.expr(&a.value)).collect()
}

fn arity(lw: &Lowerer, name: &str, args: &[Arg], allowed: &[usize], line: Line) -> LResult<()> {
    if args.iter().any(|a| a.name.is_some()) {
        return Err(lw.unsupported(&format!("`{name}`"), line, "named arguments"));
    }
    if !allowed.contains(&args.len()) {
        return Err(lw.unsupported(&format!("`{name}` with {} arguments", args.len()), line, &format!("it compiles with {allowed:?} arguments")));
    }
    Ok(())
}

/// A string constant argument (a class name, `'fro'`).
fn string_arg(a: &Arg) -> Option<&str> {
    match &a.value.kind {
        ExprKind::Str(s) => Some(s),
        _ => None,
    }
}

/// A scalar used as a dimension or count: a whole number (Octave's error otherwise),
/// negative counts as 0; an i64.
fn count(lw: &mut Lowerer, v: Lowered, what: &str, line: Line) -> LResult<vrir::Expr> {
    if v.ty.rank != 0 {
        return Err(lw.unsupported(what, line, "a size given as an array here (give each dimension)"));
    }
    let n = match v.ty.elem {
        DOUBLE => {
            if let vrir::Expr::Const { value: Literal::F64(x) } = v.expr {
                if x.fract() == 0.0 && x.abs() < 9.0e15 {
                    return Ok(i64c((x as i64).max(0)));
                }
            }
            let v = lw.hoist(v);
            let whole = bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, lib(LibFn::Floor, vec![v.expr.clone()]), v.expr.clone()), bin(vrir::BinOp::Lt, lib(LibFn::Abs, vec![v.expr.clone()]), f64c(9.0e15)));
            lw.raise_if(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(whole) }, DIM_NOT_INTEGER);
            lw.cast(v, ScalarType::I64).expr
        }
        INT32 | LOGICAL | ScalarType::I64 => lw.cast(v, ScalarType::I64).expr,
        other => return Err(lw.unsupported(what, line, &format!("a {} size", ops::class_name(other)))),
    };
    Ok(lib(LibFn::Max, vec![n, i64c(0)]))
}

/// The dimensions a constructor's arguments give (`zeros(n)`, `zeros(m, n, ...)`,
/// `zeros(size(A))`, `zeros([m n])`) and the class a trailing string names.
fn dims_and_class(lw: &mut Lowerer, name: &str, args: &[Arg], default: ScalarType, line: Line) -> LResult<(Vec<vrir::Expr>, ScalarType)> {
    let mut args = args;
    let mut elem = default;
    if let Some(last) = args.last() {
        if let Some(class) = string_arg(last) {
            elem = match class {
                "double" => DOUBLE,
                "int32" => INT32,
                "int64" => INT64,
                "logical" => LOGICAL,
                other => return Err(lw.unsupported(&format!("`{name}(..., '{other}')`"), line, "only 'double', 'int32', 'int64' and 'logical' arrays compile")),
            };
            args = &args[..args.len() - 1];
        }
    }
    let what = format!("`{name}`");
    let dims = match args {
        [] => vec![i64c(1), i64c(1)],
        [a] => {
            if let Some([x]) = builtin_call(lw, &a.value, "size") {
                let t = lw.expr(&x.value)?;
                if t.ty.rank == 0 {
                    vec![i64c(1), i64c(1)]
                } else {
                    let t = lw.hoist(t);
                    (0..t.ty.rank).map(|k| dim(&t.expr, k)).collect()
                }
            } else {
                let v = lw.expr(&a.value)?;
                if v.ty.rank == 0 {
                    let n = count(lw, v, &what, line)?;
                    let n = lw.hoist(Lowered::new(n, Ty::scalar(ScalarType::I64)));
                    vec![n.expr.clone(), n.expr]
                } else {
                    // A size vector: two elements at run time.
                    let v = lw.hoist(v);
                    lw.raise_if(bin(vrir::BinOp::Ne, numel(&v.expr), i64c(2)), REDUCE_MATRIX);
                    let mut d = Vec::new();
                    for k in 1..=2 {
                        let e = Lowered::new(vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![i64c(k)], flags: IndexFlags { flatten: true, ..IndexFlags::default() } }, Ty::scalar(v.ty.elem));
                        d.push(count(lw, e, &what, line)?);
                    }
                    d
                }
            }
        }
        more => {
            let mut d = Vec::new();
            for a in more {
                let v = lw.expr(&a.value)?;
                d.push(count(lw, v, &what, line)?);
            }
            // Trailing dimensions of 1 past the second are dropped, as MATLAB does.
            while d.len() > 2 && matches!(d.last(), Some(vrir::Expr::Const { value: Literal::I64(1) })) {
                d.pop();
            }
            d
        }
    };
    Ok((dims, elem))
}

fn alloc(lw: &Lowerer, init: AllocInit, elem: ScalarType, dims: Vec<vrir::Expr>) -> Lowered {
    let rank = dims.len() as u32;
    Lowered::new(vrir::Expr::Alloc { init, ty: ArrayType::new(elem, rank, lw.layout()), dims }, Ty::array(elem, rank))
}

fn fill_value(elem: ScalarType, one: bool) -> vrir::Expr {
    let v = if one { 1.0 } else { 0.0 };
    vrir::Expr::lit(match elem {
        LOGICAL => Literal::Bool(one),
        INT32 => Literal::I32(v as i32),
        INT64 => Literal::I64(v as i64),
        COMPLEX => Literal::C128([v, 0.0]),
        _ => Literal::F64(v),
    })
}

/// A fresh i64 loop counter and the `for` over 1..=n running `body`.
fn counted_loop(lw: &mut Lowerer, n: vrir::Expr, body: impl FnOnce(&mut Lowerer, vrir::Expr) -> LResult<()>) -> LResult<()> {
    let k = lw.temp(&vrir::Type::I64);
    let (r, stmts) = lw.in_block(|lw| body(lw, vrir::Expr::var(&k)));
    r?;
    lw.emit(StmtKind::For { vars: vec![k], domain: vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(n)), step: None }, body: Block { on_gpu: false, stmts } });
    Ok(())
}

fn set_index(array: &str, indices: Vec<vrir::Expr>, flatten: bool, value: vrir::Expr) -> StmtKind {
    StmtKind::Assign { targets: vec![LValue::Index { array: array.to_string(), indices, flags: IndexFlags { flatten, ..IndexFlags::default() } }], value }
}

/// A value as a double (logical and int32 converted; complex kept).
fn real_or_complex(lw: &mut Lowerer, v: Lowered) -> Lowered {
    match v.ty.elem {
        COMPLEX => v,
        _ => lw.cast(v, DOUBLE),
    }
}

/// Element-wise math of one argument.
fn math1(lw: &mut Lowerer, name: &str, v: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{name}`");
    let elem = v.ty.elem;
    let rank = v.ty.rank;
    if elem == INT64 {
        return match name {
            "floor" | "ceil" | "fix" | "round" | "real" | "conj" => Ok(v),
            "abs" => Ok(Lowered::new(helpers::apply(lw, helpers::I64_ABS, vec![v.expr], rank > 0), v.ty)),
            _ => Err(lw.unsupported(&what, line, "of an int64 value (not compiled for int64)")),
        };
    }
    if elem == INT32 {
        return match name {
            "floor" | "ceil" | "fix" | "round" | "real" | "conj" => Ok(v),
            "abs" => {
                let d = lw.cast(v, DOUBLE);
                let ty = d.ty;
                Ok(ops::to_int32(lw, Lowered::new(lib(LibFn::Abs, vec![d.expr]), ty)))
            }
            "imag" => Ok(Lowered::new(vrir::Expr::Binary { op: vrir::BinOp::Mul, lhs: Box::new(v.expr), rhs: Box::new(vrir::Expr::lit(Literal::I32(0))) }, v.ty)),
            "sign" => {
                let d = lw.cast(v, DOUBLE);
                let arr = rank > 0;
                let s = Lowered::new(helpers::apply(lw, helpers::SIGN, vec![d.expr], arr), Ty::array(DOUBLE, rank));
                Ok(ops::to_int32(lw, s))
            }
            "isnan" | "isinf" => Ok(Lowered::new(lib(if name == "isnan" { LibFn::IsNan } else { LibFn::IsInf }, vec![v.expr]), v.ty.with_elem(LOGICAL))),
            "isfinite" => Ok(Lowered::new(bin(vrir::BinOp::Eq, lw.cast(v.clone(), DOUBLE).expr, lw.cast(v, DOUBLE).expr), Ty::array(LOGICAL, rank))),
            _ => Err(lw.unsupported(&what, line, "of an int32 value (Octave: not defined for integers)")),
        };
    }
    let v = real_or_complex(lw, v);
    let complex = v.ty.elem == COMPLEX;
    let ty = v.ty;
    let f = |func: LibFn, v: Lowered| Ok(Lowered::new(lib(func, vec![v.expr]), v.ty));
    match name {
        "abs" => Ok(Lowered::new(lib(LibFn::Abs, vec![v.expr]), ty.with_elem(DOUBLE))),
        "real" => Ok(Lowered::new(lib(LibFn::Real, vec![v.expr]), ty.with_elem(DOUBLE))),
        "imag" => Ok(Lowered::new(lib(LibFn::Imag, vec![v.expr]), ty.with_elem(DOUBLE))),
        "conj" => f(LibFn::Conj, v),
        "exp" => f(LibFn::Exp, v),
        "sin" => f(LibFn::Sin, v),
        "cos" => f(LibFn::Cos, v),
        "tan" => f(LibFn::Tan, v),
        "atan" => f(LibFn::Atan, v),
        "sinh" => f(LibFn::Sinh, v),
        "cosh" => f(LibFn::Cosh, v),
        "tanh" => f(LibFn::Tanh, v),
        "isnan" => Ok(Lowered::new(lib(LibFn::IsNan, vec![v.expr]), ty.with_elem(LOGICAL))),
        "isinf" => Ok(Lowered::new(lib(LibFn::IsInf, vec![v.expr]), ty.with_elem(LOGICAL))),
        "isfinite" => {
            let v = lw.hoist(v);
            let bad = bin(vrir::BinOp::Or, lib(LibFn::IsNan, vec![v.expr.clone()]), lib(LibFn::IsInf, vec![v.expr]));
            Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(bad) }, ty.with_elem(LOGICAL)))
        }
        "sqrt" | "log" | "log10" | "asin" | "acos" if !complex => {
            // Outside the real domain MATLAB's result is complex: Octave runs it.
            let v = lw.hoist(v);
            let outside = match name {
                "asin" | "acos" => bin(vrir::BinOp::Gt, lib(LibFn::Abs, vec![v.expr.clone()]), f64c(1.0)),
                _ => bin(vrir::BinOp::Lt, v.expr.clone(), f64c(0.0)),
            };
            let c = if rank == 0 { outside } else { ops::any_true(lw, Lowered::new(outside, ty.with_elem(LOGICAL))) };
            lw.raise_if(c, ops::COMPLEX_RESULT);
            let func = match name {
                "sqrt" => LibFn::Sqrt,
                "log" => LibFn::Log,
                "log10" => LibFn::Log10,
                "asin" => LibFn::Asin,
                _ => LibFn::Acos,
            };
            f(func, v)
        }
        "sqrt" => f(LibFn::Sqrt, v),
        "log" => f(LibFn::Log, v),
        "log10" => f(LibFn::Log10, v),
        "asin" => f(LibFn::Asin, v),
        "acos" => f(LibFn::Acos, v),
        _ if complex => Err(lw.unsupported(&what, line, "of a complex value")),
        "floor" => f(LibFn::Floor, v),
        "ceil" => f(LibFn::Ceil, v),
        "fix" => f(LibFn::Trunc, v),
        "round" => Ok(Lowered::new(helpers::apply(lw, helpers::ROUND, vec![v.expr], rank > 0), ty)),
        "sign" => Ok(Lowered::new(helpers::apply(lw, helpers::SIGN, vec![v.expr], rank > 0), ty)),
        _ => unreachable!("math1 of `{name}`"),
    }
}

/// Element-wise math of two arguments: `atan2 mod rem`, two-argument `max min`.
fn math2(lw: &mut Lowerer, name: &str, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{name}`");
    let e = ops::arith_class(lw, a.ty.elem, b.ty.elem, &what, line)?;
    if e == COMPLEX {
        return Err(lw.unsupported(&what, line, "of complex values"));
    }
    ops::elementwise(lw, a, b, &what, line, &|lw, a, b| {
        let rank = a.ty.rank.max(b.ty.rank);
        if e == INT32 && matches!(name, "max" | "min") {
            // Both converted to int32 first (Octave), then compared.
            let a = if a.ty.elem == INT32 { a } else { ops::to_int32(lw, a) };
            let b = if b.ty.elem == INT32 { b } else { ops::to_int32(lw, b) };
            let func = if name == "max" { LibFn::Max } else { LibFn::Min };
            return Ok(Lowered::new(lib(func, vec![a.expr, b.expr]), Ty::array(INT32, rank)));
        }
        let a = lw.cast(a, DOUBLE);
        let b = lw.cast(b, DOUBLE);
        let arr = rank > 0;
        let d = match name {
            "atan2" => {
                if e == INT32 {
                    return Err(lw.unsupported(&what, line, "of int32 values"));
                }
                lib(LibFn::Atan2, vec![a.expr, b.expr])
            }
            "mod" => helpers::apply(lw, helpers::MOD, vec![a.expr, b.expr], arr),
            "rem" => helpers::apply(lw, helpers::REM, vec![a.expr, b.expr], arr),
            "max" => helpers::apply(lw, helpers::MAX, vec![a.expr, b.expr], arr),
            "min" => helpers::apply(lw, helpers::MIN, vec![a.expr, b.expr], arr),
            _ => unreachable!("math2 of `{name}`"),
        };
        let d = Lowered::new(d, Ty::array(DOUBLE, rank));
        // int32 mod/rem are exact in double (the operands are whole numbers).
        Ok(if e == INT32 { ops::to_int32(lw, d) } else { d })
    })
}

/// Raise `REDUCE_MATRIX` unless `v` (hoisted, rank 2) is a vector, or `[]` where
/// `allow_empty`.
fn require_vector(lw: &mut Lowerer, v: &Lowered, allow_empty: bool) {
    let (r, c) = (dim(&v.expr, 0), dim(&v.expr, 1));
    let mut ok = bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, r.clone(), i64c(1)), bin(vrir::BinOp::Eq, c.clone(), i64c(1)));
    if allow_empty {
        ok = bin(vrir::BinOp::Or, ok, bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, r, i64c(0)), bin(vrir::BinOp::Eq, c, i64c(0))));
    }
    let bad = if v.ty.rank == 2 { vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(ok) } } else { vrir::Expr::lit(Literal::Bool(true)) };
    lw.raise_if(bad, REDUCE_MATRIX);
}

fn flat(v: &Lowered) -> vrir::Expr {
    vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![vrir::Expr::Range { start: None, stop: None, step: None }], flags: IndexFlags { flatten: true, ..IndexFlags::default() } }
}

/// max/min of the elements of `v` (hoisted, any rank >= 1, double) skipping NaN, with
/// the 1-based position of the first extreme (Octave's mx_inline_max: NaN only when
/// every element is; then position 1). Emitted as a loop over the flat elements.
fn extreme(lw: &mut Lowerer, v: &Lowered, max: bool) -> (Lowered, Lowered) {
    let n = lw.hoist(Lowered::new(numel(&v.expr), Ty::scalar(ScalarType::I64)));
    let best = lw.temp(&vrir::Type::F64);
    let at = lw.temp(&vrir::Type::I64);
    let k = lw.temp(&vrir::Type::I64);
    let line = Some(lw.line);
    let st = |kind| Stmt { kind, line };
    let elem = |i: vrir::Expr| vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![i], flags: IndexFlags { flatten: v.ty.rank > 1, ..IndexFlags::default() } };
    let set = |name: &str, e: vrir::Expr| StmtKind::Assign { targets: vec![LValue::Var { name: name.to_string() }], value: e };
    let vk = vrir::Expr::var(&k);
    lw.emit(set(&best, elem(i64c(1))));
    lw.emit(set(&at, i64c(1)));
    // First non-NaN element, then strictly better ones.
    let better = bin(if max { vrir::BinOp::Gt } else { vrir::BinOp::Lt }, elem(vk.clone()), vrir::Expr::var(&best));
    let take = vec![st(set(&best, elem(vk.clone()))), st(set(&at, vk.clone()))];
    let best_nan = bin(vrir::BinOp::Ne, vrir::Expr::var(&best), vrir::Expr::var(&best));
    let not_nan = bin(vrir::BinOp::Eq, elem(vk.clone()), elem(vk.clone()));
    let cond = bin(vrir::BinOp::Or, bin(vrir::BinOp::And, best_nan, not_nan), better);
    let body = vec![st(StmtKind::If { cond, then: Block { on_gpu: false, stmts: take }, els: None })];
    lw.emit(StmtKind::For { vars: vec![k], domain: vrir::Expr::Range { start: Some(Box::new(i64c(2))), stop: Some(Box::new(n.expr)), step: None }, body: Block { on_gpu: false, stmts: body } });
    let pos = lw.cast(scalar(vrir::Expr::var(at), ScalarType::I64), DOUBLE);
    (scalar(vrir::Expr::var(best), DOUBLE), pos)
}

/// `sum prod mean max min any all` of one value (no dimension given).
fn reduce_all(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    let what = format!("`{name}`");
    // `sum(sum(A))`, `max(max(A))`, ...: over the whole matrix, as MATLAB computes it
    // (column results first, then their reduction).
    if let Some([inner]) = builtin_call(lw, &args[0].value, name) {
        let a = lw.expr(&inner.value)?;
        if a.ty.rank == 2 {
            let a = lw.hoist(a);
            return match name {
                "sum" | "prod" => {
                    let op = if name == "sum" { ReduceOp::Sum } else { ReduceOp::Prod };
                    let a = reduce_operand(lw, a, &what, line)?;
                    let cols = vrir::Expr::Reduce { op, arg: Box::new(a.expr), axis: Some(0), acc: None };
                    Ok(scalar(vrir::Expr::Reduce { op, arg: Box::new(cols), axis: None, acc: None }, a.ty.elem))
                }
                "max" | "min" | "any" | "all" => whole(lw, name, a, line),
                _ => unreachable!(),
            };
        }
        // A scalar or a vector: the inner reduction of the value already lowered, then
        // the outer one. (This called reduce_all on the same outer call again: endless
        // recursion, a stack overflow for `sum(sum(x))` of a scalar; found by fuzzing.)
        let v = reduce_value(lw, name, a, line)?;
        return whole(lw, name, v, line);
    }
    let v = lw.expr(&args[0].value)?;
    reduce_value(lw, name, v, line)
}

/// `name` over a lowered scalar or vector argument.
fn reduce_value(lw: &mut Lowerer, name: &str, v: Lowered, line: Line) -> LResult<Lowered> {
    if v.ty.rank == 0 {
        return whole(lw, name, v, line);
    }
    let v = lw.hoist(v);
    require_vector(lw, &v, matches!(name, "sum" | "prod" | "any" | "all"));
    whole(lw, name, v, line)
}

/// The element type a reduction accumulates (logical counts as double).
fn reduce_operand(lw: &mut Lowerer, v: Lowered, what: &str, line: Line) -> LResult<Lowered> {
    match v.ty.elem {
        DOUBLE | COMPLEX => Ok(v),
        LOGICAL => Ok(lw.cast(v, DOUBLE)),
        INT32 => Err(lw.unsupported(what, line, "of int32 values (Octave saturates at every step)")),
        other => Err(lw.unsupported(what, line, &format!("of {} values", ops::class_name(other)))),
    }
}

/// The reduction of every element of `v` (a scalar, or an array known to be a vector or
/// treated as a whole).
fn whole(lw: &mut Lowerer, name: &str, v: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{name}`");
    match name {
        "any" | "all" => {
            let l = ops::to_logical(lw, v, line)?;
            if l.ty.rank == 0 {
                return Ok(l);
            }
            let l = lw.hoist(l);
            if name == "any" {
                Ok(scalar(ops::any_true(lw, l), LOGICAL))
            } else {
                let not = Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(l.expr) }, l.ty);
                let any_false = ops::any_true(lw, not);
                Ok(scalar(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(any_false) }, LOGICAL))
            }
        }
        "sum" | "prod" => {
            let v = reduce_operand(lw, v, &what, line)?;
            if v.ty.rank == 0 {
                return Ok(v);
            }
            let op = if name == "sum" { ReduceOp::Sum } else { ReduceOp::Prod };
            let elem = v.ty.elem;
            Ok(scalar(vrir::Expr::Reduce { op, arg: Box::new(v.expr), axis: None, acc: None }, elem))
        }
        "mean" => {
            let v = reduce_operand(lw, v, &what, line)?;
            if v.ty.rank == 0 {
                return Ok(v);
            }
            let v = lw.hoist(v);
            lw.raise_if(bin(vrir::BinOp::Eq, numel(&v.expr), i64c(0)), EMPTY_REDUCTION);
            // Octave's mean.m: sum(x) / n.
            let elem = v.ty.elem;
            Ok(scalar(vrir::Expr::Reduce { op: ReduceOp::Mean, arg: Box::new(v.expr), axis: None, acc: None }, elem))
        }
        "max" | "min" => Ok(extreme_of(lw, name, v, line)?.0),
        _ => unreachable!("reduction `{name}`"),
    }
}

/// max/min of all elements with the position.
fn extreme_of(lw: &mut Lowerer, name: &str, v: Lowered, line: Line) -> LResult<(Lowered, Lowered)> {
    let what = format!("`{name}`");
    match v.ty.elem {
        INT32 if v.ty.rank > 0 => {
            let v = lw.hoist(v);
            lw.raise_if(bin(vrir::BinOp::Eq, numel(&v.expr), i64c(0)), EMPTY_REDUCTION);
            let d = lw.cast(v, DOUBLE);
            let d = lw.hoist(d);
            let (m, at) = extreme(lw, &d, name == "max");
            Ok((ops::to_int32(lw, m), at))
        }
        DOUBLE | LOGICAL | INT32 => {
            if v.ty.rank == 0 {
                let v = if v.ty.elem == LOGICAL { lw.cast(v, DOUBLE) } else { v };
                return Ok((v, scalar(f64c(1.0), DOUBLE)));
            }
            let v = lw.hoist(v);
            lw.raise_if(bin(vrir::BinOp::Eq, numel(&v.expr), i64c(0)), EMPTY_REDUCTION);
            let d = lw.cast(v, DOUBLE);
            let d = lw.hoist(d);
            Ok(extreme(lw, &d, name == "max"))
        }
        other => Err(lw.unsupported(&what, line, &format!("of {} values", ops::class_name(other)))),
    }
}

/// `sum(A, d)` and the like along dimension 1 or 2: a row (1 x n) or a column (n x 1).
fn reduce_dim(lw: &mut Lowerer, name: &str, v: Lowered, d: &Arg, line: Line) -> LResult<Lowered> {
    let what = format!("`{name}`");
    let ExprKind::Double(d) = d.value.kind else {
        return Err(lw.unsupported(&what, line, "a dimension that is not a literal 1 or 2"));
    };
    if v.ty.rank == 0 {
        return whole(lw, name, v, line);
    }
    if v.ty.rank != 2 || !(d == 1.0 || d == 2.0) {
        return Err(lw.unsupported(&what, line, "along a dimension other than 1 or 2 of a matrix"));
    }
    let axis = d as u32 - 1;
    let op = match name {
        "sum" => ReduceOp::Sum,
        "prod" => ReduceOp::Prod,
        "mean" => ReduceOp::Mean,
        _ => return Err(lw.unsupported(&what, line, "with a dimension (sum, prod and mean compile with one)")),
    };
    let v = reduce_operand(lw, v, &what, line)?;
    let v = lw.hoist(v);
    if op == ReduceOp::Mean {
        lw.raise_if(bin(vrir::BinOp::Eq, dim(&v.expr, axis), i64c(0)), EMPTY_REDUCTION);
    }
    let elem = v.ty.elem;
    let r = vrir::Expr::Reduce { op, arg: Box::new(v.expr.clone()), axis: Some(axis), acc: None };
    let (rows, cols) = if axis == 0 { (i64c(1), dim(&v.expr, 1)) } else { (dim(&v.expr, 0), i64c(1)) };
    Ok(reshape2(lw, r, elem, rows, cols))
}

/// `cumsum`/`cumprod` of a vector: same shape.
fn scan(lw: &mut Lowerer, name: &str, v: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("`{name}`");
    let v = reduce_operand(lw, v, &what, line)?;
    if v.ty.rank == 0 {
        return Ok(v);
    }
    let v = lw.hoist(v);
    require_vector(lw, &v, true);
    let op = if name == "cumsum" { ScanOp::Sum } else { ScanOp::Prod };
    let s = vrir::Expr::Scan { op, arg: Box::new(flat(&v)), acc: None };
    let elem = v.ty.elem;
    Ok(reshape2(lw, s, elem, dim(&v.expr, 0), dim(&v.expr, 1)))
}

/// `norm(v)`, `norm(v, p)` of a vector (2, 1, Inf, 'fro'): Octave's accumulators
/// (oct-norm.cc: the 2-norm scaled as LAPACK's dnrm2).
fn norm(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let v = lw.expr(&args[0].value)?;
    let p = match args.get(1) {
        None => 2.0,
        Some(a) => match (&a.value.kind, string_arg(a)) {
            (ExprKind::Double(p), _) => *p,
            (_, Some("fro")) => 2.0,
            (_, Some("inf" | "Inf")) => f64::INFINITY,
            (ExprKind::Call { func, args }, _) if args.is_empty() && matches!(func.as_str(), "Inf" | "inf") => f64::INFINITY,
            _ => return Err(lw.unsupported("`norm`", line, "a norm other than 1, 2, Inf or 'fro'")),
        },
    };
    let v = reduce_operand(lw, v, "`norm`", line)?;
    let v = if v.ty.rank == 0 { one_by_one(lw, v) } else { v };
    let v = lw.hoist(v);
    if !(p == 2.0 && args.get(1).and_then(string_arg) == Some("fro")) {
        require_vector(lw, &v, true);
    }
    let a = lw.hoist(Lowered::new(lib(LibFn::Abs, vec![v.expr.clone()]), v.ty.with_elem(DOUBLE)));
    if p == 1.0 {
        return Ok(scalar(vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(a.expr), axis: None, acc: None }, DOUBLE));
    }
    if p.is_infinite() {
        let (m, _) = extreme(lw, &a, true);
        // Octave: the norm of an empty vector is 0.
        let t = lw.temp(&vrir::Type::F64);
        let line_no = Some(lw.line);
        lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: f64c(0.0) });
        let set = Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: m.expr }, line: line_no };
        lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Gt, numel(&a.expr), i64c(0)), then: Block { on_gpu: false, stmts: vec![set] }, els: None });
        return Ok(scalar(vrir::Expr::var(t), DOUBLE));
    }
    if p != 2.0 {
        return Err(lw.unsupported("`norm`", line, "a p-norm other than 1, 2 or Inf"));
    }
    // norm_accumulator_2: scl = 0, sum = 1; for each |x|: ...; result scl * sqrt(sum).
    let scl = lw.temp(&vrir::Type::F64);
    let sum = lw.temp(&vrir::Type::F64);
    let t = lw.temp(&vrir::Type::F64);
    let line_no = Some(lw.line);
    let set = |n: &str, e: vrir::Expr| Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: n.to_string() }], value: e }, line: line_no };
    lw.emit(set(&scl, f64c(0.0)).kind);
    lw.emit(set(&sum, f64c(1.0)).kind);
    let (vs, vm, vt) = (vrir::Expr::var(&scl), vrir::Expr::var(&sum), vrir::Expr::var(&t));
    counted_loop(lw, numel(&a.expr), |lw, k| {
        let x = vrir::Expr::Index { array: Box::new(a.expr.clone()), indices: vec![k], flags: IndexFlags { flatten: true, ..IndexFlags::default() } };
        lw.emit(set(&t, x).kind);
        let sq = |e: vrir::Expr| bin(vrir::BinOp::Mul, e.clone(), e);
        let grow = vec![set(&sum, bin(vrir::BinOp::Add, bin(vrir::BinOp::Mul, vm.clone(), sq(bin(vrir::BinOp::Div, vs.clone(), vt.clone()))), f64c(1.0))), set(&scl, vt.clone())];
        let add = vec![Stmt {
            kind: StmtKind::If { cond: bin(vrir::BinOp::Ne, vt.clone(), f64c(0.0)), then: Block { on_gpu: false, stmts: vec![set(&sum, bin(vrir::BinOp::Add, vm.clone(), sq(bin(vrir::BinOp::Div, vt.clone(), vs.clone()))))] }, els: None },
            line: line_no,
        }];
        let less = Stmt { kind: StmtKind::If { cond: bin(vrir::BinOp::Lt, vs.clone(), vt.clone()), then: Block { on_gpu: false, stmts: grow }, els: Some(Block { on_gpu: false, stmts: add }) }, line: line_no };
        lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Eq, vs.clone(), vt.clone()), then: Block { on_gpu: false, stmts: vec![set(&sum, bin(vrir::BinOp::Add, vm.clone(), f64c(1.0)))] }, els: Some(Block { on_gpu: false, stmts: vec![less] }) });
        Ok(())
    })?;
    Ok(scalar(bin(vrir::BinOp::Mul, vs, lib(LibFn::Sqrt, vec![vm])), DOUBLE))
}

/// `horzcat(...)` / `vertcat(...)`: MATLAB's `[a b]` and `[a; b]`. Pieces that are
/// `[]` (0 x 0) are skipped; the others must agree in rows (columns); the class is the
/// widest (int32 wins, then complex, double, logical).
fn concat(lw: &mut Lowerer, args: &[Arg], vertical: bool, line: Line) -> LResult<Lowered> {
    let what = if vertical { "`[a; b]`" } else { "`[a, b]`" };
    let vs = values(lw, args)?;
    if vs.is_empty() {
        return Ok(alloc(lw, AllocInit::Zeros, DOUBLE, vec![i64c(0), i64c(0)]));
    }
    if vs.len() == 1 {
        return Ok(vs.into_iter().next().expect("one"));
    }
    let mut elem = LOGICAL;
    for v in &vs {
        elem = match (elem, v.ty.elem) {
            (INT64, INT64 | DOUBLE | LOGICAL) | (DOUBLE | LOGICAL, INT64) => INT64,
            (INT64, other) | (other, INT64) => return Err(lw.unsupported(what, line, &format!("concatenating int64 with {} values", ops::class_name(other)))),
            (_, INT32) | (INT32, _) => INT32,
            (_, COMPLEX) | (COMPLEX, _) => COMPLEX,
            (_, DOUBLE) | (DOUBLE, _) => DOUBLE,
            (_, LOGICAL) => elem,
            (_, other) => return Err(lw.unsupported(what, line, &format!("{} elements", ops::class_name(other)))),
        };
        if v.ty.rank > 2 {
            return Err(lw.unsupported(what, line, "concatenating arrays of more than two dimensions"));
        }
    }
    let convert = |lw: &mut Lowerer, v: Lowered| if matches!(elem, INT32 | INT64) { ops::to_int(lw, v, elem) } else { lw.cast(v, elem) };
    if vs.iter().all(|v| v.ty.rank == 0) {
        // All scalars: a row (column) of them.
        let n = vs.len() as i64;
        let ty = Ty::array(elem, 2);
        let out = lw.temp(&ty.vrir(lw.layout()));
        let dims = if vertical { vec![i64c(n), i64c(1)] } else { vec![i64c(1), i64c(n)] };
        lw.emit(StmtKind::Alloc { var: out.clone(), dims });
        for (k, v) in vs.into_iter().enumerate() {
            let v = convert(lw, v);
            lw.emit(set_index(&out, vec![i64c(k as i64 + 1)], true, v.expr));
        }
        return Ok(Lowered::new(vrir::Expr::var(out), ty));
    }
    // General: sizes at run time. (along, across) = (cols, rows) for horzcat.
    let (along, across) = if vertical { (0u32, 1u32) } else { (1u32, 0u32) };
    let pieces: Vec<Lowered> = vs
        .into_iter()
        .map(|v| {
            let v = convert(lw, v);
            let v = one_by_one(lw, v);
            lw.hoist(v)
        })
        .collect();
    let empty = |p: &Lowered| bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, dim(&p.expr, 0), i64c(0)), bin(vrir::BinOp::Eq, dim(&p.expr, 1), i64c(0)));
    // The common extent across: the first piece that is not [] sets it.
    let width = lw.temp(&vrir::Type::I64);
    let total = lw.temp(&vrir::Type::I64);
    let set = |n: &str, e: vrir::Expr| StmtKind::Assign { targets: vec![LValue::Var { name: n.to_string() }], value: e };
    lw.emit(set(&width, i64c(-1)));
    lw.emit(set(&total, i64c(0)));
    let line_no = Some(lw.line);
    for p in &pieces {
        let (r, checks) = lw.in_block(|lw| {
            let w = vrir::Expr::var(&width);
            let first_piece = Stmt { kind: set(&width, dim(&p.expr, across)), line: line_no };
            lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Lt, w.clone(), i64c(0)), then: Block { on_gpu: false, stmts: vec![first_piece] }, els: None });
            lw.raise_if(bin(vrir::BinOp::Ne, vrir::Expr::var(&width), dim(&p.expr, across)), CONCAT_MISMATCH);
            lw.emit(set(&total, bin(vrir::BinOp::Add, vrir::Expr::var(&total), dim(&p.expr, along))));
            Ok(())
        });
        r?;
        lw.emit(StmtKind::If { cond: vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(empty(p)) }, then: Block { on_gpu: false, stmts: checks }, els: None });
    }
    let w = lib(LibFn::Max, vec![vrir::Expr::var(&width), i64c(0)]);
    let ty = Ty::array(elem, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    let dims = if vertical { vec![vrir::Expr::var(&total), w] } else { vec![w, vrir::Expr::var(&total)] };
    lw.emit(StmtKind::Alloc { var: out.clone(), dims });
    let off = lw.temp(&vrir::Type::I64);
    lw.emit(set(&off, i64c(0)));
    for p in &pieces {
        let o = vrir::Expr::var(&off);
        let span = vrir::Expr::Range { start: Some(Box::new(bin(vrir::BinOp::Add, o.clone(), i64c(1)))), stop: Some(Box::new(bin(vrir::BinOp::Add, o.clone(), dim(&p.expr, along)))), step: None };
        let all = vrir::Expr::Range { start: None, stop: None, step: None };
        let idx = if vertical { vec![span, all] } else { vec![all, span] };
        let copy = vec![
            Stmt { kind: set_index(&out, idx, false, p.expr.clone()), line: line_no },
            Stmt { kind: set(&off, bin(vrir::BinOp::Add, o, dim(&p.expr, along))), line: line_no },
        ];
        lw.emit(StmtKind::If { cond: vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(empty(p)) }, then: Block { on_gpu: false, stmts: copy }, els: None });
    }
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `colon(a, b)`, `colon(a, s, b)` as a value: a row of Octave's range elements
/// (Range.h `elem`: base + i * increment, the last one `final_value`).
fn colon_value(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let (a, s, b) = match args {
        [a, b] => (&a.value, None, &b.value),
        [a, s, b] => (&a.value, Some(&s.value), &b.value),
        _ => return Err(lw.unsupported("`colon`", line, "two or three arguments")),
    };
    let fraction = |e: &Expr| matches!(e.kind, ExprKind::Double(v) if v.fract() != 0.0);
    if !fraction(a) && !s.is_some_and(fraction) {
        // Whole-number start and step (checked): exact integers.
        if let Ok(p) = range_checked(lw, args, line) {
            let out_n = p.count.clone();
            let ty = Ty::array(DOUBLE, 2);
            let out = lw.temp(&ty.vrir(lw.layout()));
            lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![i64c(1), out_n.clone()] });
            let (start, step) = (p.start.clone(), p.step.clone());
            counted_loop(lw, out_n, |lw, k| {
                let v = bin(vrir::BinOp::Add, start.clone(), bin(vrir::BinOp::Mul, bin(vrir::BinOp::Sub, k.clone(), i64c(1)), step.clone()));
                let v = lw.cast(scalar(v, ScalarType::I64), DOUBLE).expr;
                lw.emit(set_index(&out, vec![k], true, v));
                Ok(())
            })?;
            return Ok(Lowered::new(vrir::Expr::var(out), ty));
        }
    }
    let get = |lw: &mut Lowerer, e: &Expr| -> LResult<Lowered> {
        let v = lw.expr(e)?;
        if v.ty.rank != 0 || !matches!(v.ty.elem, DOUBLE | LOGICAL) {
            return Err(lw.unsupported("a range `a:b`", line, "double scalar endpoints and step"));
        }
        let v = lw.cast(v, DOUBLE);
        Ok(lw.hoist(v))
    };
    let va = get(lw, a)?;
    let vs = match s {
        Some(s) => get(lw, s)?,
        None => scalar(f64c(1.0), DOUBLE),
    };
    let vb = get(lw, b)?;
    let n = helpers::apply(lw, helpers::RANGE_NUMEL, vec![va.expr.clone(), vs.expr.clone(), vb.expr.clone()], false);
    let n = lw.hoist(scalar(n, ScalarType::I64));
    lw.raise_if(bin(vrir::BinOp::Lt, n.expr.clone(), i64c(0)), index::RANGE_INVALID);
    let fin = helpers::apply(lw, helpers::RANGE_FINAL, vec![va.expr.clone(), vs.expr.clone(), vb.expr.clone(), n.expr.clone()], false);
    let fin = lw.hoist(scalar(fin, DOUBLE));
    let ty = Ty::array(DOUBLE, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![i64c(1), n.expr.clone()] });
    counted_loop(lw, n.expr.clone(), |lw, k| {
        let i = lw.cast(scalar(bin(vrir::BinOp::Sub, k.clone(), i64c(1)), ScalarType::I64), DOUBLE).expr;
        lw.emit(set_index(&out, vec![k.clone()], true, bin(vrir::BinOp::Add, va.expr.clone(), bin(vrir::BinOp::Mul, i, vs.expr.clone()))));
        Ok(())
    })?;
    // The last element is the range's final value; with one element, base unless NaN.
    let line_no = Some(lw.line);
    let last = Stmt { kind: set_index(&out, vec![n.expr.clone()], true, fin.expr), line: line_no };
    lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Gt, n.expr, i64c(1)), then: Block { on_gpu: false, stmts: vec![last] }, els: None });
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// Range parts where start and step are whole numbers, else an error (no statements
/// kept from a failed attempt).
fn range_checked(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<index::RangeParts> {
    let (r, stmts) = lw.in_block(|lw| index::range_parts(lw, args, index::RANGE_NOT_INTEGER, line));
    let p = r?;
    // Literal-integer ranges and whole-number bounds take the exact integer path; ranges
    // checked at run time use Octave's general element rule.
    if !stmts.is_empty() && p.bound.is_none() {
        return Err(LErr::NotYet);
    }
    lw.pre_mut().extend(stmts);
    Ok(p)
}

/// `linspace(a, b, n)`: Octave 7's rule (dRowVector.cc): both ends exact, filled from
/// both ends, the middle element (a + b) / 2.
fn linspace(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let vs = values(lw, args)?;
    let mut it = vs.into_iter();
    let a = it.next().expect("arity");
    let b = it.next().expect("arity");
    for v in [&a, &b] {
        if v.ty.rank != 0 || !matches!(v.ty.elem, DOUBLE | LOGICAL | INT32) {
            return Err(lw.unsupported("`linspace`", line, "scalar double endpoints"));
        }
    }
    let a = lw.cast(a, DOUBLE);
    let a = lw.hoist(a);
    let b = lw.cast(b, DOUBLE);
    let b = lw.hoist(b);
    let n = match it.next() {
        Some(n) => count(lw, n, "`linspace`", line)?,
        None => i64c(100),
    };
    let n = lw.hoist(scalar(n, ScalarType::I64));
    let ty = Ty::array(DOUBLE, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    // n < 1 gives 1 x 0; n == 1 gives b.
    let size = lib(LibFn::Max, vec![n.expr.clone(), i64c(0)]);
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: vrir::Expr::Alloc { init: AllocInit::Zeros, ty: ArrayType::new(DOUBLE, 2, lw.layout()), dims: vec![i64c(1), size] } });
    let line_no = Some(lw.line);
    let st = |kind| Stmt { kind, line: line_no };
    let nf = lw.cast(n.clone(), DOUBLE).expr;
    let delta = lw.temp(&vrir::Type::F64);
    let n2 = lw.temp(&vrir::Type::I64);
    let k = lw.temp(&vrir::Type::I64);
    let vk = vrir::Expr::var(&k);
    let kf = vrir::Expr::Cast { to: vrir::Type::F64, arg: Box::new(bin(vrir::BinOp::Sub, vk.clone(), i64c(1))) };
    let set = |n: &str, e: vrir::Expr| StmtKind::Assign { targets: vec![LValue::Var { name: n.to_string() }], value: e };
    let mut many = vec![
        st(set_index(&out, vec![i64c(1)], true, a.expr.clone())),
        st(set_index(&out, vec![n.expr.clone()], true, b.expr.clone())),
        st(set(&delta, bin(vrir::BinOp::Div, bin(vrir::BinOp::Sub, b.expr.clone(), a.expr.clone()), bin(vrir::BinOp::Sub, nf, f64c(1.0))))),
        st(set(&n2, bin(vrir::BinOp::IDiv, n.expr.clone(), i64c(2)))),
    ];
    // for i = 1 .. n2-1 (0-based): r(i) = a + i*delta; r(n-1-i) = b - i*delta.
    let body = vec![
        st(set_index(&out, vec![vk.clone()], true, bin(vrir::BinOp::Add, a.expr.clone(), bin(vrir::BinOp::Mul, kf.clone(), vrir::Expr::var(&delta))))),
        st(set_index(&out, vec![bin(vrir::BinOp::Sub, bin(vrir::BinOp::Add, n.expr.clone(), i64c(1)), vk.clone())], true, bin(vrir::BinOp::Sub, b.expr.clone(), bin(vrir::BinOp::Mul, kf, vrir::Expr::var(&delta))))),
    ];
    many.push(st(StmtKind::For { vars: vec![k], domain: vrir::Expr::Range { start: Some(Box::new(i64c(2))), stop: Some(Box::new(vrir::Expr::var(&n2))), step: None }, body: Block { on_gpu: false, stmts: body } }));
    let middle = bin(vrir::BinOp::Add, vrir::Expr::var(&n2), i64c(1));
    let mid_value = Stmt {
        kind: StmtKind::If {
            cond: bin(vrir::BinOp::Eq, a.expr.clone(), vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(b.expr.clone()) }),
            then: Block { on_gpu: false, stmts: vec![st(set_index(&out, vec![middle.clone()], true, f64c(0.0)))] },
            els: Some(Block { on_gpu: false, stmts: vec![st(set_index(&out, vec![middle], true, bin(vrir::BinOp::Div, bin(vrir::BinOp::Add, a.expr.clone(), b.expr.clone()), f64c(2.0))))] }),
        },
        line: line_no,
    };
    many.push(st(StmtKind::If { cond: bin(vrir::BinOp::Eq, bin(vrir::BinOp::Mod, n.expr.clone(), i64c(2)), i64c(1)), then: Block { on_gpu: false, stmts: vec![mid_value] }, els: None }));
    let one = vec![st(set_index(&out, vec![i64c(1)], true, b.expr.clone()))];
    let big = st(StmtKind::If { cond: bin(vrir::BinOp::Gt, n.expr.clone(), i64c(1)), then: Block { on_gpu: false, stmts: many }, els: None });
    lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Eq, n.expr.clone(), i64c(1)), then: Block { on_gpu: false, stmts: one }, els: Some(Block { on_gpu: false, stmts: vec![big] }) });
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `repmat(A, m, n)` / `repmat(A, [m n])`.
fn repmat(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let a = lw.expr(&args[0].value)?;
    let (m, n) = match &args[1..] {
        [m, n] => {
            let m = lw.expr(&m.value)?;
            let n = lw.expr(&n.value)?;
            (count(lw, m, "`repmat`", line)?, count(lw, n, "`repmat`", line)?)
        }
        [mn] => {
            let v = lw.expr(&mn.value)?;
            if v.ty.rank == 0 {
                let c = count(lw, v, "`repmat`", line)?;
                let c = lw.hoist(scalar(c, ScalarType::I64));
                (c.expr.clone(), c.expr)
            } else {
                let v = lw.hoist(v);
                lw.raise_if(bin(vrir::BinOp::Ne, numel(&v.expr), i64c(2)), REDUCE_MATRIX);
                let e = |k| scalar(vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![i64c(k)], flags: IndexFlags { flatten: true, ..IndexFlags::default() } }, v.ty.elem);
                (count(lw, e(1), "`repmat`", line)?, count(lw, e(2), "`repmat`", line)?)
            }
        }
        _ => unreachable!("arity"),
    };
    let m = lw.hoist(scalar(m, ScalarType::I64));
    let n = lw.hoist(scalar(n, ScalarType::I64));
    let elem = a.ty.elem;
    if a.ty.rank == 0 {
        return Ok(alloc(lw, AllocInit::Fill { value: Box::new(a.expr) }, elem, vec![m.expr, n.expr]));
    }
    if a.ty.rank != 2 {
        return Err(lw.unsupported("`repmat`", line, "of an array of more than two dimensions"));
    }
    let a = lw.hoist(a);
    let (r, c) = (dim(&a.expr, 0), dim(&a.expr, 1));
    let ty = Ty::array(elem, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![bin(vrir::BinOp::Mul, r.clone(), m.expr.clone()), bin(vrir::BinOp::Mul, c.clone(), n.expr.clone())] });
    counted_loop(lw, n.expr.clone(), |lw, j| {
        counted_loop(lw, m.expr.clone(), |lw, i| {
            let span = |k: vrir::Expr, e: vrir::Expr| vrir::Expr::Range {
                start: Some(Box::new(bin(vrir::BinOp::Add, bin(vrir::BinOp::Mul, bin(vrir::BinOp::Sub, k.clone(), i64c(1)), e.clone()), i64c(1)))),
                stop: Some(Box::new(bin(vrir::BinOp::Mul, k, e))),
                step: None,
            };
            lw.emit(set_index(&out, vec![span(i, r.clone()), span(j.clone(), c.clone())], false, a.expr.clone()));
            Ok(())
        })
    })?;
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `reshape(A, m, n)`, `reshape(A, [m n])`, `reshape(A, m, [])`.
fn reshape(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let a = lw.expr(&args[0].value)?;
    let a = if a.ty.rank == 0 { one_by_one(lw, a) } else { a };
    let a = lw.hoist(a);
    let total = numel(&a.expr);
    let is_empty_matrix = |e: &Expr| matches!(&e.kind, ExprKind::Call { func, args } if func == "zeros" && args.len() == 2 && args.iter().all(|x| matches!(x.value.kind, ExprKind::Double(v) if v == 0.0)));
    let (m, n) = match &args[1..] {
        [m, n] if is_empty_matrix(&n.value) => {
            let m = lw.expr(&m.value)?;
            let m = count(lw, m, "`reshape`", line)?;
            let m = lw.hoist(scalar(m, ScalarType::I64));
            lw.raise_if(bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, m.expr.clone(), i64c(0)), bin(vrir::BinOp::Ne, bin(vrir::BinOp::Mod, total.clone(), lib(LibFn::Max, vec![m.expr.clone(), i64c(1)])), i64c(0))), RESHAPE_COUNT);
            let n = bin(vrir::BinOp::IDiv, total.clone(), lib(LibFn::Max, vec![m.expr.clone(), i64c(1)]));
            (m.expr, n)
        }
        [m, n] => {
            let m = lw.expr(&m.value)?;
            let n = lw.expr(&n.value)?;
            (count(lw, m, "`reshape`", line)?, count(lw, n, "`reshape`", line)?)
        }
        [mn] => {
            let v = lw.expr(&mn.value)?;
            if v.ty.rank == 0 {
                return Err(lw.unsupported("`reshape`", line, "give two dimensions"));
            }
            let v = lw.hoist(v);
            lw.raise_if(bin(vrir::BinOp::Ne, numel(&v.expr), i64c(2)), REDUCE_MATRIX);
            let e = |k| scalar(vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![i64c(k)], flags: IndexFlags { flatten: true, ..IndexFlags::default() } }, v.ty.elem);
            (count(lw, e(1), "`reshape`", line)?, count(lw, e(2), "`reshape`", line)?)
        }
        _ => return Err(lw.unsupported("`reshape`", line, "to more than two dimensions")),
    };
    let m = lw.hoist(scalar(m, ScalarType::I64));
    let n = lw.hoist(scalar(n, ScalarType::I64));
    lw.raise_if(bin(vrir::BinOp::Ne, bin(vrir::BinOp::Mul, m.expr.clone(), n.expr.clone()), total), RESHAPE_COUNT);
    let elem = a.ty.elem;
    Ok(reshape2(lw, flat(&a), elem, m.expr, n.expr))
}

/// `find(x)`: the positions of the nonzero elements (a row for a row vector, else a
/// column).
fn find(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let v = lw.expr(&args[0].value)?;
    let v = if v.ty.rank == 0 { one_by_one(lw, v) } else { v };
    if v.ty.rank != 2 {
        return Err(lw.unsupported("`find`", line, "of an array of more than two dimensions"));
    }
    let nz = ops::to_logical(lw, v.clone(), line).map_err(|_| lw.unsupported("`find`", line, "of this class"))?;
    let nz = lw.hoist(nz);
    let cnt = lw.cast(nz.clone(), ScalarType::I64);
    let cnt = lw.hoist(scalar(vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(cnt.expr), axis: None, acc: None }, ScalarType::I64));
    let row = bin(vrir::BinOp::Eq, dim(&nz.expr, 0), i64c(1));
    let row = lw.hoist(scalar(row, LOGICAL));
    let pick = |c: vrir::Expr, n: &vrir::Expr| bin(vrir::BinOp::Add, i64c(1), bin(vrir::BinOp::Mul, vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(c) }, bin(vrir::BinOp::Sub, n.clone(), i64c(1))));
    let ty = Ty::array(DOUBLE, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![pick(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(row.expr.clone()) }, &cnt.expr), pick(row.expr, &cnt.expr)] });
    let at = lw.temp(&vrir::Type::I64);
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: at.clone() }], value: i64c(0) });
    let line_no = Some(lw.line);
    counted_loop(lw, numel(&nz.expr), |lw, k| {
        let hit = vrir::Expr::Index { array: Box::new(nz.expr.clone()), indices: vec![k.clone()], flags: IndexFlags { flatten: true, ..IndexFlags::default() } };
        let kf = vrir::Expr::Cast { to: vrir::Type::F64, arg: Box::new(k) };
        let stmts = vec![
            Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: at.clone() }], value: bin(vrir::BinOp::Add, vrir::Expr::var(&at), i64c(1)) }, line: line_no },
            Stmt { kind: set_index(&out, vec![vrir::Expr::var(&at)], true, kf), line: line_no },
        ];
        lw.emit(StmtKind::If { cond: hit, then: Block { on_gpu: false, stmts }, els: None });
        Ok(())
    })?;
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `size(A)`: a row of its dimensions.
fn size_row(lw: &mut Lowerer, a: Lowered) -> Lowered {
    let rank = a.ty.rank.max(2);
    let ty = Ty::array(DOUBLE, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![i64c(1), i64c(rank as i64)] });
    let a = lw.hoist(a);
    for k in 0..rank {
        let d = if a.ty.rank == 0 { i64c(1) } else { dim(&a.expr, k) };
        let d = lw.cast(scalar(d, ScalarType::I64), DOUBLE).expr;
        lw.emit(set_index(&out, vec![i64c(k as i64 + 1)], true, d));
    }
    Lowered::new(vrir::Expr::var(out), ty)
}

/// Dimension `k` (0-based) of `a` as a double (1 past its rank).
fn dim_of(lw: &mut Lowerer, a: &Lowered, k: u32) -> Lowered {
    let d = if k < a.ty.rank { dim(&a.expr, k) } else { i64c(1) };
    lw.cast(scalar(d, ScalarType::I64), DOUBLE)
}

/// A call of a builtin; None when `name` is none the compiler knows.
pub fn call(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
    let r = match name {
        "pi" | "Inf" | "inf" | "NaN" | "nan" | "eps" | "i" | "j" | "I" | "J" | "true" | "false" if args.is_empty() => {
            let v = match name {
                "pi" => scalar(f64c(std::f64::consts::PI), DOUBLE),
                "Inf" | "inf" => scalar(f64c(f64::INFINITY), DOUBLE),
                "NaN" | "nan" => scalar(f64c(f64::NAN), DOUBLE),
                "eps" => scalar(f64c(f64::EPSILON), DOUBLE),
                "true" => scalar(vrir::Expr::lit(Literal::Bool(true)), LOGICAL),
                "false" => scalar(vrir::Expr::lit(Literal::Bool(false)), LOGICAL),
                _ => scalar(vrir::Expr::lit(Literal::C128([0.0, 1.0])), COMPLEX),
            };
            Ok(v)
        }
        "nargin" if args.is_empty() => Ok(scalar(f64c(lw.given_arguments() as f64), DOUBLE)),
        "zeros" | "ones" | "true" | "false" | "Inf" | "inf" | "NaN" | "nan" => (|| {
            let default = if matches!(name, "true" | "false") { LOGICAL } else { DOUBLE };
            let (dims, elem) = dims_and_class(lw, name, args, default, line)?;
            let init = match name {
                "zeros" | "false" => AllocInit::Zeros,
                "ones" | "true" => AllocInit::Ones,
                "Inf" | "inf" => AllocInit::Fill { value: Box::new(f64c(f64::INFINITY)) },
                _ => AllocInit::Fill { value: Box::new(f64c(f64::NAN)) },
            };
            let init = match (init, elem) {
                (AllocInit::Ones, e) => AllocInit::Fill { value: Box::new(fill_value(e, true)) },
                (i, _) => i,
            };
            Ok(alloc(lw, init, elem, dims))
        })(),
        "eye" => (|| {
            let (dims, elem) = dims_and_class(lw, name, args, DOUBLE, line)?;
            if dims.len() != 2 {
                return Err(lw.unsupported("`eye`", line, "more than two dimensions"));
            }
            let r = lw.hoist(scalar(dims[0].clone(), ScalarType::I64));
            let c = lw.hoist(scalar(dims[1].clone(), ScalarType::I64));
            let ty = Ty::array(elem, 2);
            let out = lw.temp(&ty.vrir(lw.layout()));
            lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: vrir::Expr::Alloc { init: AllocInit::Zeros, ty: ArrayType::new(elem, 2, lw.layout()), dims: vec![r.expr.clone(), c.expr.clone()] } });
            counted_loop(lw, lib(LibFn::Min, vec![r.expr, c.expr]), |lw, k| {
                lw.emit(set_index(&out, vec![k.clone(), k], false, fill_value(elem, true)));
                Ok(())
            })?;
            Ok(Lowered::new(vrir::Expr::var(out), ty))
        })(),
        "size" => (|| {
            arity(lw, name, args, &[1, 2], line)?;
            let a = lw.expr(&args[0].value)?;
            match args.get(1) {
                None => Ok(size_row(lw, a)),
                Some(k) => match k.value.kind {
                    ExprKind::Double(k) if k >= 1.0 && k.fract() == 0.0 => {
                        let a = lw.hoist(a);
                        Ok(dim_of(lw, &a, k as u32 - 1))
                    }
                    _ => Err(lw.unsupported("`size(A, k)`", line, "a dimension k that is not a literal whole number")),
                },
            }
        })(),
        "numel" | "length" | "ndims" | "isempty" | "isscalar" | "isvector" | "rows" | "columns" => (|| {
            arity(lw, name, args, &[1], line)?;
            let a = lw.expr(&args[0].value)?;
            if a.ty.rank == 0 {
                return Ok(match name {
                    "isempty" => scalar(vrir::Expr::lit(Literal::Bool(false)), LOGICAL),
                    "isscalar" | "isvector" => scalar(vrir::Expr::lit(Literal::Bool(true)), LOGICAL),
                    "ndims" => scalar(f64c(2.0), DOUBLE),
                    _ => scalar(f64c(1.0), DOUBLE),
                });
            }
            let a = lw.hoist(a);
            let n = numel(&a.expr);
            Ok(match name {
                "numel" => lw.cast(scalar(n, ScalarType::I64), DOUBLE),
                "ndims" => scalar(f64c(a.ty.rank as f64), DOUBLE),
                "isempty" => scalar(bin(vrir::BinOp::Eq, n, i64c(0)), LOGICAL),
                "isscalar" => scalar(bin(vrir::BinOp::Eq, n, i64c(1)), LOGICAL),
                "isvector" => {
                    let v = bin(vrir::BinOp::And, bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, dim(&a.expr, 0), i64c(1)), bin(vrir::BinOp::Eq, dim(&a.expr, 1), i64c(1))), bin(vrir::BinOp::Ge, n, i64c(1)));
                    scalar(if a.ty.rank == 2 { v } else { vrir::Expr::lit(Literal::Bool(false)) }, LOGICAL)
                }
                "rows" => dim_of(lw, &a, 0),
                "columns" => dim_of(lw, &a, 1),
                _ => {
                    // length: 0 when empty, else the largest dimension.
                    let mut m = dim(&a.expr, 0);
                    for k in 1..a.ty.rank {
                        m = lib(LibFn::Max, vec![m, dim(&a.expr, k)]);
                    }
                    let m = bin(vrir::BinOp::Mul, m, vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(bin(vrir::BinOp::Gt, n, i64c(0))) });
                    lw.cast(scalar(m, ScalarType::I64), DOUBLE)
                }
            })
        })(),
        "sum" | "prod" | "mean" | "max" | "min" | "any" | "all" if args.len() == 1 => reduce_all(lw, name, args, line),
        "sum" | "prod" | "mean" if args.len() == 2 => (|| {
            let v = lw.expr(&args[0].value)?;
            reduce_dim(lw, name, v, &args[1], line)
        })(),
        "max" | "min" | "atan2" | "mod" | "rem" if args.len() == 2 => (|| {
            let a = lw.expr(&args[0].value)?;
            let b = lw.expr(&args[1].value)?;
            math2(lw, name, a, b, line)
        })(),
        "cumsum" | "cumprod" => (|| {
            arity(lw, name, args, &[1], line)?;
            let v = lw.expr(&args[0].value)?;
            scan(lw, name, v, line)
        })(),
        "norm" => (|| {
            arity(lw, name, args, &[1, 2], line)?;
            norm(lw, args, line)
        })(),
        "dot" => (|| {
            arity(lw, name, args, &[2], line)?;
            let a = lw.expr(&args[0].value)?;
            let b = lw.expr(&args[1].value)?;
            if a.ty.elem == COMPLEX || b.ty.elem == COMPLEX {
                return Err(lw.unsupported("`dot`", line, "of complex vectors"));
            }
            let a = reduce_operand(lw, a, "`dot`", line)?;
            let b = reduce_operand(lw, b, "`dot`", line)?;
            let a = if a.ty.rank == 0 { one_by_one(lw, a) } else { a };
            let b = if b.ty.rank == 0 { one_by_one(lw, b) } else { b };
            let a = lw.hoist(a);
            let b = lw.hoist(b);
            require_vector(lw, &a, true);
            require_vector(lw, &b, true);
            lw.raise_if(bin(vrir::BinOp::Ne, numel(&a.expr), numel(&b.expr)), VECTOR_LENGTHS);
            let prod = bin(vrir::BinOp::Mul, flat(&a), flat(&b));
            Ok(scalar(vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(prod), axis: None, acc: None }, DOUBLE))
        })(),
        "abs" | "sqrt" | "exp" | "log" | "log10" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" | "floor" | "ceil" | "fix" | "round" | "real" | "imag" | "conj" | "isnan" | "isinf" | "isfinite" | "sign" => (|| {
            arity(lw, name, args, &[1], line)?;
            let v = lw.expr(&args[0].value)?;
            math1(lw, name, v, line)
        })(),
        "power" | "times" | "plus" | "minus" | "rdivide" => (|| {
            arity(lw, name, args, &[2], line)?;
            let a = lw.expr(&args[0].value)?;
            let b = lw.expr(&args[1].value)?;
            let op = match name {
                "power" => BinOp::Pow,
                "times" => BinOp::Mul,
                "plus" => BinOp::Add,
                "minus" => BinOp::Sub,
                _ => BinOp::Div,
            };
            ops::arith(lw, op, a, b, line)
        })(),
        "mtimes" | "mrdivide" | "mldivide" | "ldivide" | "mpower" => (|| {
            arity(lw, name, args, &[2], line)?;
            let a = lw.expr(&args[0].value)?;
            let b = lw.expr(&args[1].value)?;
            match name {
                "mtimes" => ops::mtimes(lw, a, b, line),
                "mrdivide" => ops::mrdivide(lw, a, b, line),
                "mldivide" => ops::mldivide(lw, a, b, line),
                "ldivide" => ops::arith(lw, BinOp::Div, b, a, line),
                _ => ops::mpower(lw, a, b, line),
            }
        })(),
        "complex" => (|| {
            arity(lw, name, args, &[2], line)?;
            let a = lw.expr(&args[0].value)?;
            let b = lw.expr(&args[1].value)?;
            for v in [&a, &b] {
                if !matches!(v.ty.elem, DOUBLE | LOGICAL | INT32) {
                    return Err(lw.unsupported("`complex`", line, "of values that are not real"));
                }
            }
            ops::elementwise(lw, a, b, "`complex`", line, &|lw, a, b| {
                let rank = a.ty.rank.max(b.ty.rank);
                let (a, b) = (lw.cast(a, DOUBLE), lw.cast(b, DOUBLE));
                Ok(Lowered::new(lib(LibFn::Complex, vec![a.expr, b.expr]), Ty::array(COMPLEX, rank)))
            })
        })(),
        "ctranspose" | "transpose" => (|| {
            arity(lw, name, args, &[1], line)?;
            let a = lw.expr(&args[0].value)?;
            ops::transpose(lw, a, name == "ctranspose", line)
        })(),
        "horzcat" | "vertcat" => concat(lw, args, name == "vertcat", line),
        "colon" => colon_value(lw, args, line),
        "linspace" => (|| {
            arity(lw, name, args, &[2, 3], line)?;
            linspace(lw, args, line)
        })(),
        "repmat" => (|| {
            arity(lw, name, args, &[2, 3], line)?;
            repmat(lw, args, line)
        })(),
        "reshape" => (|| {
            arity(lw, name, args, &[2, 3], line)?;
            reshape(lw, args, line)
        })(),
        "find" => (|| {
            arity(lw, name, args, &[1], line)?;
            find(lw, args, line)
        })(),
        "double" | "int32" | "int64" | "logical" => (|| {
            arity(lw, name, args, &[1], line)?;
            let v = lw.expr(&args[0].value)?;
            match name {
                "double" => Ok(real_or_complex(lw, v)),
                "int32" => {
                    if v.ty.elem == COMPLEX {
                        return Err(lw.unsupported("`int32`", line, "of a complex value"));
                    }
                    if v.ty.elem == INT64 {
                        // Saturated at the int32 range (exact in double: the int64 is
                        // rounded, which cannot cross the int32 bounds).
                        let d = lw.cast(v, DOUBLE);
                        return Ok(ops::to_int32(lw, d));
                    }
                    Ok(if v.ty.elem == INT32 { v } else { ops::to_int32(lw, v) })
                }
                "int64" => {
                    if v.ty.elem == COMPLEX {
                        return Err(lw.unsupported("`int64`", line, "of a complex value"));
                    }
                    Ok(ops::to_int64(lw, v))
                }
                _ => ops::to_logical(lw, v, line),
            }
        })(),
        "int8" | "int16" | "uint8" | "uint16" | "uint32" => (|| {
            arity(lw, name, args, &[1], line)?;
            let c = IntClass::from_name(name).expect("a class name");
            let v = lw.expr(&args[0].value)?;
            if !matches!(v.ty.elem, DOUBLE | LOGICAL) && v.ty.class.is_none() {
                return Err(lw.unsupported(&format!("`{name}`"), line, &format!("of a {} value (double, logical and the integer classes int8 to uint32 convert)", ops::class_name(v.ty.elem))));
            }
            Ok(ops::to_class(lw, v, c))
        })(),
        "intmax" | "intmin" if args.len() == 1 && string_arg(&args[0]).and_then(IntClass::from_name).is_some() => (|| {
            let c = string_arg(&args[0]).and_then(IntClass::from_name).expect("a class name");
            let (lo, hi) = c.bounds();
            let v = Lowered::new(vrir::Expr::f64(if name == "intmax" { hi } else { lo }), Ty::scalar(DOUBLE));
            Ok(ops::to_class(lw, v, c))
        })(),
        "intmax" | "intmin" => (|| {
            if args.len() == 1 && string_arg(&args[0]) == Some("int64") {
                return Ok(scalar(vrir::Expr::lit(Literal::I64(if name == "intmax" { i64::MAX } else { i64::MIN })), INT64));
            }
            if !(args.is_empty() || (args.len() == 1 && string_arg(&args[0]) == Some("int32"))) {
                return Err(lw.unsupported(&format!("`{name}`"), line, "of a class other than int32 and int64"));
            }
            Ok(scalar(vrir::Expr::lit(Literal::I32(if name == "intmax" { i32::MAX } else { i32::MIN })), INT32))
        })(),
        "rand" | "randn" | "randi" | "randperm" => Err(lw.unsupported(&format!("`{name}`"), line, "random numbers (Octave's generator and its state stay in Octave)")),
        "disp" | "fprintf" | "printf" | "sprintf" | "display" | "num2str" | "fflush" | "puts" | "fdisp" => Err(lw.unsupported(&format!("`{name}`"), line, "output (printing) runs in Octave")),
        "tic" | "toc" | "clock" | "cputime" | "etime" => Err(lw.unsupported(&format!("`{name}`"), line, "timing runs in Octave")),
        // The front end's own helpers.
        "__vr_end" => index::end_value(lw, args, line),
        "__vr_integral" => lw.expr(&args[0].value),
        "__vr_loopvar" => (|| {
            let v = lw.expr(&args[0].value)?;
            Ok(if matches!(v.ty.elem, INT32 | ScalarType::I64) { lw.cast(v, DOUBLE) } else { v })
        })(),
        "__vr_as_count" => (|| {
            // A count (`numel(x)`, `size(A, 1)`, ...) kept as an integer variable.
            let Some(n) = index::int_expr(lw, &args[0].value)? else {
                return Err(lw.unsupported("`__vr_as_count`", line, "internal: not a count"));
            };
            Ok(scalar(n, ScalarType::I64))
        })(),
        "__vr_grows" => Err(lw.unsupported("`__vr_grows`", line, "internal: only as the value of an indexed assignment")),
        "__vr_matrix" => (|| {
            let v = lw.expr(&args[0].value)?;
            Ok(one_by_one(lw, v))
        })(),
        NONEMPTY_RANGE => (|| {
            let seq = &args[0].value;
            let empty = match builtin_call(lw, seq, "colon") {
                Some(parts) if !super::rules::fractional_range(parts) => {
                    let p = index::range_parts(lw, parts, index::RANGE_NOT_INTEGER, line)?;
                    bin(vrir::BinOp::Eq, p.count, i64c(0))
                }
                _ => {
                    let v = lw.expr(seq)?;
                    bin(vrir::BinOp::Eq, numel(&v.expr), i64c(0))
                }
            };
            lw.raise_if(empty, EMPTY_LOOP);
            Ok(scalar(vrir::Expr::lit(Literal::Bool(true)), LOGICAL))
        })(),
        COLUMNS_SOURCE => (|| {
            // The array itself: the engine evaluates it once and asks `columns_loop` for
            // the turns (a scalar makes one turn, as in MATLAB).
            let v = lw.expr(&args[0].value)?;
            if v.ty.rank > 2 {
                return Err(lw.unsupported("`for` over an array", line, "of more than two dimensions"));
            }
            Ok(v)
        })(),
        "__vr_count" => (|| {
            let a = lw.expr(&args[0].value)?;
            let b = lw.expr(&args[1].value)?;
            if a.ty.rank != 0 || b.ty.rank != 0 {
                return Err(lw.unsupported("`parfor` range", line, "scalar bounds"));
            }
            let a = lw.cast(a, DOUBLE);
            let a = lw.hoist(a);
            let b = lw.cast(b, DOUBLE);
            let whole = bin(vrir::BinOp::Eq, lib(LibFn::Floor, vec![a.expr.clone()]), a.expr.clone());
            lw.raise_if(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(whole) }, index::RANGE_NOT_INTEGER);
            let n = bin(vrir::BinOp::Add, bin(vrir::BinOp::Sub, lib(LibFn::Floor, vec![b.expr]), a.expr), f64c(1.0));
            let n = lib(LibFn::Max, vec![n, f64c(0.0)]);
            Ok(lw.cast(scalar(n, DOUBLE), ScalarType::I64))
        })(),
        "__vr_case" => (|| {
            let s = lw.expr(&args[0].value)?;
            let v = lw.expr(&args[1].value)?;
            if s.ty.rank != 0 || v.ty.rank != 0 {
                return Err(lw.unsupported("`switch`", line, "on a value that is not a scalar"));
            }
            ops::compare(lw, BinOp::Eq, s, v, line)
        })(),
        _ => return None,
    };
    Some(r)
}

/// Builtins called for several results: `[r, c] = size(A)`, `[m, k] = max(v)`.
pub fn multi(lw: &mut Lowerer, name: &str, args: &[Arg], nout: usize, line: Line) -> Option<LResult<Vec<Lowered>>> {
    let r = match name {
        "size" => (|| {
            arity(lw, name, args, &[1], line)?;
            let a = lw.expr(&args[0].value)?;
            let a = lw.hoist(a);
            let mut out = Vec::new();
            for k in 0..nout as u32 {
                if k + 1 == nout as u32 && a.ty.rank > nout as u32 {
                    // The last output: the product of the remaining dimensions.
                    let mut p = dim(&a.expr, k);
                    for j in k + 1..a.ty.rank {
                        p = bin(vrir::BinOp::Mul, p, dim(&a.expr, j));
                    }
                    out.push(lw.cast(scalar(p, ScalarType::I64), DOUBLE));
                } else {
                    out.push(dim_of(lw, &a, k));
                }
            }
            Ok(out)
        })(),
        "__vr_size_count" => (|| {
            // `[m, n] = size(A)` into integer count variables (`resolve`).
            let a = lw.expr(&args[0].value)?;
            let a = lw.hoist(a);
            let mut out = Vec::new();
            for k in 0..nout as u32 {
                let mut d = if k < a.ty.rank { dim(&a.expr, k) } else { i64c(1) };
                if k + 1 == nout as u32 {
                    for j in k + 1..a.ty.rank {
                        d = bin(vrir::BinOp::Mul, d, dim(&a.expr, j));
                    }
                }
                out.push(scalar(d, ScalarType::I64));
            }
            Ok(out)
        })(),
        "max" | "min" if nout == 2 => (|| {
            arity(lw, name, args, &[1], line)?;
            let v = lw.expr(&args[0].value)?;
            if v.ty.rank > 0 {
                let v = lw.hoist(v);
                require_vector(lw, &v, false);
                let (m, at) = extreme_of(lw, name, v, line)?;
                return Ok(vec![m, at]);
            }
            let (m, at) = extreme_of(lw, name, v, line)?;
            Ok(vec![m, at])
        })(),
        _ => return None,
    };
    Some(r)
}

/// The turns of `for c = M` over `array` (M of rank 2, evaluated once before the loop,
/// Octave's pt-eval.cc): with `over_columns`, one per column, `c = M(:, k)` (a
/// column array; M with no rows or no columns makes no turn and `c` is M itself).
/// Otherwise one per element with `c` a scalar, for a row only (a matrix of several
/// rows raises `COLUMNS_LOOP`), and a loop of no turn raises `EMPTY_LOOP` when `c` is
/// read outside the loop (Octave makes it the empty array, which a scalar cannot be).
pub fn columns_loop(lw: &mut Lowerer, array: &Lowered, counter: &str, read_outside: bool, over_columns: bool, line: Line) -> ArrayLoop {
    let _ = line;
    let (rows, cols) = (dim(&array.expr, 0), dim(&array.expr, 1));
    if over_columns {
        // Columns times min(rows, 1): no turn when there are no rows.
        let turns = bin(vrir::BinOp::Mul, cols, lib(LibFn::Min, vec![rows, i64c(1)]));
        let k = vrir::Expr::var(counter);
        let column = vrir::Expr::Range { start: Some(Box::new(k.clone())), stop: Some(Box::new(k)), step: None };
        let all = vrir::Expr::Range { start: None, stop: None, step: None };
        let value = vrir::Expr::Index { array: Box::new(array.expr.clone()), indices: vec![all, column], flags: vrir::IndexFlags::default() };
        return ArrayLoop { turns, value, ty: array.ty, when_empty: Some(array.expr.clone()) };
    }
    let one_row = bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, rows, i64c(1)), bin(vrir::BinOp::Eq, cols, i64c(0)));
    lw.raise_if(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(one_row) }, COLUMNS_LOOP);
    let turns = ops::numel(&array.expr);
    if read_outside {
        lw.raise_if(bin(vrir::BinOp::Eq, turns.clone(), i64c(0)), EMPTY_LOOP);
    }
    let value = vrir::Expr::Index { array: Box::new(array.expr.clone()), indices: vec![vrir::Expr::var(counter)], flags: vrir::IndexFlags { flatten: true, ..vrir::IndexFlags::default() } };
    ArrayLoop { turns, value, ty: Ty::scalar(array.ty.elem), when_empty: None }
}
