//! Julia's library, mapped onto VRIR: sizes, constructors, conversions, elementary
//! functions (with Julia's `DomainError`s where VRIR would give NaN), reductions,
//! broadcasting (`f.(x)`, `.+`, `x .= v`), array literals and comprehensions, and the
//! front end's own forms (`#...`, see `desugar`). A function Julia defines on scalars
//! only (`sin`, `abs`, `Float64`) is refused on an array unless it is broadcast
//! (`sin.(x)`): on a matrix Julia's `exp`, `sqrt` and `^` are matrix functions.

use super::ops::{self, Op};
use super::rules::{bin, i64c, lib, scalar_type, to_count, BOOL, COMPLEX, FLOAT, INT};
use super::types as jtypes;
use crate::frontend::hir::{Arg, Expr, ExprKind, Line};
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::types::Ty;
use crate::vrir::{self, AllocInit, ArrayType, IndexFlags, LValue, LibFn, Literal, ReduceOp, ScalarType, StmtKind};

/// Reasons of the run-time checks raised here (messages in `rules`).
pub const DOMAIN_SQRT: &str = "domain_sqrt";
pub const DOMAIN_LOG: &str = "domain_log";
pub const DOMAIN_TRIG: &str = "domain_trig";
pub const DOMAIN_ASIN: &str = "domain_asin";
pub const INEXACT: &str = "inexact";
pub const EMPTY_FOLD: &str = "empty_fold";
pub const DIMENSION_MISMATCH: &str = "dimension_mismatch";
pub const NEGATIVE_DIMS: &str = "negative_dims";

type R = LResult<Lowered>;

fn sc(e: vrir::Expr, t: ScalarType) -> Lowered {
    Lowered::new(e, Ty::scalar(t))
}

fn atype(lw: &Lowerer, elem: ScalarType, rank: u32) -> ArrayType {
    ArrayType::new(elem, rank, lw.layout())
}

fn all_range() -> vrir::Expr {
    vrir::Expr::Range { start: None, stop: None, step: None }
}

/// Positional arguments only, `min..=max` of them.
fn positional<'a>(lw: &Lowerer, name: &str, args: &'a [Arg], min: usize, max: usize, line: Line) -> LResult<Vec<&'a Expr>> {
    if let Some(a) = args.iter().find(|a| a.name.is_some()) {
        return Err(lw.unsupported(&format!("keyword argument `{}` of `{name}`", a.name.as_deref().unwrap_or("")), line, "not compiled"));
    }
    if args.len() < min || args.len() > max {
        let want = if min == max { format!("{min}") } else { format!("{min} to {max}") };
        return Err(lw.unsupported(&format!("call to `{name}` with {} argument(s)", args.len()), line, &format!("compiled with {want}")));
    }
    Ok(args.iter().map(|a| &a.value).collect())
}

/// A type name given as an argument (`zeros(Int, n)`).
fn type_arg(e: &Expr) -> Option<ScalarType> {
    match &e.kind {
        ExprKind::Var(n) => scalar_type(n),
        _ => None,
    }
}

/// Names Julia users reach for that compiled code does not offer, with the reason.
fn known_unsupported(name: &str) -> Option<&'static str> {
    Some(match name {
        "map" | "map!" | "broadcast" | "broadcast!" | "reduce" | "foldl" | "foldr" | "mapreduce" | "filter" | "filter!" | "foreach" | "sort" | "sort!"
        | "findall" | "findfirst" => "higher-order and sorting functions do not compile; write the loop (or broadcast a named function, `f.(x)`)",
        "norm" | "inv" | "det" | "\\" | "lu" | "qr" | "svd" | "eigen" | "cholesky" | "kron" => {
            "linear algebra beyond `*`, `dot` and `transpose` does not compile"
        }
        "string" | "repr" | "print" | "println" | "show" | "sprintf" | "parse" | "join" => "strings and printing do not compile",
        "Dict" | "Set" | "Tuple" | "NamedTuple" | "Ref" | "tuple" => "containers other than arrays do not compile",
        "nthreads" | "threadid" | "Threads.nthreads" | "Threads.threadid" => "thread queries do not compile (parallel loops are `Threads.@threads for`)",
        "reshape" | "vec" | "permutedims" | "view" | "selectdim" => "arrays that share another array's memory do not compile (their copies could differ)",
        "log2" | "exp2" | "log1p" | "expm1" | "cbrt" | "sinpi" | "cospi" | "exp10" | "sincos" => "this elementary function is not in the compiled library",
        "range" | "LinRange" | "StepRangeLen" => "float ranges compute their elements in extended precision in Julia; write an integer range",
        "isapprox" | "≈" => "isapprox does not compile",
        _ => return None,
    })
}

pub fn call(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<R> {
    if let Some(op) = name.strip_prefix('.').filter(|o| !o.is_empty()) {
        return Some(dotted_operator(lw, op, args, line));
    }
    if let Some(r) = internal(lw, name, args, line) {
        return Some(r);
    }
    if let Some(reason) = known_unsupported(name) {
        return Some(Err(lw.unsupported(&format!("call to `{name}`"), line, reason)));
    }
    library(lw, name, args, line, false)
}

/// `.+`, `.-x`, `.!x`, `.%` ...: element-wise operators.
fn dotted_operator(lw: &mut Lowerer, op: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, &format!(".{op}"), args, 1, 2, line)?;
    if xs.len() == 1 {
        let a = lw.expr(xs[0])?;
        return ops::unary(lw, op, a, true, line);
    }
    let Some(o) = Op::from_name(op) else {
        return Err(lw.unsupported(&format!("operator `.{op}`"), line, "not compiled"));
    };
    let a = lw.expr(xs[0])?;
    let b = lw.expr(xs[1])?;
    ops::binary(lw, o, a, b, true, line)
}

/// The front end's own forms.
fn internal(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<R> {
    Some(match name {
        "#int" => match args.first().map(|a| &a.value.kind) {
            Some(ExprKind::Str(d)) => match d.parse::<i64>() {
                Ok(v) => Ok(sc(i64c(v), INT)),
                Err(_) => Err(lw.unsupported("integer literal", line, "beyond Int64")),
            },
            _ => Err(lw.unsupported("integer literal", line, "malformed")),
        },
        "#dot" => broadcast_call(lw, args, line),
        "#dotassign" => dot_assign(lw, args, line),
        "#vect" => concat(lw, "vect", args, line),
        "#vcat" => concat(lw, "vcat", args, line),
        "#hcat" => hcat(lw, args, line),
        "#hvcat" => hvcat(lw, args, line),
        "#typed" => typed(lw, args, line),
        "#comp_alloc" => comp_alloc(lw, args, line),
        "#count" => match args.first() {
            Some(a) => count_of(lw, &a.value, line).map(|n| sc(n, INT)),
            None => Err(lw.unsupported("#count", line, "malformed")),
        },
        "#view" => match args.first() {
            Some(a) => lw.expr(&a.value),
            None => Err(lw.unsupported("`@view`", line, "malformed")),
        },
        "#argtype" => arg_type_check(lw, args, line),
        "#empty_fold" => {
            lw.raise_if(vrir::Expr::lit(Literal::Bool(true)), EMPTY_FOLD);
            Ok(ops::bool_const(true))
        }
        "#convert_to" => convert_to(lw, args, line),
        "#range" => match super::ranges::seq(lw, &Expr::new(ExprKind::Call { func: name.into(), args: args.to_vec() }, line)) {
            Some(p) => p.and_then(|p| lw.materialize(p)),
            None => Err(lw.unsupported("range", line, "malformed")),
        },
        "#generator" => {
            Err(lw.unsupported("generator", line, "a generator compiles as the argument of sum, prod, maximum, minimum, any, all or count, or in brackets"))
        }
        "#end" => Err(lw.unsupported("`end`", line, "outside an index")),
        _ => return None,
    })
}

/// A library function; `dotted`: called by broadcast (`f.(x)`).
fn library(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line, dotted: bool) -> Option<R> {
    if let Some(op) = Op::from_name(name).filter(|_| matches!(name, "div" | "rem" | "mod" | "fld" | "cld" | "xor" | "<<" | ">>" | ">>>")) {
        return Some((|| {
            let xs = positional(lw, name, args, 2, 2, line)?;
            let a = lw.expr(xs[0])?;
            let b = lw.expr(xs[1])?;
            ops::binary(lw, op, a, b, dotted, line)
        })());
    }
    let r = match name {
        "===" | "!==" => identity_compare(lw, name, args, line),
        "~" => positional(lw, name, args, 1, 1, line).and_then(|xs| {
            let a = lw.expr(xs[0])?;
            ops::unary(lw, "~", a, dotted, line)
        }),
        "length" | "lastindex" | "firstindex" | "size" | "ndims" | "isempty" | "eachindex" if !dotted => sizes(lw, name, args, line),
        "zeros" | "ones" | "fill" | "similar" | "zero" | "one" | "copy" | "deepcopy" | "collect" | "reverse" if !dotted => constructor(lw, name, args, line),
        "typemax" | "typemin" | "eps" | "floatmax" | "floatmin" if !dotted => limits(lw, name, args, line),
        "sum" | "prod" | "maximum" | "minimum" | "any" | "all" | "count" | "mean" | "cumsum" | "cumprod" | "dot" if !dotted => reduction(lw, name, args, line),
        "adjoint" | "transpose" if !dotted => transpose(lw, name, args, line),
        "identity" => positional(lw, name, args, 1, 1, line).and_then(|xs| lw.expr(xs[0])),
        "Float64" | "float" | "Int" | "Int64" | "Bool" | "ComplexF64" | "complex" | "convert" | "oftype" => conversion(lw, name, args, line, dotted),
        "round" | "floor" | "ceil" | "trunc" => rounding(lw, name, args, line, dotted),
        "sqrt" | "exp" | "log" | "log10" | "sin" | "cos" | "tan" | "asin" | "acos" | "sinh" | "cosh" | "tanh" | "abs" | "abs2" | "sign" | "isnan" | "isinf"
        | "isfinite" | "iseven" | "isodd" | "iszero" | "real" | "imag" | "conj" | "angle" => math1(lw, name, args, line, dotted),
        "atan" | "hypot" | "min" | "max" | "clamp" | "ifelse" => math_n(lw, name, args, line, dotted),
        "Vector" | "Matrix" | "Array" => Err(lw.unsupported(&format!("`{name}` without an element type"), line, "write `Vector{Float64}(undef, n)`")),
        _ if jtypes::is_array_constructor(name) => array_constructor(lw, name, args, line),
        _ if dotted && lw.is_user_function(name) => Err(lw.unsupported("broadcast", line, "internal: user functions are mapped by `#dot`")),
        _ => return None,
    };
    Some(r)
}

// ----- sizes -----

/// `size(A, d)` as an i64 expression (1 beyond A's rank, as in Julia).
pub fn size_of(lw: &mut Lowerer, a: &Expr, d: &Expr, line: Line) -> LResult<vrir::Expr> {
    let v = lw.expr(a)?;
    let ExprKind::Int(k) = d.kind else {
        return Err(lw.unsupported("`size(A, d)` with a computed dimension", line, "write the dimension as a number"));
    };
    if k < 1 {
        return Err(lw.unsupported(&format!("`size(A, {k})`"), line, "ArgumentError: dimension out of range"));
    }
    if k as u32 > v.ty.rank {
        return Ok(i64c(1));
    }
    Ok(vrir::Expr::Dim { arg: Box::new(v.expr), axis: k as u32 - 1 })
}

/// The number of elements of a range or an array expression.
fn count_of(lw: &mut Lowerer, e: &Expr, _line: Line) -> LResult<vrir::Expr> {
    if let Some(p) = super::ranges::seq(lw, e) {
        let p = p?;
        let span = bin(vrir::BinOp::Add, bin(vrir::BinOp::Div, bin(vrir::BinOp::Sub, p.stop, p.start), p.step), i64c(1));
        return Ok(lib(LibFn::Max, vec![span, i64c(0)]));
    }
    let v = lw.expr(e)?;
    Ok(if v.ty.rank == 0 { i64c(1) } else { lib(LibFn::Len, vec![v.expr]) })
}

fn sizes(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, name, args, 1, 2, line)?;
    let int = |e| Ok(sc(e, INT));
    match (name, xs.as_slice()) {
        ("length" | "lastindex", [x]) => int(count_of(lw, x, line)?),
        ("isempty", [x]) => {
            let n = count_of(lw, x, line)?;
            Ok(sc(bin(vrir::BinOp::Eq, n, i64c(0)), BOOL))
        }
        ("firstindex", [_]) | ("firstindex", [_, _]) => int(i64c(1)),
        ("size" | "lastindex", [a, d]) => int(size_of(lw, a, d, line)?),
        ("ndims", [a]) => {
            let v = lw.expr(a)?;
            int(i64c(v.ty.rank as i64))
        }
        ("eachindex", [x]) => {
            let n = count_of(lw, x, line)?;
            lw.materialize(crate::frontend::rules::SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INT })
        }
        ("size", [_]) => Err(lw.unsupported("`size(A)` as a value", line, "a tuple; write `m, n = size(A)` or `size(A, 1)`")),
        _ => Err(lw.unsupported(&format!("call to `{name}`"), line, "with these arguments")),
    }
}

// ----- constructors -----

/// The dims of a constructor call (`zeros(m, n)`), as i64 expressions.
fn dims_of(lw: &mut Lowerer, xs: &[&Expr], what: &str, line: Line) -> LResult<Vec<vrir::Expr>> {
    if xs.is_empty() {
        return Err(lw.unsupported(what, line, "compiled with one dimension argument at least"));
    }
    let mut dims = Vec::new();
    for x in xs {
        let v = lw.expr(x)?;
        if v.ty.rank > 0 {
            return Err(lw.unsupported(what, line, "dimensions are integers (a tuple of them does not compile)"));
        }
        dims.push(to_count(lw, v, what, line)?);
    }
    Ok(dims)
}

fn alloc(lw: &Lowerer, init: AllocInit, elem: ScalarType, dims: Vec<vrir::Expr>) -> Lowered {
    let rank = dims.len() as u32;
    Lowered::new(vrir::Expr::Alloc { init, ty: atype(lw, elem, rank), dims }, Ty::array(elem, rank))
}

fn shape_of(v: &Lowered) -> Vec<vrir::Expr> {
    (0..v.ty.rank).map(|k| vrir::Expr::Dim { arg: Box::new(v.expr.clone()), axis: k }).collect()
}

fn constructor(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, name, args, 1, 8, line)?;
    match name {
        "zeros" | "ones" => {
            let (elem, rest) = match type_arg(xs[0]) {
                Some(t) => (t, &xs[1..]),
                None => (FLOAT, &xs[..]),
            };
            let dims = dims_of(lw, rest, &format!("`{name}`"), line)?;
            let init = if name == "zeros" { AllocInit::Zeros } else { AllocInit::Ones };
            if elem == BOOL {
                let v = lw.cast(sc(i64c(i64::from(name == "ones")), INT), BOOL);
                return Ok(alloc(lw, AllocInit::Fill { value: Box::new(v.expr) }, BOOL, dims));
            }
            Ok(alloc(lw, init, elem, dims))
        }
        "fill" => {
            let v = lw.expr(xs[0])?;
            let v = ops::norm(lw, v);
            if v.ty.rank > 0 {
                return Err(lw.unsupported("`fill` of an array", line, "an array of arrays does not compile"));
            }
            let dims = dims_of(lw, &xs[1..], "`fill`", line)?;
            Ok(alloc(lw, AllocInit::Fill { value: Box::new(v.expr) }, v.ty.elem, dims))
        }
        "similar" => {
            let a = lw.expr(xs[0])?;
            if a.ty.rank == 0 {
                return Err(lw.unsupported("`similar` of a number", line, "similar takes an array"));
            }
            let a = lw.hoist(a);
            let (elem, rest) = match xs.get(1).and_then(|x| type_arg(x)) {
                Some(t) => (t, &xs[2..]),
                None => (a.ty.elem, &xs[1..]),
            };
            let dims = if rest.is_empty() { shape_of(&a) } else { dims_of(lw, rest, "`similar`", line)? };
            Ok(alloc(lw, AllocInit::Empty, elem, dims))
        }
        "zero" | "one" => {
            if let Some(t) = type_arg(xs[0]) {
                return Ok(lw.cast(sc(i64c(i64::from(name == "one")), INT), t));
            }
            let a = lw.expr(xs[0])?;
            let a = ops::norm(lw, a);
            let k = lw.cast(sc(i64c(i64::from(name == "one")), INT), a.ty.elem);
            if a.ty.rank == 0 {
                return Ok(k);
            }
            if name == "one" {
                return Err(lw.unsupported("`one` of an array", line, "the identity matrix does not compile"));
            }
            let a = lw.hoist(a);
            Ok(alloc(lw, AllocInit::Zeros, a.ty.elem, shape_of(&a)))
        }
        "copy" | "deepcopy" | "collect" => {
            if name == "collect" {
                if let Some(p) = super::ranges::seq(lw, xs[0]) {
                    let p = p?;
                    return lw.materialize(p);
                }
            }
            let a = lw.expr(xs[0])?;
            if a.ty.rank == 0 {
                return Ok(a);
            }
            let ty = a.ty;
            Ok(Lowered::new(lib(LibFn::Copy, vec![a.expr]), ty))
        }
        "reverse" => {
            let a = if let Some(p) = super::ranges::seq(lw, xs[0]) {
                let p = p?;
                lw.materialize(p)?
            } else {
                lw.expr(xs[0])?
            };
            if a.ty.rank != 1 || xs.len() != 1 {
                return Err(lw.unsupported("`reverse` of this value", line, "compiled for vectors"));
            }
            let a = lw.hoist(a);
            let n = lib(LibFn::Len, vec![a.expr.clone()]);
            let range = vrir::Expr::Range { start: Some(Box::new(n)), stop: Some(Box::new(i64c(1))), step: Some(Box::new(i64c(-1))) };
            let ty = a.ty;
            Ok(Lowered::new(vrir::Expr::Index { array: Box::new(a.expr), indices: vec![range], flags: IndexFlags::default() }, ty))
        }
        _ => unreachable!("listed in `library`"),
    }
}

/// `Vector{T}(undef, n)`, `Matrix{T}(undef, m, n)`, `Array{T}(undef, dims...)`,
/// `Array{T,N}(undef, ...)`, `Vector{T}()`.
fn array_constructor(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let Some((elem, rank)) = jtypes::array_constructor(name) else {
        return Err(lw.unsupported(&format!("`{name}`"), line, "compiled element types are Bool, Int64, Float64 and ComplexF64"));
    };
    let xs = positional(lw, name, args, 0, 8, line)?;
    if xs.is_empty() {
        return match rank {
            Some(1) | None => Ok(alloc(lw, AllocInit::Zeros, elem, vec![i64c(0)])),
            _ => Err(lw.unsupported(&format!("`{name}()`"), line, "an empty array needs its dimensions")),
        };
    }
    if !matches!(&xs[0].kind, ExprKind::Var(u) if u == "undef") {
        return Err(lw.unsupported(&format!("`{name}(...)`"), line, "compiled as `{name}(undef, dims...)`"));
    }
    let dims = dims_of(lw, &xs[1..], &format!("`{name}`"), line)?;
    if rank.is_some_and(|r| r as usize != dims.len()) {
        return Err(lw.unsupported(&format!("`{name}`"), line, "the number of dimensions does not match the type"));
    }
    Ok(alloc(lw, AllocInit::Empty, elem, dims))
}

fn limits(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, name, args, 0, 1, line)?;
    let t = match xs.first() {
        None if name == "eps" => FLOAT,
        Some(x) => match type_arg(x) {
            Some(t) => t,
            None => return Err(lw.unsupported(&format!("`{name}` of a value"), line, "compiled with a type (`typemax(Int)`, `eps(Float64)`)")),
        },
        None => return Err(lw.unsupported(&format!("`{name}()`"), line, "it takes a type")),
    };
    let v = match (name, t) {
        ("typemax", INT) => sc(i64c(i64::MAX), INT),
        ("typemin", INT) => sc(bin(vrir::BinOp::Sub, vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(i64c(i64::MAX)) }, i64c(1)), INT),
        ("typemax", FLOAT) => sc(vrir::Expr::f64(f64::INFINITY), FLOAT),
        ("typemin", FLOAT) => sc(vrir::Expr::f64(f64::NEG_INFINITY), FLOAT),
        ("typemax", BOOL) => ops::bool_const(true),
        ("typemin", BOOL) => ops::bool_const(false),
        ("eps", FLOAT) => sc(vrir::Expr::f64(f64::EPSILON), FLOAT),
        ("floatmax", FLOAT) => sc(vrir::Expr::f64(f64::MAX), FLOAT),
        ("floatmin", FLOAT) => sc(vrir::Expr::f64(f64::MIN_POSITIVE), FLOAT),
        _ => return Err(lw.unsupported(&format!("`{name}({})`", ops::type_name(t)), line, "not compiled")),
    };
    Ok(v)
}

// ----- conversions -----

/// Convert `v` to `elem` as Julia's `convert` does: exact or an InexactError (a float
/// that is not a whole number, or out of range, to Int64; an integer other than 0/1
/// to Bool; a complex number with an imaginary part to a real type).
pub fn convert(lw: &mut Lowerer, v: Lowered, elem: ScalarType) -> Lowered {
    let v = ops::norm(lw, v);
    if v.ty.elem == elem {
        return v;
    }
    let from = v.ty.elem;
    let v = if from == COMPLEX && elem != COMPLEX {
        let v = lw.hoist(v);
        let im = Lowered::new(lib(LibFn::Imag, vec![v.expr.clone()]), v.ty.with_elem(FLOAT));
        let bad = Lowered::new(bin(vrir::BinOp::Ne, im.expr, vrir::Expr::f64(0.0)), v.ty.with_elem(BOOL));
        ops::raise_where(lw, bad, INEXACT);
        Lowered::new(lib(LibFn::Real, vec![v.expr]), v.ty.with_elem(FLOAT))
    } else {
        v
    };
    // A constant that converts exactly needs no check.
    match (&v.expr, elem) {
        (vrir::Expr::Const { value: Literal::F64(c) }, INT) if c.fract() == 0.0 && c.abs() < 9.0e15 => return lw.cast(v, INT),
        (vrir::Expr::Const { value: Literal::F64(c) }, BOOL) if *c == 0.0 || *c == 1.0 => return lw.cast(v, BOOL),
        (vrir::Expr::Const { value: Literal::I64(c) }, BOOL) if *c == 0 || *c == 1 => return lw.cast(v, BOOL),
        _ => {}
    }
    match (v.ty.elem, elem) {
        (FLOAT, INT) => {
            let v = lw.hoist(v);
            let two63 = vrir::Expr::f64(9.223_372_036_854_776e18);
            let not_whole = bin(vrir::BinOp::Ne, v.expr.clone(), lib(LibFn::Trunc, vec![v.expr.clone()]));
            let out = bin(
                vrir::BinOp::Or,
                bin(vrir::BinOp::Ge, v.expr.clone(), two63.clone()),
                bin(vrir::BinOp::Lt, v.expr.clone(), vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(two63) }),
            );
            let bad = Lowered::new(bin(vrir::BinOp::Or, not_whole, out), v.ty.with_elem(BOOL));
            ops::raise_where(lw, bad, INEXACT);
            lw.cast(v, INT)
        }
        (INT | FLOAT, BOOL) => {
            let v = lw.hoist(v);
            let zero = lw.cast(Lowered::new(i64c(0), Ty::scalar(INT)), v.ty.elem);
            let one = lw.cast(Lowered::new(i64c(1), Ty::scalar(INT)), v.ty.elem);
            let bad = bin(vrir::BinOp::And, bin(vrir::BinOp::Ne, v.expr.clone(), zero.expr), bin(vrir::BinOp::Ne, v.expr.clone(), one.expr));
            ops::raise_where(lw, Lowered::new(bad, v.ty.with_elem(BOOL)), INEXACT);
            lw.cast(v, BOOL)
        }
        _ => lw.cast(v, elem),
    }
}

fn conversion(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line, dotted: bool) -> R {
    let (target, xs): (Option<ScalarType>, Vec<&Expr>) = match name {
        "convert" | "oftype" => {
            let xs = positional(lw, name, args, 2, 2, line)?;
            let t = if name == "convert" {
                type_arg(xs[0]).ok_or_else(|| lw.unsupported("`convert` to this type", line, "compiled for Bool, Int64, Float64, ComplexF64"))?
            } else {
                let like = lw.expr(xs[0])?;
                ops::norm(lw, like).ty.elem
            };
            (Some(t), vec![xs[1]])
        }
        "complex" | "ComplexF64" if args.len() == 2 => {
            let xs = positional(lw, name, args, 2, 2, line)?;
            let re = lw.expr(xs[0])?;
            let im = lw.expr(xs[1])?;
            let (re, im) = if dotted { ops::conform(lw, &format!("`{name}`"), re, im, line)? } else { (re, im) };
            check_scalar_or_dotted(lw, name, &[&re, &im], dotted, line)?;
            let (re, im) = (convert(lw, re, FLOAT), convert(lw, im, FLOAT));
            let rank = re.ty.rank.max(im.ty.rank);
            return Ok(Lowered::new(lib(LibFn::Complex, vec![re.expr, im.expr]), Ty::array(COMPLEX, rank)));
        }
        "float" => (None, positional(lw, name, args, 1, 1, line)?),
        "complex" => (Some(COMPLEX), positional(lw, name, args, 1, 1, line)?),
        other => (scalar_type(other), positional(lw, name, args, 1, 1, line)?),
    };
    let v = lw.expr(xs[0])?;
    let v = ops::norm(lw, v);
    check_scalar_or_dotted(lw, name, &[&v], dotted, line)?;
    let t = target.unwrap_or(if v.ty.elem == COMPLEX { COMPLEX } else { FLOAT });
    Ok(convert(lw, v, t))
}

/// Julia's scalar functions on an array are a MethodError (or a matrix function):
/// only the broadcast `f.(x)` is element-wise.
fn check_scalar_or_dotted(lw: &Lowerer, name: &str, vs: &[&Lowered], dotted: bool, line: Line) -> LResult<()> {
    if dotted {
        return Ok(());
    }
    if let Some(v) = vs.iter().find(|v| v.ty.rank > 0) {
        return Err(lw.unsupported(
            &format!("`{name}` of a {}", ops::ty_name(v.ty)),
            line,
            &format!("Julia applies `{name}` to numbers (on a matrix some are matrix functions); broadcast it: `{name}.(x)`"),
        ));
    }
    Ok(())
}

fn rounding(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line, dotted: bool) -> R {
    let xs = positional(lw, name, args, 1, 2, line)?;
    let (target, x) = match xs.as_slice() {
        [t, x] => match type_arg(t) {
            Some(t) => (Some(t), *x),
            None => return Err(lw.unsupported(&format!("`{name}` with two arguments"), line, "compiled as `{name}(x)` or `{name}(Int, x)`")),
        },
        [x] => (None, *x),
        _ => unreachable!("one or two"),
    };
    let v = lw.expr(x)?;
    let v = ops::norm(lw, v);
    check_scalar_or_dotted(lw, name, &[&v], dotted, line)?;
    let f = match name {
        "round" => LibFn::Round,
        "floor" => LibFn::Floor,
        "ceil" => LibFn::Ceil,
        _ => LibFn::Trunc,
    };
    let rounded = match v.ty.elem {
        INT | BOOL => v,
        FLOAT => {
            let ty = v.ty;
            Lowered::new(lib(f, vec![v.expr]), ty)
        }
        _ => return Err(lw.unsupported(&format!("`{name}` of a complex number"), line, "not compiled")),
    };
    Ok(match target {
        Some(t) => convert(lw, rounded, t),
        None => rounded,
    })
}

// ----- elementary functions -----

fn math1(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line, dotted: bool) -> R {
    let xs = positional(lw, name, args, 1, 1, line)?;
    let v = lw.expr(xs[0])?;
    let v = ops::norm(lw, v);
    check_scalar_or_dotted(lw, name, &[&v], dotted, line)?;
    let ty = v.ty;
    let boolean = |e| Lowered::new(e, ty.with_elem(BOOL));
    match name {
        "isnan" => return Ok(boolean(lib(LibFn::IsNan, vec![v.expr]))),
        "isinf" => return Ok(boolean(lib(LibFn::IsInf, vec![v.expr]))),
        "isfinite" => {
            let v = lw.hoist(v);
            let e = bin(
                vrir::BinOp::And,
                vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(lib(LibFn::IsNan, vec![v.expr.clone()])) },
                vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(lib(LibFn::IsInf, vec![v.expr])) },
            );
            return Ok(boolean(e));
        }
        "iseven" | "isodd" => {
            if !matches!(v.ty.elem, INT | BOOL) {
                return Err(lw.unsupported(&format!("`{name}` of a {}", ops::type_name(v.ty.elem)), line, "takes integers (MethodError)"));
            }
            let v = lw.cast(v, INT);
            let r = bin(vrir::BinOp::Mod, v.expr, i64c(2));
            let o = if name == "iseven" { vrir::BinOp::Eq } else { vrir::BinOp::Ne };
            return Ok(boolean(bin(o, r, i64c(0))));
        }
        "iszero" => {
            let zero = lw.cast(sc(i64c(0), INT), v.ty.elem);
            return Ok(boolean(bin(vrir::BinOp::Eq, v.expr, zero.expr)));
        }
        "real" | "imag" | "conj" => {
            let f = match name {
                "real" => LibFn::Real,
                "imag" => LibFn::Imag,
                _ => LibFn::Conj,
            };
            let elem = if v.ty.elem == COMPLEX && name != "conj" { FLOAT } else { v.ty.elem };
            if v.ty.elem == BOOL {
                let v = lw.cast(v, INT);
                let ty = v.ty;
                return Ok(Lowered::new(lib(f, vec![v.expr]), ty));
            }
            return Ok(Lowered::new(lib(f, vec![v.expr]), ty.with_elem(elem)));
        }
        "angle" => {
            let v = lw.hoist(lw.cast(v, COMPLEX));
            let (re, im) = (lib(LibFn::Real, vec![v.expr.clone()]), lib(LibFn::Imag, vec![v.expr]));
            return Ok(Lowered::new(lib(LibFn::Atan2, vec![im, re]), ty.with_elem(FLOAT)));
        }
        "abs" => {
            return Ok(match v.ty.elem {
                BOOL => v,
                COMPLEX => Lowered::new(lib(LibFn::Abs, vec![v.expr]), ty.with_elem(FLOAT)),
                _ => Lowered::new(lib(LibFn::Abs, vec![v.expr]), ty),
            });
        }
        "abs2" => {
            if v.ty.elem == COMPLEX {
                let v = lw.hoist(v);
                let (re, im) = (lib(LibFn::Real, vec![v.expr.clone()]), lib(LibFn::Imag, vec![v.expr]));
                let e = bin(vrir::BinOp::Add, bin(vrir::BinOp::Mul, re.clone(), re), bin(vrir::BinOp::Mul, im.clone(), im));
                return Ok(Lowered::new(e, ty.with_elem(FLOAT)));
            }
            let v = lw.hoist(if v.ty.elem == BOOL { lw.cast(v, INT) } else { v });
            let t = v.ty;
            return Ok(Lowered::new(bin(vrir::BinOp::Mul, v.expr.clone(), v.expr), t));
        }
        "sign" => {
            return match v.ty.elem {
                INT | BOOL => {
                    let v = lw.hoist(lw.cast(v, INT));
                    let pos = lw.cast(Lowered::new(bin(vrir::BinOp::Gt, v.expr.clone(), i64c(0)), ty.with_elem(BOOL)), INT);
                    let neg = lw.cast(Lowered::new(bin(vrir::BinOp::Lt, v.expr, i64c(0)), ty.with_elem(BOOL)), INT);
                    Ok(Lowered::new(bin(vrir::BinOp::Sub, pos.expr, neg.expr), ty.with_elem(INT)))
                }
                FLOAT => Ok(ops::apply_helper(lw, "_jl_sign", vec![v], FLOAT)),
                _ => Err(lw.unsupported("`sign` of a complex number", line, "not compiled")),
            };
        }
        _ => {}
    }
    // The elementary functions: Float64 (integers converted) or ComplexF64.
    let elem = if v.ty.elem == COMPLEX { COMPLEX } else { FLOAT };
    let v = lw.hoist(lw.cast(v, elem));
    let f = match name {
        "sqrt" => LibFn::Sqrt,
        "exp" => LibFn::Exp,
        "log" => LibFn::Log,
        "log10" => LibFn::Log10,
        "sin" => LibFn::Sin,
        "cos" => LibFn::Cos,
        "tan" => LibFn::Tan,
        "asin" => LibFn::Asin,
        "acos" => LibFn::Acos,
        "sinh" => LibFn::Sinh,
        "cosh" => LibFn::Cosh,
        _ => LibFn::Tanh,
    };
    if elem == FLOAT {
        let x = v.expr.clone();
        let bad = match f {
            LibFn::Sqrt => Some((bin(vrir::BinOp::Lt, x, vrir::Expr::f64(0.0)), DOMAIN_SQRT)),
            LibFn::Log | LibFn::Log10 => Some((bin(vrir::BinOp::Lt, x, vrir::Expr::f64(0.0)), DOMAIN_LOG)),
            LibFn::Sin | LibFn::Cos | LibFn::Tan => Some((lib(LibFn::IsInf, vec![x]), DOMAIN_TRIG)),
            LibFn::Asin | LibFn::Acos => Some((bin(vrir::BinOp::Gt, lib(LibFn::Abs, vec![x]), vrir::Expr::f64(1.0)), DOMAIN_ASIN)),
            _ => None,
        };
        if let Some((c, reason)) = bad {
            ops::raise_where(lw, Lowered::new(c, v.ty.with_elem(BOOL)), reason);
        }
    }
    let ty = v.ty;
    Ok(Lowered::new(lib(f, vec![v.expr]), ty))
}

fn math_n(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line, dotted: bool) -> R {
    let (min, max) = match name {
        "atan" => (1, 2),
        "min" | "max" => (2, 8),
        "clamp" | "ifelse" => (3, 3),
        _ => (2, 2),
    };
    let xs = positional(lw, name, args, min, max, line)?;
    if name == "atan" && xs.len() == 1 {
        let v = lw.expr(xs[0])?;
        let v = ops::norm(lw, v);
        check_scalar_or_dotted(lw, name, &[&v], dotted, line)?;
        let elem = if v.ty.elem == COMPLEX { COMPLEX } else { FLOAT };
        let v = lw.cast(v, elem);
        let ty = v.ty;
        return Ok(Lowered::new(lib(LibFn::Atan, vec![v.expr]), ty));
    }
    let mut vals = Vec::new();
    for x in &xs {
        let v = lw.expr(x)?;
        vals.push(ops::norm(lw, v));
    }
    check_scalar_or_dotted(lw, name, &vals.iter().collect::<Vec<_>>(), dotted, line)?;
    // Broadcast operands: equal ranks and extents, or scalars.
    if dotted {
        ops::conform_all(lw, &format!("`{name}`"), &mut vals, line)?;
    }
    let rank = vals.iter().map(|v| v.ty.rank).max().unwrap_or(0);
    match name {
        "atan" | "hypot" => {
            let (y, x) = (lw.cast(vals[0].clone(), FLOAT), lw.cast(vals[1].clone(), FLOAT));
            if vals.iter().any(|v| v.ty.elem == COMPLEX) {
                return Err(lw.unsupported(&format!("`{name}` of complex numbers"), line, "not compiled"));
            }
            let e = if name == "atan" { lib(LibFn::Atan2, vec![y.expr, x.expr]) } else { lib(LibFn::Abs, vec![lib(LibFn::Complex, vec![y.expr, x.expr])]) };
            Ok(Lowered::new(e, Ty::array(FLOAT, rank)))
        }
        "min" | "max" | "clamp" => {
            if vals.iter().any(|v| v.ty.elem == COMPLEX) {
                return Err(lw.unsupported(&format!("`{name}` of complex numbers"), line, "Julia does not order them (MethodError)"));
            }
            let elem = vals.iter().fold(BOOL, |e, v| ops::promote(e, v.ty.elem));
            let elem = if elem == BOOL { BOOL } else { elem };
            let vals: Vec<Lowered> = vals.into_iter().map(|v| lw.cast(v, if elem == BOOL { INT } else { elem })).collect();
            let work = if elem == BOOL { INT } else { elem };
            let out = if work == FLOAT {
                if name == "clamp" {
                    ops::apply_helper(lw, "_jl_fclamp", vals, FLOAT)
                } else {
                    let mut fold = |f: &str, a: Lowered, b: Lowered| ops::apply_helper(lw, f, vec![a, b], FLOAT);
                    let f = if name == "min" { "_jl_fmin" } else { "_jl_fmax" };
                    let mut it = vals.into_iter();
                    let first = it.next().expect("two at least");
                    it.fold(first, |a, b| fold(f, a, b))
                }
            } else {
                let fold = |f: LibFn, a: vrir::Expr, b: vrir::Expr| lib(f, vec![a, b]);
                let e = if name == "clamp" {
                    fold(LibFn::Min, fold(LibFn::Max, vals[0].expr.clone(), vals[1].expr.clone()), vals[2].expr.clone())
                } else {
                    let f = if name == "min" { LibFn::Min } else { LibFn::Max };
                    let mut it = vals.into_iter();
                    let first = it.next().expect("two at least").expr;
                    it.fold(first, |a, b| fold(f, a, b.expr))
                };
                Lowered::new(e, Ty::array(work, rank))
            };
            Ok(if elem == BOOL { lw.cast(out, BOOL) } else { out })
        }
        _ => {
            // ifelse(c, a, b): both values computed, as in Julia.
            if vals[0].ty.elem != BOOL {
                return Err(lw.unsupported(
                    "`ifelse` condition",
                    line,
                    &format!("TypeError: non-boolean ({}) used in boolean context", ops::type_name(vals[0].ty.elem)),
                ));
            }
            let elem = ops::promote(vals[1].ty.elem, vals[2].ty.elem);
            let c = vals[0].clone();
            let (a, b) = (lw.cast(vals[1].clone(), elem), lw.cast(vals[2].clone(), elem));
            Ok(ops::apply_helper(lw, ops::ifelse_helper(elem), vec![c, a, b], elem))
        }
    }
}

fn identity_compare(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, name, args, 2, 2, line)?;
    let a = lw.expr(xs[0])?;
    let b = lw.expr(xs[1])?;
    let (a, b) = (ops::norm(lw, a), ops::norm(lw, b));
    if a.ty.rank > 0 || b.ty.rank > 0 {
        return Err(lw.unsupported(&format!("`{name}` of arrays"), line, "object identity does not compile"));
    }
    if a.ty.elem != b.ty.elem {
        // Values of different types are never identical.
        return Ok(ops::bool_const(name == "!=="));
    }
    if matches!(a.ty.elem, FLOAT | COMPLEX) {
        return Err(lw.unsupported(&format!("`{name}` of floating-point numbers"), line, "it compares bits (NaN === NaN, 0.0 !== -0.0); use =="));
    }
    let o = if name == "===" { Op::Eq } else { Op::Ne };
    ops::binary(lw, o, a, b, false, line)
}

// ----- reductions -----

fn reduce(op: ReduceOp, a: vrir::Expr, axis: Option<u32>) -> vrir::Expr {
    vrir::Expr::Reduce { op, arg: Box::new(a), axis, acc: None }
}

fn reduction(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let dims = args.iter().find(|a| a.name.as_deref() == Some("dims"));
    let rest: Vec<Arg> = args.iter().filter(|a| a.name.as_deref() != Some("dims")).cloned().collect();
    if name == "dot" {
        let xs = positional(lw, name, &rest, 2, 2, line)?;
        let a = lw.expr(xs[0])?;
        let b = lw.expr(xs[1])?;
        let (a, b) = (ops::norm(lw, a), ops::norm(lw, b));
        if a.ty.rank != 1 || b.ty.rank != 1 {
            return Err(lw.unsupported("`dot` of these values", line, "compiled for two vectors"));
        }
        let elem = ops::promote(ops::promote(a.ty.elem, b.ty.elem), INT);
        let (a, b) = (lw.cast(a, elem), lw.cast(b, elem));
        let a = if elem == COMPLEX { Lowered::new(lib(LibFn::Conj, vec![a.expr]), a.ty) } else { a };
        return Ok(sc(lib(LibFn::Matmul, vec![a.expr, b.expr]), elem));
    }
    let xs = positional(lw, name, &rest, 1, 2, line)?;
    // `sum(f, x)` with a named function: `sum(f.(x))`.
    let x = if xs.len() == 2 {
        let ExprKind::Var(f) = &xs[0].kind else {
            return Err(lw.unsupported(&format!("`{name}(f, x)` with this function"), line, "compiled with a named function (`sum(abs2, x)`)"));
        };
        let dot = Expr::new(
            ExprKind::Call {
                func: "#dot".into(),
                args: vec![Arg { name: None, value: Expr::new(ExprKind::Str(f.clone()), line) }, Arg { name: None, value: xs[1].clone() }],
            },
            line,
        );
        lw.expr(&dot)?
    } else {
        lw.expr(xs[0])?
    };
    let x = ops::norm(lw, x);
    let axis = match dims {
        None => None,
        Some(d) => match d.value.kind {
            ExprKind::Int(k) if k >= 1 && (k as u32) <= x.ty.rank.max(1) => Some(k as u32 - 1),
            _ => return Err(lw.unsupported(&format!("`{name}(...; dims = ...)`"), line, "compiled with a literal dimension of the array")),
        },
    };
    if x.ty.rank == 0 {
        if axis.is_some() || matches!(name, "cumsum" | "cumprod") {
            return Err(lw.unsupported(&format!("`{name}` of a number with dims"), line, "not compiled"));
        }
        return Ok(match name {
            "sum" | "prod" | "maximum" | "minimum" if x.ty.elem == BOOL => lw.cast(x, INT),
            "any" | "all" | "count" if x.ty.elem != BOOL => {
                return Err(lw.unsupported(&format!("`{name}` of a {}", ops::type_name(x.ty.elem)), line, "TypeError: non-boolean used in boolean context"))
            }
            "count" => lw.cast(x, INT),
            "mean" => {
                let t = if x.ty.elem == COMPLEX { COMPLEX } else { FLOAT };
                lw.cast(x, t)
            }
            _ => x,
        });
    }
    let elem = x.ty.elem;
    let rank = x.ty.rank;
    let (op, work, result) = match name {
        "sum" | "count" | "mean" => {
            let work = match (name, elem) {
                ("count", BOOL) => INT,
                ("count", _) => {
                    return Err(lw.unsupported(&format!("`count` of a {}", ops::ty_name(x.ty)), line, "TypeError: non-boolean used in boolean context"))
                }
                ("mean", COMPLEX) => COMPLEX,
                ("mean", _) => FLOAT,
                (_, BOOL) => INT,
                (_, e) => e,
            };
            (ReduceOp::Sum, work, work)
        }
        "prod" => (ReduceOp::Prod, ops::promote(elem, INT), ops::promote(elem, INT)),
        "maximum" | "minimum" => {
            if elem == COMPLEX {
                return Err(lw.unsupported(&format!("`{name}` of complex numbers"), line, "Julia does not order them (MethodError)"));
            }
            let op = if name == "maximum" { ReduceOp::Max } else { ReduceOp::Min };
            (op, ops::promote(elem, INT), elem)
        }
        "any" | "all" => {
            if elem != BOOL {
                return Err(lw.unsupported(&format!("`{name}` of a {}", ops::ty_name(x.ty)), line, "TypeError: non-boolean used in boolean context"));
            }
            if axis.is_some() {
                return Err(lw.unsupported(&format!("`{name}(...; dims = ...)`"), line, "not compiled"));
            }
            let x = if name == "all" { Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(x.expr) }, x.ty) } else { x };
            let n = reduce(ReduceOp::Sum, lw.cast(x, INT).expr, None);
            let o = if name == "any" { vrir::BinOp::Gt } else { vrir::BinOp::Eq };
            return Ok(sc(bin(o, n, i64c(0)), BOOL));
        }
        _ => {
            // cumsum, cumprod
            if rank != 1 {
                return Err(lw.unsupported(&format!("`{name}` of a {}", ops::ty_name(x.ty)), line, "compiled for vectors"));
            }
            let work = ops::promote(elem, INT);
            let x = lw.cast(x, work);
            let f = if name == "cumsum" { vrir::ScanOp::Sum } else { vrir::ScanOp::Prod };
            return Ok(Lowered::new(vrir::Expr::Scan { op: f, arg: Box::new(x.expr), acc: None }, Ty::array(work, 1)));
        }
    };
    let x = lw.cast(x, work);
    let x = if axis.is_some() || name == "mean" { lw.hoist(x) } else { x };
    let shape = if axis.is_some() { shape_of(&x) } else { vec![] };
    let count = match axis {
        None => lib(LibFn::Len, vec![x.expr.clone()]),
        Some(k) => shape[k as usize].clone(),
    };
    let r = Lowered::new(reduce(op, x.expr, axis), Ty::array(work, if axis.is_some() { rank - 1 } else { 0 }));
    let r = if name == "mean" {
        // Statistics' `mean`: the sum over the count (NaN when empty, as 0/0).
        let c = lw.cast(sc(count, INT), work);
        let ty = r.ty;
        Lowered::new(bin(vrir::BinOp::Div, r.expr, c.expr), ty)
    } else {
        r
    };
    let r = if matches!(name, "maximum" | "minimum") { lw.cast(r, result) } else { r };
    let Some(k) = axis else { return Ok(r) };
    // `dims = k` keeps the dimension, with extent 1.
    let mut out_dims = shape.clone();
    out_dims[k as usize] = i64c(1);
    let out = lw.temp(&Ty::array(r.ty.elem, rank).vrir(lw.layout()));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(lw, AllocInit::Empty, r.ty.elem, out_dims).expr });
    let indices = (0..rank).map(|j| if j == k { i64c(1) } else { all_range() }).collect();
    lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices, flags: IndexFlags::default() }], value: r.expr });
    Ok(Lowered::new(vrir::Expr::var(out), Ty::array(r.ty.elem, rank)))
}

fn transpose(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, name, args, 1, 1, line)?;
    let v = lw.expr(xs[0])?;
    let v = ops::norm(lw, v);
    let conj = |v: Lowered| if name == "adjoint" && v.ty.elem == COMPLEX { Lowered::new(lib(LibFn::Conj, vec![v.expr]), v.ty) } else { v };
    match v.ty.rank {
        0 => Ok(conj(v)),
        1 => {
            // A vector's transpose is a 1 x n row.
            let v = lw.hoist(conj(v));
            let out = lw.temp(&Ty::array(v.ty.elem, 2).vrir(lw.layout()));
            let dims = vec![i64c(1), lib(LibFn::Len, vec![v.expr.clone()])];
            lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(lw, AllocInit::Empty, v.ty.elem, dims).expr });
            lw.emit(StmtKind::Assign {
                targets: vec![LValue::Index { array: out.clone(), indices: vec![i64c(1), all_range()], flags: IndexFlags::default() }],
                value: v.expr,
            });
            Ok(Lowered::new(vrir::Expr::var(out), Ty::array(v.ty.elem, 2)))
        }
        2 => {
            let ty = v.ty;
            Ok(conj(Lowered::new(lib(LibFn::Transpose, vec![v.expr]), ty)))
        }
        _ => Err(lw.unsupported(&format!("`{name}` of a {}", ops::ty_name(v.ty)), line, "defined for vectors and matrices")),
    }
}

// ----- broadcasting -----

/// `f.(args...)` (`#dot("f", args...)`).
fn broadcast_call(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let Some(ExprKind::Str(f)) = args.first().map(|a| &a.value.kind) else {
        return Err(lw.unsupported("broadcast", line, "malformed"));
    };
    let rest = &args[1..];
    if lw.is_user_function(f) {
        return broadcast_user(lw, f, rest, line);
    }
    if let Some(op) = Op::from_name(f) {
        let xs = positional(lw, f, rest, 2, 2, line)?;
        let a = lw.expr(xs[0])?;
        let b = lw.expr(xs[1])?;
        return ops::binary(lw, op, a, b, true, line);
    }
    match library(lw, f, rest, line, true) {
        Some(r) => r,
        None => Err(lw.unsupported(&format!("broadcast `{f}.(...)`"), line, "not a function of this source or an element-wise function the compiler knows")),
    }
}

/// `f.(x, y)` of a function of the source: VRIR's `map` of its specialization for the
/// element types (scalar results only).
fn broadcast_user(lw: &mut Lowerer, f: &str, args: &[Arg], line: Line) -> R {
    let xs = positional(lw, f, args, 1, 8, line)?;
    let mut vals = Vec::new();
    for x in &xs {
        let v = lw.expr(x)?;
        vals.push(v);
    }
    let Some(first) = vals.iter().position(|v| v.ty.rank > 0) else {
        // All scalars: an ordinary call.
        let call = Expr::new(ExprKind::Call { func: f.into(), args: args.to_vec() }, line);
        return lw.expr(&call);
    };
    ops::conform_all(lw, &format!("`{f}.(...)`"), &mut vals, line)?;
    let rank = vals[first].ty.rank;
    // Specialize `f` for the element types through placeholders.
    let mut bound = Vec::new();
    let mut call_args = Vec::new();
    for v in &vals {
        let zero = lw.cast(sc(i64c(0), INT), v.ty.elem);
        let name = lw.bind_value(Lowered::new(zero.expr, Ty::scalar(v.ty.elem)));
        call_args.push(Arg { name: None, value: Expr::new(ExprKind::Var(name.clone()), line) });
        bound.push(name);
    }
    let r = lw.user_call(f, &call_args, line);
    for b in &bound {
        lw.unbind(b);
    }
    let (call, rets) = r?;
    let vrir::Expr::Call { func, .. } = call else { unreachable!("a user call") };
    match rets.as_slice() {
        [t] if t.rank == 0 => Ok(Lowered::new(vrir::Expr::Map { func, args: vals.into_iter().map(|v| v.expr).collect() }, Ty::array(t.elem, rank))),
        _ => Err(lw.unsupported(&format!("broadcast `{f}.(...)`"), line, "the function must return one number")),
    }
}

/// `x .= v`: into every element of the existing array `x`; the value of the statement
/// is `x`.
fn dot_assign(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let [target, value] = args else {
        return Err(lw.unsupported("`.=`", line, "malformed"));
    };
    let x = lw.expr(&target.value)?;
    let vrir::Expr::Var { name } = &x.expr else {
        return Err(lw.unsupported("`.=` into this target", line, "compiled into a variable or an indexed selection"));
    };
    let name = name.clone();
    if x.ty.rank == 0 {
        return Err(lw.unsupported("`.=` into a number", line, "the target of `.=` is an array"));
    }
    let v = lw.expr(&value.value)?;
    let v = ops::norm(lw, v);
    let v = if v.ty.rank > 0 {
        if v.ty.rank != x.ty.rank {
            return Err(lw.unsupported(
                &format!("`.=` of a {} into a {}", ops::ty_name(v.ty), ops::ty_name(x.ty)),
                line,
                "compiled for equal ranks or a scalar",
            ));
        }
        let (_, v) = ops::conform(lw, "`.=`", x.clone(), v, line)?;
        v
    } else {
        v
    };
    let v = convert(lw, v, x.ty.elem);
    let indices = (0..x.ty.rank).map(|_| all_range()).collect();
    lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: name.clone(), indices, flags: IndexFlags::default() }], value: v.expr });
    Ok(Lowered::new(vrir::Expr::var(name), x.ty))
}

// ----- literals -----

/// `[a, b, c]` (`vect`) and `[a; b]` (`vcat`): numbers make a vector of their promoted
/// type; `vcat` also concatenates vectors.
fn concat(lw: &mut Lowerer, kind: &str, args: &[Arg], line: Line) -> R {
    let mut vals = Vec::new();
    for a in args {
        let v = lw.expr(&a.value)?;
        vals.push(ops::norm(lw, v));
    }
    if vals.is_empty() {
        return Err(lw.unsupported("`[]`", line, "an empty Vector{Any}; write `Float64[]`"));
    }
    if vals.iter().any(|v| v.ty.rank > 1) || (kind == "vect" && vals.iter().any(|v| v.ty.rank > 0)) {
        return Err(lw.unsupported("array literal of arrays", line, "a vector of vectors (or a concatenation of matrices) does not compile"));
    }
    let elem = vals.iter().fold(BOOL, |e, v| ops::promote(e, v.ty.elem));
    let vals: Vec<Lowered> = vals.into_iter().map(|v| lw.cast(v, elem)).collect();
    let vals: Vec<Lowered> = vals.into_iter().map(|v| lw.hoist(v)).collect();
    let lens: Vec<vrir::Expr> = vals.iter().map(|v| if v.ty.rank == 0 { i64c(1) } else { lib(LibFn::Len, vec![v.expr.clone()]) }).collect();
    let total = lens.iter().cloned().reduce(|a, b| bin(vrir::BinOp::Add, a, b)).expect("one at least");
    let out = lw.temp(&Ty::array(elem, 1).vrir(lw.layout()));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(lw, AllocInit::Empty, elem, vec![total]).expr });
    let mut offset = i64c(0);
    for (v, n) in vals.into_iter().zip(lens) {
        let index = if v.ty.rank == 0 {
            bin(vrir::BinOp::Add, offset.clone(), i64c(1))
        } else {
            vrir::Expr::Range {
                start: Some(Box::new(bin(vrir::BinOp::Add, offset.clone(), i64c(1)))),
                stop: Some(Box::new(bin(vrir::BinOp::Add, offset.clone(), n.clone()))),
                step: None,
            }
        };
        lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices: vec![index], flags: IndexFlags::default() }], value: v.expr });
        offset = bin(vrir::BinOp::Add, offset, n);
    }
    Ok(Lowered::new(vrir::Expr::var(out), Ty::array(elem, 1)))
}

/// `[a b c]`: numbers make a 1 x n matrix, vectors of one length its columns.
fn hcat(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let mut vals = Vec::new();
    for a in args {
        let v = lw.expr(&a.value)?;
        vals.push(ops::norm(lw, v));
    }
    let rank = vals[0].ty.rank;
    if vals.iter().any(|v| v.ty.rank != rank) || rank > 1 {
        return Err(lw.unsupported("`[a b]` of these values", line, "compiled for numbers or vectors of one length"));
    }
    let elem = vals.iter().fold(BOOL, |e, v| ops::promote(e, v.ty.elem));
    let vals: Vec<Lowered> = vals.into_iter().map(|v| lw.cast(v, elem)).collect();
    let vals: Vec<Lowered> = vals.into_iter().map(|v| lw.hoist(v)).collect();
    let ncol = i64c(vals.len() as i64);
    let nrow = if rank == 0 { i64c(1) } else { lib(LibFn::Len, vec![vals[0].expr.clone()]) };
    let out = lw.temp(&Ty::array(elem, 2).vrir(lw.layout()));
    lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: out.clone() }], value: alloc(lw, AllocInit::Empty, elem, vec![nrow, ncol]).expr });
    for (k, v) in vals.into_iter().enumerate() {
        let first = if rank == 0 { i64c(1) } else { all_range() };
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Index { array: out.clone(), indices: vec![first, i64c(k as i64 + 1)], flags: IndexFlags::default() }],
            value: v.expr,
        });
    }
    Ok(Lowered::new(vrir::Expr::var(out), Ty::array(elem, 2)))
}

/// `[a b; c d]`: rows of numbers, all of one length.
fn hvcat(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let mut rows = Vec::new();
    for a in args {
        let ExprKind::Call { args: items, .. } = &a.value.kind else { return Err(lw.unsupported("matrix literal", line, "malformed")) };
        let mut row = Vec::new();
        for i in items {
            let v = lw.expr(&i.value)?;
            row.push(ops::norm(lw, v));
        }
        rows.push(row);
    }
    let ncol = rows[0].len();
    if rows.iter().any(|r| r.len() != ncol) {
        return Err(lw.unsupported("matrix literal", line, "ArgumentError: rows of different lengths"));
    }
    if rows.iter().flatten().any(|v| v.ty.rank > 0) {
        return Err(lw.unsupported("matrix literal of arrays", line, "compiled for numbers"));
    }
    let elem = rows.iter().flatten().fold(BOOL, |e, v| ops::promote(e, v.ty.elem));
    let out = lw.temp(&Ty::array(elem, 2).vrir(lw.layout()));
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: out.clone() }],
        value: alloc(lw, AllocInit::Empty, elem, vec![i64c(rows.len() as i64), i64c(ncol as i64)]).expr,
    });
    for (i, row) in rows.into_iter().enumerate() {
        for (j, v) in row.into_iter().enumerate() {
            let v = lw.cast(v, elem);
            lw.emit(StmtKind::Assign {
                targets: vec![LValue::Index { array: out.clone(), indices: vec![i64c(i as i64 + 1), i64c(j as i64 + 1)], flags: IndexFlags::default() }],
                value: v.expr,
            });
        }
    }
    Ok(Lowered::new(vrir::Expr::var(out), Ty::array(elem, 2)))
}

/// `T[...]`: an empty vector of `T`, or the literal converted to `T`.
fn typed(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let [t, lit] = args else { return Err(lw.unsupported("typed array literal", line, "malformed")) };
    let ExprKind::Str(tname) = &t.value.kind else { return Err(lw.unsupported("typed array literal", line, "malformed")) };
    let Some(elem) = scalar_type(tname) else {
        return Err(lw.unsupported(&format!("`{tname}[...]`"), line, "compiled element types are Bool, Int64, Float64 and ComplexF64"));
    };
    if matches!(&lit.value.kind, ExprKind::Call { func, args } if func == "#vect" && args.is_empty()) {
        return Ok(alloc(lw, AllocInit::Zeros, elem, vec![i64c(0)]));
    }
    let v = lw.expr(&lit.value)?;
    Ok(convert(lw, v, elem))
}

/// `#comp_alloc(v, n1[, n2])`: the array a comprehension fills, of the type of the
/// variable `v` that holds its body's value (known from earlier inference rounds;
/// Bool, the bottom of the numeric tower, until then).
fn comp_alloc(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let Some(ExprKind::Var(v)) = args.first().map(|a| &a.value.kind) else {
        return Err(lw.unsupported("comprehension", line, "malformed"));
    };
    let t = match lw.vars.get(v) {
        Some(t) => *t,
        None if lw.final_pass() => return Err(lw.unsupported("comprehension", line, "the type of its values is unknown")),
        None => Ty::scalar(BOOL),
    };
    if t.rank > 0 {
        return Err(lw.unsupported("comprehension whose values are arrays", line, "an array of arrays does not compile"));
    }
    let mut dims = Vec::new();
    for a in &args[1..] {
        let n = lw.expr(&a.value)?;
        dims.push(to_count(lw, n, "comprehension size", line)?);
    }
    Ok(alloc(lw, AllocInit::Zeros, t.elem, dims))
}

// ----- annotations -----

/// `#argtype(x, "T")`: the argument the caller gave `x` must be a `T` (Julia's method
/// matching): else Julia's MethodError, at compile time.
fn arg_type_check(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let [p, t] = args else { return Err(lw.unsupported("annotation", line, "malformed")) };
    let (ExprKind::Var(name), ExprKind::Str(tname)) = (&p.value.kind, &t.value.kind) else {
        return Err(lw.unsupported("annotation", line, "malformed"));
    };
    let Some(given) = lw.given_argument(name) else { return Ok(ops::bool_const(true)) };
    if !jtypes::matches(tname, given) {
        return Err(lw.diag(
            crate::ErrorKind::Type,
            &format!("call of `{}`", lw.fname),
            line,
            &format!("MethodError: no method matching {}(..., ::{}, ...): the parameter `{name}` is declared `::{tname}`", lw.fname, ops::ty_name(given)),
        ));
    }
    Ok(ops::bool_const(true))
}

/// `#convert_to("T", v)`: the value a function declared `f(...)::T` returns.
fn convert_to(lw: &mut Lowerer, args: &[Arg], line: Line) -> R {
    let [t, v] = args else { return Err(lw.unsupported("result type", line, "malformed")) };
    let ExprKind::Str(tname) = &t.value.kind else { return Err(lw.unsupported("result type", line, "malformed")) };
    let v = lw.expr(&v.value)?;
    let v = ops::norm(lw, v);
    if let Some(elem) = scalar_type(tname) {
        if v.ty.rank > 0 {
            return Err(lw.unsupported(
                &format!("result type `{tname}`"),
                line,
                &format!("the function returns a {} (MethodError: Cannot convert)", ops::ty_name(v.ty)),
            ));
        }
        return Ok(convert(lw, v, elem));
    }
    if jtypes::matches(tname, v.ty) {
        return Ok(v);
    }
    Err(lw.unsupported(&format!("result type `{tname}`"), line, &format!("the function returns a {}", ops::ty_name(v.ty))))
}
