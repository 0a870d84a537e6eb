//! Julia's arithmetic on VRIR: the promotion of Bool < Int64 < Float64 < ComplexF64,
//! Int64 that wraps (as VRIR's i64 does), `/` that is always a float division, `÷`
//! (`div`, truncating), `%` (`rem`), `mod`, `fld`, `cld`, `^` with Julia's
//! `literal_pow` for literal exponents, bitwise operators and shifts on Int64, and
//! the errors Julia raises where VRIR would answer (`DomainError`, `DivideError`).
//!
//! Operators apply to scalars; dotted operators (`.+`) and plain ones that Julia
//! defines on arrays (`+ -` of equal shapes, scaling by a scalar, `*` as a matrix
//! product, `==` of whole arrays) apply to arrays as Julia does, and anything else
//! with an array is Julia's `MethodError`, refused at compile time.

use super::rules::{bin, i64c, lib, BOOL, COMPLEX, FLOAT, INT};
use crate::frontend::hir::Line;
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::types::{tower, Ty};
use crate::vrir::{self, LibFn, Literal, ReduceOp, ScalarType};
use std::sync::OnceLock;

/// Julia's binary operators, by meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// `/`
    Div,
    Pow,
    /// `÷`, `div`
    IntDiv,
    /// `%`, `rem`
    Rem,
    Mod,
    Fld,
    Cld,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `&`
    And,
    /// `|`
    Or,
    Xor,
    Shl,
    Shr,
    Ushr,
}

impl Op {
    pub fn from_name(s: &str) -> Option<Op> {
        Some(match s {
            "+" => Op::Add,
            "-" => Op::Sub,
            "*" => Op::Mul,
            "/" => Op::Div,
            "^" => Op::Pow,
            "÷" | "div" => Op::IntDiv,
            "%" | "rem" => Op::Rem,
            "mod" => Op::Mod,
            "fld" => Op::Fld,
            "cld" => Op::Cld,
            "<" => Op::Lt,
            "<=" | "≤" => Op::Le,
            ">" => Op::Gt,
            ">=" | "≥" => Op::Ge,
            "==" => Op::Eq,
            "!=" | "≠" => Op::Ne,
            "&" => Op::And,
            "|" => Op::Or,
            "⊻" | "xor" => Op::Xor,
            "<<" => Op::Shl,
            ">>" => Op::Shr,
            ">>>" => Op::Ushr,
            _ => return None,
        })
    }
    pub fn spelling(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Pow => "^",
            Op::IntDiv => "÷",
            Op::Rem => "%",
            Op::Mod => "mod",
            Op::Fld => "fld",
            Op::Cld => "cld",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "⊻",
            Op::Shl => "<<",
            Op::Shr => ">>",
            Op::Ushr => ">>>",
        }
    }
    fn is_comparison(self) -> bool {
        matches!(self, Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne)
    }
}

/// Reasons of the run-time checks raised here (messages in `rules`).
pub const DOMAIN_INT_POW: &str = "domain_int_pow";
pub const DOMAIN_FLOAT_POW: &str = "domain_float_pow";
pub const DIVIDE_ERROR: &str = "divide_error";
pub const INT_FLOAT_COMPARE: &str = "int_float_compare";
pub const BROADCAST_EXTENT: &str = "broadcast_extent";

/// The Julia name of an element type, for messages.
pub fn type_name(e: ScalarType) -> &'static str {
    match e {
        ScalarType::Bool => "Bool",
        ScalarType::I32 => "Int32",
        ScalarType::I64 => "Int64",
        ScalarType::F32 => "Float32",
        ScalarType::F64 => "Float64",
        ScalarType::C64 => "ComplexF32",
        ScalarType::C128 => "ComplexF64",
    }
}

/// The Julia name of a type, for messages (`Vector{Float64}`).
pub fn ty_name(t: Ty) -> String {
    match t.rank {
        0 => type_name(t.elem).to_string(),
        1 => format!("Vector{{{}}}", type_name(t.elem)),
        2 => format!("Matrix{{{}}}", type_name(t.elem)),
        n => format!("Array{{{}, {n}}}", type_name(t.elem)),
    }
}

/// Only Julia's four element types reach arithmetic: an `i32` the engine made (loop
/// counters) is an Int64 here.
pub fn norm(lw: &Lowerer, v: Lowered) -> Lowered {
    match v.ty.elem {
        ScalarType::I32 => lw.cast(v, INT),
        ScalarType::F32 => lw.cast(v, FLOAT),
        ScalarType::C64 => lw.cast(v, COMPLEX),
        _ => v,
    }
}

/// The promotion of two element types (Julia's `promote_type` on our four).
pub fn promote(a: ScalarType, b: ScalarType) -> ScalarType {
    if tower(a) >= tower(b) {
        a
    } else {
        b
    }
}

fn scalar(e: vrir::Expr, t: ScalarType) -> Lowered {
    Lowered::new(e, Ty::scalar(t))
}

fn is_const(v: &Lowered) -> bool {
    matches!(v.expr, vrir::Expr::Const { .. })
}

fn const_i64(v: &Lowered) -> Option<i64> {
    match v.expr {
        vrir::Expr::Const { value: Literal::I64(k) } => Some(k),
        vrir::Expr::Const { value: Literal::I32(k) } => Some(k as i64),
        _ => None,
    }
}

/// True when any element of a bool value (scalar or array, hoisted) is.
pub fn any_true(lw: &mut Lowerer, cond: Lowered) -> vrir::Expr {
    if cond.ty.rank == 0 {
        return cond.expr;
    }
    let counts = lw.cast(cond, INT).expr;
    bin(vrir::BinOp::Gt, vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(counts), axis: None, acc: None }, i64c(0))
}

/// The helper function `name` of the module below, added to the program once.
pub fn helper(lw: &mut Lowerer, name: &str) -> String {
    static HELPERS: OnceLock<Vec<vrir::Function>> = OnceLock::new();
    let all = HELPERS.get_or_init(|| {
        let m = vrir::text::parse_module(&helpers_source()).expect("the helper module parses");
        m.functions
    });
    let f = all.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no helper `{name}`"));
    if !lw.final_pass() {
        // Inference rounds drop what they lower (see `Lowerer::raise_if`).
        return name.to_string();
    }
    lw.prog.helpers.entry(name.to_string()).or_insert_with(|| f.clone());
    // The helpers it calls.
    let deps: &[&str] = match name {
        "_jl_shl" | "_jl_shr" | "_jl_ushr" => &["_jl_shl", "_jl_shr", "_jl_pow2"],
        _ => &[],
    };
    for d in deps {
        if !lw.prog.helpers.contains_key(*d) {
            helper(lw, d);
        }
    }
    name.to_string()
}

/// Call a scalar helper on scalars, or map it over arrays.
pub fn apply_helper(lw: &mut Lowerer, name: &str, args: Vec<Lowered>, result: ScalarType) -> Lowered {
    let f = helper(lw, name);
    let rank = args.iter().map(|a| a.ty.rank).max().unwrap_or(0);
    let exprs = args.into_iter().map(|a| a.expr).collect();
    let e = if rank == 0 { vrir::Expr::Call { func: f, args: exprs } } else { vrir::Expr::Map { func: f, args: exprs } };
    Lowered::new(e, Ty::array(result, rank))
}

/// The VRIR text of the helpers (bit operations, Julia's float `mod`, `cld`, `sign`,
/// float `max`/`min`/`clamp` (Julia orders -0.0 below 0.0, where VRIR keeps the first of a tie:
/// the sum of two zeros is -0.0 only when both are), `ifelse` per element type).
fn helpers_source() -> String {
    let bitop = |name: &str, test: &str| {
        format!(
            "(function {name} ((a i64) (b i64)) (i64)
               (locals (x i64) (y i64) (r i64) (p i64) (k i64))
               (set x a) (set y b) (set r 0) (set p 1)
               (for (k) (range 1 64)
                 (block
                   (if {test} (block (set r (+ r p))))
                   (set x (idiv x 2))
                   (set y (idiv y 2))
                   (set p (* p 2))))
               (return r))\n"
        )
    };
    let mut s = String::from("(module julia_helpers :index-base 1\n");
    s += &bitop("_jl_band", "(and (== (mod x 2) 1) (== (mod y 2) 1))");
    s += &bitop("_jl_bor", "(or (== (mod x 2) 1) (== (mod y 2) 1))");
    s += &bitop("_jl_bxor", "(!= (mod x 2) (mod y 2))");
    s += "(function _jl_pow2 ((k i64)) (i64)
            (locals)
            (if (== k 63) (block (return (- (neg 9223372036854775807) 1))))
            (return (cast i64 (pow 2.0 (cast f64 k)))))
          (function _jl_shl ((a i64) (n i64)) (i64)
            (locals)
            (if (< n 0) (block (return (call _jl_shr a (neg n)))))
            (if (>= n 64) (block (return 0)))
            (return (* a (call _jl_pow2 n))))
          (function _jl_shr ((a i64) (n i64)) (i64)
            (locals)
            (if (< n 0) (block (return (call _jl_shl a (neg n)))))
            (if (>= n 63) (block (if (< a 0) (block (return -1)) (block (return 0)))))
            (return (idiv a (call _jl_pow2 n))))
          (function _jl_ushr ((a i64) (n i64)) (i64)
            (locals)
            (if (< n 0) (block (return (call _jl_shl a (neg n)))))
            (if (>= n 64) (block (return 0)))
            (if (or (== n 0) (>= a 0)) (block (return (call _jl_shr a n))))
            (return (+ (call _jl_shr a n) (call _jl_pow2 (- 64 n)))))
          (function _jl_fmod ((x f64) (y f64)) (f64)
            (locals (r f64))
            (set r (rem x y))
            (if (== r 0.0) (block (if (< y 0.0) (block (return -0.0)) (block (return 0.0)))))
            (if (!= (> r 0.0) (> y 0.0)) (block (return (+ r y))))
            (return r))
          (function _jl_cld ((a i64) (b i64)) (i64)
            (locals (d i64))
            (set d (/ a b))
            (if (and (== (> a 0) (> b 0)) (!= (* d b) a)) (block (return (+ d 1))))
            (return d))
          (function _jl_fmax ((x f64) (y f64)) (f64)
            (locals)
            (if (and (== x 0.0) (== y 0.0)) (block (return (+ x y))))
            (return (max x y)))
          (function _jl_fmin ((x f64) (y f64)) (f64)
            (locals)
            (if (and (== x 0.0) (== y 0.0)) (block (return (neg (+ (neg x) (neg y))))))
            (return (min x y)))
          (function _jl_fclamp ((x f64) (lo f64) (hi f64)) (f64)
            (locals)
            (if (> x hi) (block (return hi)))
            (if (< x lo) (block (return lo)))
            (return x))
          (function _jl_sign ((x f64)) (f64)
            (locals)
            (if (> x 0.0) (block (return 1.0)))
            (if (< x 0.0) (block (return -1.0)))
            (return x))\n";
    for t in ["bool", "i64", "f64", "c128"] {
        s += &format!(
            "(function _jl_ifelse_{t} ((c bool) (a {t}) (b {t})) ({t})
               (locals)
               (if c (block (return a)))
               (return b))\n"
        );
    }
    s += ")";
    s
}

/// The ifelse helper for an element type.
pub fn ifelse_helper(e: ScalarType) -> &'static str {
    match e {
        ScalarType::Bool => "_jl_ifelse_bool",
        ScalarType::I32 | ScalarType::I64 => "_jl_ifelse_i64",
        ScalarType::F32 | ScalarType::F64 => "_jl_ifelse_f64",
        _ => "_jl_ifelse_c128",
    }
}

/// Raise `reason` when `cond` (a bool scalar or array) holds anywhere.
pub fn raise_where(lw: &mut Lowerer, cond: Lowered, reason: &str) {
    let c = any_true(lw, cond);
    lw.raise_if(c, reason);
}

/// `a OP b`. `dotted`: the broadcast form (`.+`), element-wise over arrays.
pub fn binary(lw: &mut Lowerer, op: Op, a: Lowered, b: Lowered, dotted: bool, line: Line) -> LResult<Lowered> {
    let a = norm(lw, a);
    let b = norm(lw, b);
    let arrays = (a.ty.rank > 0, b.ty.rank > 0);
    if arrays != (false, false) {
        if dotted {
            return broadcast(lw, op, a, b, line);
        }
        return array_op(lw, op, a, b, line);
    }
    elementwise(lw, op, a, b, line)
}

/// A dotted operator with an array operand: equal ranks (checked for equal extents:
/// Julia would broadcast an extent of 1, which compiled code does not), or a scalar.
fn broadcast(lw: &mut Lowerer, op: Op, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let (a, b) = conform(lw, &format!("`.{}`", op.spelling()), a, b, line)?;
    elementwise(lw, op, a, b, line)
}

/// Two operands of a broadcast: hoisted, and for two arrays of one rank checked to
/// have the same extents at run time (`BROADCAST_EXTENT` otherwise).
pub fn conform(lw: &mut Lowerer, what: &str, a: Lowered, b: Lowered, line: Line) -> LResult<(Lowered, Lowered)> {
    if a.ty.rank == 0 || b.ty.rank == 0 {
        return Ok((a, b));
    }
    if a.ty.rank != b.ty.rank {
        return Err(lw.unsupported(
            &format!("broadcast {what} of a {} and a {}", ty_name(a.ty), ty_name(b.ty)),
            line,
            "compiled broadcasting combines arrays of one rank (or an array and a scalar)",
        ));
    }
    let a = lw.hoist(a);
    let b = lw.hoist(b);
    let mut differ: Option<vrir::Expr> = None;
    for k in 0..a.ty.rank {
        let d = bin(vrir::BinOp::Ne, vrir::Expr::Dim { arg: Box::new(a.expr.clone()), axis: k }, vrir::Expr::Dim { arg: Box::new(b.expr.clone()), axis: k });
        differ = Some(match differ {
            None => d,
            Some(x) => bin(vrir::BinOp::Or, x, d),
        });
    }
    lw.raise_if(differ.expect("rank >= 1"), BROADCAST_EXTENT);
    Ok((a, b))
}

/// `conform` over several operands: every array against the first one.
pub fn conform_all(lw: &mut Lowerer, what: &str, vals: &mut [Lowered], line: Line) -> LResult<()> {
    let Some(first) = vals.iter().position(|v| v.ty.rank > 0) else { return Ok(()) };
    let mut anchor = vals[first].clone();
    for (k, v) in vals.iter_mut().enumerate() {
        if k != first && v.ty.rank > 0 {
            let (a, b) = conform(lw, what, anchor, v.clone(), line)?;
            anchor = a;
            *v = b;
        }
    }
    vals[first] = anchor;
    Ok(())
}

/// A plain operator with an array operand: what Julia defines for arrays.
fn array_op(lw: &mut Lowerer, op: Op, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let method_error = |lw: &Lowerer| {
        lw.unsupported(
            &format!("`{}` of a {} and a {}", op.spelling(), ty_name(a.ty), ty_name(b.ty)),
            line,
            &format!("Julia has no such method (MethodError); use the broadcast `.{}`", op.spelling()),
        )
    };
    match op {
        Op::Add | Op::Sub if a.ty.rank == b.ty.rank => elementwise(lw, op, a, b, line),
        Op::Mul if a.ty.rank == 0 || b.ty.rank == 0 => elementwise(lw, op, a, b, line),
        Op::Div if b.ty.rank == 0 => elementwise(lw, op, a, b, line),
        Op::Mul if a.ty.rank == 2 && (b.ty.rank == 1 || b.ty.rank == 2) => {
            let e = promote(promote(a.ty.elem, b.ty.elem), INT);
            let rank = b.ty.rank;
            let (a, b) = (lw.cast(a, e), lw.cast(b, e));
            Ok(Lowered::new(lib(LibFn::Matmul, vec![a.expr, b.expr]), Ty::array(e, rank)))
        }
        Op::Eq | Op::Ne if a.ty.rank == b.ty.rank => {
            // Whole arrays: equal shapes and elements (the element test only runs when
            // the shapes agree: `and` short-circuits on scalars).
            let e = promote(a.ty.elem, b.ty.elem);
            let (a, b) = (lw.hoist(lw.cast(a, e)), lw.hoist(lw.cast(b, e)));
            let mut same: Option<vrir::Expr> = None;
            for k in 0..a.ty.rank {
                let d = bin(
                    vrir::BinOp::Eq,
                    vrir::Expr::Dim { arg: Box::new(a.expr.clone()), axis: k },
                    vrir::Expr::Dim { arg: Box::new(b.expr.clone()), axis: k },
                );
                same = Some(match same {
                    None => d,
                    Some(x) => bin(vrir::BinOp::And, x, d),
                });
            }
            let differ = Lowered::new(bin(vrir::BinOp::Ne, a.expr, b.expr), a.ty.with_elem(BOOL));
            let none = bin(vrir::BinOp::Eq, vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(lw.cast(differ, INT).expr), axis: None, acc: None }, i64c(0));
            let eq = bin(vrir::BinOp::And, same.expect("rank >= 1"), none);
            let eq = if op == Op::Ne { vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(eq) } } else { eq };
            Ok(scalar(eq, BOOL))
        }
        _ => Err(method_error(lw)),
    }
}

/// `a OP b` element by element (scalars, or arrays already conformed).
fn elementwise(lw: &mut Lowerer, op: Op, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
    let rank = a.ty.rank.max(b.ty.rank);
    let ty = |e: ScalarType| Ty::array(e, rank);
    let e = promote(a.ty.elem, b.ty.elem);
    let complex = e == COMPLEX;
    let ordered = |lw: &Lowerer| {
        if complex {
            Err(lw.unsupported(&format!("`{}` of complex numbers", op.spelling()), line, "Julia does not order complex numbers (MethodError)"))
        } else {
            Ok(())
        }
    };
    let vop = |o: vrir::BinOp, lw: &mut Lowerer, e: ScalarType, a: Lowered, b: Lowered| {
        let (a, b) = (lw.cast(a, e), lw.cast(b, e));
        Lowered::new(bin(o, a.expr, b.expr), ty(e))
    };
    let int_or_more = promote(e, INT);
    match op {
        Op::Add => Ok(vop(vrir::BinOp::Add, lw, int_or_more, a, b)),
        Op::Sub => Ok(vop(vrir::BinOp::Sub, lw, int_or_more, a, b)),
        Op::Mul => Ok(vop(vrir::BinOp::Mul, lw, int_or_more, a, b)),
        Op::Div => Ok(vop(vrir::BinOp::Div, lw, promote(e, FLOAT), a, b)),
        Op::Pow => pow(lw, a, b, line),
        Op::IntDiv | Op::Fld | Op::Cld | Op::Rem | Op::Mod => {
            ordered(lw)?;
            if int_or_more == INT {
                return int_division(lw, op, a, b);
            }
            let (a, b) = (lw.cast(a, FLOAT), lw.cast(b, FLOAT));
            match op {
                Op::Rem => Ok(Lowered::new(lib(LibFn::Rem, vec![a.expr, b.expr]), ty(FLOAT))),
                Op::Mod => Ok(apply_helper(lw, "_jl_fmod", vec![a, b], FLOAT)),
                _ => Err(lw.unsupported(
                    &format!("`{}` of floating-point numbers", op.spelling()),
                    line,
                    "Julia's float `div`, `fld` and `cld` round through `rem`; compiled code takes integers",
                )),
            }
        }
        Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne => {
            if !matches!(op, Op::Eq | Op::Ne) {
                ordered(lw)?;
            }
            let (a, b) = exact_mixed(lw, a, b);
            let vo = match op {
                Op::Lt => vrir::BinOp::Lt,
                Op::Le => vrir::BinOp::Le,
                Op::Gt => vrir::BinOp::Gt,
                Op::Ge => vrir::BinOp::Ge,
                Op::Eq => vrir::BinOp::Eq,
                _ => vrir::BinOp::Ne,
            };
            let (a, b) = (lw.cast(a, e), lw.cast(b, e));
            let _ = op.is_comparison();
            Ok(Lowered::new(bin(vo, a.expr, b.expr), ty(BOOL)))
        }
        Op::And | Op::Or | Op::Xor if e == BOOL => {
            let vo = match op {
                Op::And => vrir::BinOp::And,
                Op::Or => vrir::BinOp::Or,
                _ => vrir::BinOp::Ne,
            };
            Ok(Lowered::new(bin(vo, a.expr, b.expr), ty(BOOL)))
        }
        Op::And | Op::Or | Op::Xor | Op::Shl | Op::Shr | Op::Ushr => {
            if int_or_more != INT {
                return Err(lw.unsupported(
                    &format!("`{}` of a {} and a {}", op.spelling(), type_name(a.ty.elem), type_name(b.ty.elem)),
                    line,
                    "bit operations take integers (MethodError)",
                ));
            }
            let name = match op {
                Op::And => "_jl_band",
                Op::Or => "_jl_bor",
                Op::Xor => "_jl_bxor",
                Op::Shl => "_jl_shl",
                Op::Shr => "_jl_shr",
                _ => "_jl_ushr",
            };
            let (a, b) = (lw.cast(a, INT), lw.cast(b, INT));
            Ok(apply_helper(lw, name, vec![a, b], INT))
        }
    }
}

/// An Int64 compared with a Float64: Julia compares the exact values, converting to
/// Float64 rounds integers beyond 2^53. Such an integer (not a constant) raises
/// `INT_FLOAT_COMPARE` (the host has the answer).
fn exact_mixed(lw: &mut Lowerer, a: Lowered, b: Lowered) -> (Lowered, Lowered) {
    let mixed = |x: &Lowered, y: &Lowered| x.ty.elem == INT && matches!(y.ty.elem, FLOAT | COMPLEX) && !is_const(x);
    let check = |lw: &mut Lowerer, x: Lowered| {
        let x = lw.hoist(x);
        let big = 1i64 << 53;
        let out = bin(vrir::BinOp::Or, bin(vrir::BinOp::Gt, x.expr.clone(), i64c(big)), bin(vrir::BinOp::Lt, x.expr.clone(), i64c(-big)));
        raise_where(lw, Lowered::new(out, x.ty.with_elem(BOOL)), INT_FLOAT_COMPARE);
        x
    };
    if mixed(&a, &b) {
        let a = check(lw, a);
        return (a, b);
    }
    if mixed(&b, &a) {
        let b = check(lw, b);
        return (a, b);
    }
    (a, b)
}

/// Integer `÷ fld cld % mod` (Bool operands are Int64). A zero divisor is VRIR's
/// `division by zero` (Julia's DivideError); `typemin(Int) ÷ -1` overflows in Julia
/// (DivideError), where VRIR wraps: checked unless the divisor is a constant other
/// than -1.
fn int_division(lw: &mut Lowerer, op: Op, a: Lowered, b: Lowered) -> LResult<Lowered> {
    let (a, b) = (lw.cast(a, INT), lw.cast(b, INT));
    let rank = a.ty.rank.max(b.ty.rank);
    let ty = Ty::array(INT, rank);
    let overflows = matches!(op, Op::IntDiv | Op::Fld | Op::Cld) && const_i64(&b).is_none_or(|k| k == -1);
    let (a, b) = if overflows {
        let (a, b) = (lw.hoist(a), lw.hoist(b));
        let min = bin(vrir::BinOp::Sub, vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(i64c(i64::MAX)) }, i64c(1));
        let bad = bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, a.expr.clone(), min), bin(vrir::BinOp::Eq, b.expr.clone(), i64c(-1)));
        // `and` of arrays is element-wise; of scalars it short-circuits.
        raise_where(lw, Lowered::new(bad, ty.with_elem(BOOL)), DIVIDE_ERROR);
        (a, b)
    } else {
        (a, b)
    };
    Ok(match op {
        Op::IntDiv => Lowered::new(bin(vrir::BinOp::Div, a.expr, b.expr), ty),
        Op::Fld => Lowered::new(bin(vrir::BinOp::IDiv, a.expr, b.expr), ty),
        Op::Mod => Lowered::new(bin(vrir::BinOp::Mod, a.expr, b.expr), ty),
        Op::Rem => Lowered::new(lib(LibFn::Rem, vec![a.expr, b.expr]), ty),
        _ => apply_helper(lw, "_jl_cld", vec![a, b], INT),
    })
}

/// `x ^ y`: a literal integer exponent is Julia's `literal_pow` (`x^2` is `x*x`, `x^-1`
/// is `inv(x)`); Int64 powers wrap, with a negative exponent a DomainError (except
/// for a base of 1 or -1); Float64 powers of a negative base and a fractional exponent
/// are a DomainError; everything else is VRIR's `pow`.
fn pow(lw: &mut Lowerer, x: Lowered, y: Lowered, _line: Line) -> LResult<Lowered> {
    let rank = x.ty.rank.max(y.ty.rank);
    let e = promote(promote(x.ty.elem, y.ty.elem), INT);
    if let (Some(k @ -2..=3), true) = (const_i64(&y), x.ty.elem != BOOL) {
        let base_elem = promote(x.ty.elem, INT);
        let x = lw.cast(x, base_elem);
        let mul = |a: &Lowered, b: &Lowered| Lowered::new(bin(vrir::BinOp::Mul, a.expr.clone(), b.expr.clone()), a.ty);
        let inv = |lw: &mut Lowerer, x: Lowered| {
            let f = promote(x.ty.elem, FLOAT);
            let x = lw.cast(x, f);
            let one = lw.cast(scalar(vrir::Expr::f64(1.0), FLOAT), f);
            Lowered::new(bin(vrir::BinOp::Div, one.expr, x.expr), x.ty)
        };
        match k {
            0 => {
                let one = lw.cast(scalar(i64c(1), INT), base_elem);
                return Ok(if x.ty.rank == 0 { one } else { ones_like(lw, x, one) });
            }
            1 => return Ok(x),
            2 => {
                let x = lw.hoist(x);
                return Ok(mul(&x, &x));
            }
            3 => {
                let x = lw.hoist(x);
                return Ok(mul(&mul(&x, &x), &x));
            }
            -1 => return Ok(inv(lw, x)),
            _ => {
                let i = inv(lw, x);
                let i = lw.hoist(i);
                return Ok(mul(&i, &i));
            }
        }
    }
    let _ = e;
    match (promote(x.ty.elem, INT), promote(y.ty.elem, INT)) {
        (INT, INT) => {
            let (x, y) = (lw.hoist(lw.cast(x, INT)), lw.hoist(lw.cast(y, INT)));
            if const_i64(&y).is_none_or(|k| k < 0) {
                let neg = bin(vrir::BinOp::Lt, y.expr.clone(), i64c(0));
                let unit = bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, x.expr.clone(), i64c(1)), bin(vrir::BinOp::Eq, x.expr.clone(), i64c(-1)));
                let bad = bin(vrir::BinOp::And, neg, vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(unit) });
                raise_where(lw, Lowered::new(bad, Ty::array(BOOL, rank)), DOMAIN_INT_POW);
            }
            let ay = lib(LibFn::Abs, vec![y.expr]);
            Ok(Lowered::new(lib(LibFn::Pow, vec![x.expr, ay]), Ty::array(INT, rank)))
        }
        (COMPLEX, _) | (_, COMPLEX) => {
            let (x, y) = (lw.cast(x, COMPLEX), lw.cast(y, COMPLEX));
            Ok(Lowered::new(lib(LibFn::Pow, vec![x.expr, y.expr]), Ty::array(COMPLEX, rank)))
        }
        (_, yt) => {
            let (x, y) = (lw.hoist(lw.cast(x, FLOAT)), lw.hoist(lw.cast(y, FLOAT)));
            if yt != INT {
                // A negative base with an exponent that is not a whole number.
                let neg = bin(vrir::BinOp::Lt, x.expr.clone(), vrir::Expr::f64(0.0));
                let frac = bin(
                    vrir::BinOp::And,
                    bin(vrir::BinOp::Gt, y.expr.clone(), vrir::Expr::f64(-4e18)),
                    bin(vrir::BinOp::Ne, y.expr.clone(), lib(LibFn::Trunc, vec![y.expr.clone()])),
                );
                raise_where(lw, Lowered::new(bin(vrir::BinOp::And, neg, frac), Ty::array(BOOL, rank)), DOMAIN_FLOAT_POW);
            }
            Ok(Lowered::new(lib(LibFn::Pow, vec![x.expr, y.expr]), Ty::array(FLOAT, rank)))
        }
    }
}

/// An array of `x`'s shape filled with `one`.
fn ones_like(lw: &mut Lowerer, x: Lowered, one: Lowered) -> Lowered {
    let x = lw.hoist(x);
    let dims = (0..x.ty.rank).map(|k| vrir::Expr::Dim { arg: Box::new(x.expr.clone()), axis: k }).collect();
    let ty = x.ty.with_elem(one.ty.elem);
    Lowered::new(
        vrir::Expr::Alloc { init: vrir::AllocInit::Fill { value: Box::new(one.expr) }, ty: vrir::ArrayType::new(ty.elem, ty.rank, lw.layout()), dims },
        ty,
    )
}

/// `-x`, `+x`, `!x`, `~x` (`op`: "-", "+", "!", "~"); `dotted` for `.-x` and `.!x`.
pub fn unary(lw: &mut Lowerer, op: &str, a: Lowered, dotted: bool, line: Line) -> LResult<Lowered> {
    let a = norm(lw, a);
    match op {
        "-" | "+" => {
            if a.ty.elem == BOOL && op == "+" {
                return Ok(lw.cast(a, INT));
            }
            let a = if a.ty.elem == BOOL { lw.cast(a, INT) } else { a };
            if op == "+" {
                return Ok(a);
            }
            let ty = a.ty;
            Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(a.expr) }, ty))
        }
        "!" => {
            if a.ty.elem != BOOL {
                return Err(lw.unsupported(&format!("`!` of a {}", ty_name(a.ty)), line, "`!` takes a Bool (MethodError)"));
            }
            if a.ty.rank > 0 && !dotted {
                return Err(lw.unsupported(&format!("`!` of a {}", ty_name(a.ty)), line, "Julia has no such method (MethodError); use `.!`"));
            }
            let ty = a.ty;
            Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(a.expr) }, ty))
        }
        "~" => {
            if a.ty.rank > 0 && !dotted {
                return Err(lw.unsupported(&format!("`~` of a {}", ty_name(a.ty)), line, "Julia has no such method (MethodError); use `.~`"));
            }
            match a.ty.elem {
                BOOL => {
                    let ty = a.ty;
                    Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(a.expr) }, ty))
                }
                INT => {
                    // ~x == -x - 1 in two's complement (wrapping at typemin).
                    let ty = a.ty;
                    Ok(Lowered::new(bin(vrir::BinOp::Sub, vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(a.expr) }, i64c(1)), ty))
                }
                _ => Err(lw.unsupported(&format!("`~` of a {}", ty_name(a.ty)), line, "`~` takes integers (MethodError)")),
            }
        }
        other => Err(lw.unsupported(&format!("unary `{other}`"), line, "not a Julia operator the compiler knows")),
    }
}

/// A Bool literal value.
pub fn bool_const(v: bool) -> Lowered {
    scalar(vrir::Expr::lit(Literal::Bool(v)), BOOL)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_helpers_parse_and_verify() {
        let m = crate::vrir::text::parse_module(&super::helpers_source()).unwrap();
        crate::vrir::verify::verify_module(&m).unwrap();
    }
}
