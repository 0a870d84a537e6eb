//! R's rule table for the shared engine: R's types (logical = bool, integer = i32,
//! double = f64, complex = c128), its operators and numeric semantics, conditions,
//! sequences and entry checks. What R does that VRIR does not (NA on integer overflow,
//! logical NA from comparisons with NaN) becomes a run-time check that raises an error,
//! never a different answer. docs/frontend-r.md lists every decision.

use super::builtins;
use crate::frontend::growth;
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line, MissingKind, UnOp};
use crate::frontend::lower::{decode_stop_message, LResult, Lowered, Lowerer, COUNT_MAX, STOP_REASON};
use crate::frontend::rules::{Language, Marker, SeqParts};
use crate::frontend::types::{wider, Ty};
use crate::vrir::{self, Layout, LibFn, Literal, ReduceOp, ScalarType};

pub struct R;

pub static RULES: R = R;

/// R's largest integer; -INT_MAX - 1 is NA_integer_.
pub const INT_MAX: i64 = i32::MAX as i64;

/// The engine's several-results marker as R source spells it (`Marker::Results`): a name
/// no R code defines, for the functions Velociraptor writes itself (outlined sections).
pub const RESULTS_MARKER: &str = ".vr_results";

pub const LOGICAL: ScalarType = ScalarType::Bool;
pub const INTEGER: ScalarType = ScalarType::I32;
pub const DOUBLE: ScalarType = ScalarType::F64;
pub const COMPLEX: ScalarType = ScalarType::C128;

pub fn i64c(v: i64) -> vrir::Expr {
    vrir::Expr::i64(v)
}

pub fn bin(op: vrir::BinOp, a: vrir::Expr, b: vrir::Expr) -> vrir::Expr {
    vrir::Expr::binary(op, a, b)
}

pub fn lib(func: LibFn, args: Vec<vrir::Expr>) -> vrir::Expr {
    vrir::Expr::Lib { func, args }
}

fn reduce(op: ReduceOp, a: vrir::Expr) -> vrir::Expr {
    vrir::Expr::Reduce { op, arg: Box::new(a), axis: None, acc: None }
}

/// A bool that is true when any element of `v` (hoisted) is NaN; None when `v` is a
/// constant that is not.
pub fn maybe_nan(lw: &mut Lowerer, v: &Lowered) -> Option<vrir::Expr> {
    match v.expr {
        vrir::Expr::Const { value: Literal::F64(x) } if !x.is_nan() => None,
        vrir::Expr::Const { value: Literal::C128([a, b]) } if !a.is_nan() && !b.is_nan() => None,
        _ => Some(any_nan(lw, v)),
    }
}

/// A bool that is true when any element of `v` (hoisted) is NaN.
pub fn any_nan(lw: &mut Lowerer, v: &Lowered) -> vrir::Expr {
    let isnan = lib(LibFn::IsNan, vec![v.expr.clone()]);
    if v.ty.rank == 0 {
        isnan
    } else {
        let counts = lw.cast(Lowered::new(isnan, v.ty.with_elem(LOGICAL)), ScalarType::I64).expr;
        bin(vrir::BinOp::Gt, reduce(ReduceOp::Sum, counts), i64c(0))
    }
}

/// R's `as.logical` of a value: NaN/NA would be logical NA, which compiled code cannot
/// hold, so it raises an error.
pub fn to_logical(lw: &mut Lowerer, v: Lowered, line: Line) -> LResult<Lowered> {
    let zero = match v.ty.elem {
        LOGICAL => return Ok(v),
        INTEGER => vrir::Expr::lit(Literal::I32(0)),
        DOUBLE => {
            let v = lw.hoist(v);
            if let Some(c) = maybe_nan(lw, &v) {
                lw.raise_if(c, "na_logical");
            }
            return Ok(Lowered::new(bin(vrir::BinOp::Ne, v.expr, vrir::Expr::f64(0.0)), v.ty.with_elem(LOGICAL)));
        }
        _ => return Err(lw.unsupported("complex value used as a logical", line, "R does not allow it either")),
    };
    Ok(Lowered::new(bin(vrir::BinOp::Ne, v.expr, zero), v.ty.with_elem(LOGICAL)))
}

/// Integer `+ - *` with R's overflow rule: computed in i64; a result outside
/// -INT_MAX..INT_MAX (R's NA) raises an error.
fn checked_int(lw: &mut Lowerer, op: vrir::BinOp, a: Lowered, b: Lowered, rank: u32) -> Lowered {
    let a = lw.cast(a, ScalarType::I64);
    let b = lw.cast(b, ScalarType::I64);
    let wide = lw.hoist(Lowered::new(bin(op, a.expr, b.expr), Ty::array(ScalarType::I64, rank)));
    check_int_range(lw, &wide);
    lw.cast(wide, INTEGER)
}

/// Raise `integer_overflow` when an i64 value (hoisted) is outside R's integers.
pub fn check_int_range(lw: &mut Lowerer, wide: &Lowered) {
    let (hi, lo) = if wide.ty.rank == 0 {
        (wide.expr.clone(), wide.expr.clone())
    } else {
        (reduce(ReduceOp::Max, wide.expr.clone()), reduce(ReduceOp::Min, wide.expr.clone()))
    };
    let out = bin(vrir::BinOp::Or, bin(vrir::BinOp::Gt, hi, i64c(INT_MAX)), bin(vrir::BinOp::Lt, lo, i64c(-INT_MAX)));
    let cond = if wide.ty.rank == 0 {
        out
    } else {
        bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, lib(LibFn::Len, vec![wide.expr.clone()]), i64c(0)), out)
    };
    lw.raise_if(cond, "integer_overflow");
}

/// The scalar i64 value of an R number used as a count or an index (a vector of length
/// one at run time is its element).
pub fn to_i64(lw: &mut Lowerer, v: Lowered, what: &str, line: Line) -> LResult<vrir::Expr> {
    if v.ty.rank > 1 {
        return Err(lw.unsupported(what, line, &format!("expected a single number, got a {}", v.ty)));
    }
    let v = if v.ty.rank == 1 { single(lw, v, COUNT_LENGTH) } else { v };
    match v.ty.elem {
        INTEGER | DOUBLE | ScalarType::I64 => Ok(lw.cast(v, ScalarType::I64).expr),
        LOGICAL => Ok(lw.cast(v, ScalarType::I64).expr),
        _ => Err(lw.unsupported(what, line, "a complex number is not a count")),
    }
}

impl Language for R {
    fn name(&self) -> &'static str {
        "R"
    }
    fn index_base(&self) -> u8 {
        1
    }
    fn layout(&self) -> Layout {
        Layout::Col
    }
    fn vrir_name(&self, name: &str) -> String {
        if vrir::text::is_plain_name(name) && !name.starts_with('_') {
            name.to_string()
        } else {
            let cleaned: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect();
            format!("r_{cleaned}")
        }
    }
    fn arguments_by_value(&self) -> bool {
        true
    }
    fn drops_unit_dims(&self) -> bool {
        true
    }
    fn marker(&self, name: &str) -> Option<Marker> {
        match name {
            "return" => Some(Marker::Return),
            "gpu" => Some(Marker::Gpu),
            "prange" => Some(Marker::ParallelRange),
            "stop" => Some(Marker::Stop),
            RESULTS_MARKER => Some(Marker::Results),
            "stopifnot" => Some(Marker::Check),
            "list" => Some(Marker::List),
            "names" => Some(Marker::Names),
            _ => None,
        }
    }

    fn literal(&self, lw: &mut Lowerer, e: &Expr) -> LResult<Lowered> {
        let s = |v: Literal, t: ScalarType| Ok(Lowered::new(vrir::Expr::lit(v), Ty::scalar(t)));
        match &e.kind {
            ExprKind::Double(v) => s(Literal::F64(*v), DOUBLE),
            ExprKind::Int(v) => s(Literal::I32(*v), INTEGER),
            ExprKind::Bool(v) => s(Literal::Bool(*v), LOGICAL),
            ExprKind::Imaginary(v) => s(Literal::C128([0.0, *v]), COMPLEX),
            ExprKind::Missing(MissingKind::Real) => s(Literal::F64(f64::NAN), DOUBLE),
            ExprKind::Missing(MissingKind::Complex) => s(Literal::C128([f64::NAN, f64::NAN]), COMPLEX),
            ExprKind::Missing(MissingKind::Logical) => Err(lw.unsupported(
                "`NA`",
                e.line,
                "compiled logicals have no NA; NA compiles only next to a double or complex operand (`x + NA`) or stored into a double or complex array (`x[i] <- NA`); use NA_real_ for a missing double",
            )),
            ExprKind::Missing(MissingKind::Integer) => Err(lw.unsupported("`NA_integer_`", e.line, "compiled integers have no NA")),
            _ => unreachable!("the engine passes only literals"),
        }
    }

    fn missing_as(&self, lw: &mut Lowerer, e: &Expr, elem: ScalarType) -> Option<LResult<Lowered>> {
        if e.kind != ExprKind::Missing(MissingKind::Logical) {
            return None;
        }
        Some(match elem {
            DOUBLE => self.literal(lw, &Expr::new(ExprKind::Missing(MissingKind::Real), e.line)),
            COMPLEX => self.literal(lw, &Expr::new(ExprKind::Missing(MissingKind::Complex), e.line)),
            _ => Err(lw.unsupported(
                "`NA`",
                e.line,
                "here it is a logical or integer NA, which compiled code has no (next to a double or stored into a double array it is NA_real_)",
            )),
        })
    }

    fn unary(&self, lw: &mut Lowerer, op: UnOp, a: Lowered, line: Line) -> LResult<Lowered> {
        match op {
            UnOp::Plus | UnOp::Neg => {
                let a = if a.ty.elem == LOGICAL { lw.cast(a, INTEGER) } else { a };
                if op == UnOp::Plus {
                    return Ok(a);
                }
                // -x of an integer never overflows: x is never NA_integer_ (INT_MIN).
                let ty = a.ty;
                Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(a.expr) }, ty))
            }
            UnOp::Not => {
                let l = to_logical(lw, a, line)?;
                let ty = l.ty;
                Ok(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(l.expr) }, ty))
            }
        }
    }

    fn binary(&self, lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
        let what = format!("`{}`", op.spelling());
        if op == BinOp::MatMul {
            return builtins::matmul(lw, a, b, line);
        }
        let (a, b) = super::recycle::conform(lw, &what, a, b, line)?;
        let rank = a.ty.rank.max(b.ty.rank);
        let both = wider(a.ty.elem, b.ty.elem);
        let ty = |e: ScalarType| Ty::array(e, rank);
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let e = wider(INTEGER, both);
                let vop = match op {
                    BinOp::Add => vrir::BinOp::Add,
                    BinOp::Sub => vrir::BinOp::Sub,
                    _ => vrir::BinOp::Mul,
                };
                if e == INTEGER {
                    return Ok(checked_int(lw, vop, a, b, rank));
                }
                let (a, b) = (lw.cast(a, e), lw.cast(b, e));
                Ok(Lowered::new(bin(vop, a.expr, b.expr), ty(e)))
            }
            BinOp::Div => {
                let e = wider(DOUBLE, both);
                let (a, b) = (lw.cast(a, e), lw.cast(b, e));
                Ok(Lowered::new(bin(vrir::BinOp::Div, a.expr, b.expr), ty(e)))
            }
            BinOp::Pow => {
                let e = wider(DOUBLE, both);
                if e == COMPLEX {
                    return complex_pow(lw, a, b, rank, line);
                }
                let (a, b) = (lw.cast(a, e), lw.cast(b, e));
                Ok(super::arith::pow(lw, a, b, rank))
            }
            BinOp::Mod | BinOp::IDiv => {
                let e = wider(INTEGER, both);
                if e == COMPLEX {
                    return Err(lw.unsupported(&what, line, "R does not define it for complex numbers"));
                }
                let (a, b) = (lw.cast(a, e), lw.cast(b, e));
                let (a, b) = if e == INTEGER { integer_divisor(lw, a, b) } else { super::arith::exact_operands(lw, a, b) };
                let vop = if op == BinOp::Mod { vrir::BinOp::Mod } else { vrir::BinOp::IDiv };
                let r = bin(vop, a.expr, b.expr);
                // R's double `%/%` never gives -0 (its quotients below 1 are 0 or -1).
                let r = if e == DOUBLE && op == BinOp::IDiv { bin(vrir::BinOp::Add, r, vrir::Expr::f64(0.0)) } else { r };
                Ok(Lowered::new(r, ty(e)))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
                let mut e = both;
                if e == COMPLEX && ordered {
                    return Err(lw.unsupported(&what, line, "complex numbers are not ordered"));
                }
                if e == LOGICAL && ordered {
                    e = INTEGER;
                }
                let (a, b) = (lw.cast(a, e), lw.cast(b, e));
                let (a, b) = if matches!(e, DOUBLE | COMPLEX) {
                    // A comparison with NaN/NA is NA in R: raise instead of answering.
                    let (a, b) = (lw.hoist(a), lw.hoist(b));
                    let cond = match (maybe_nan(lw, &a), maybe_nan(lw, &b)) {
                        (Some(x), Some(y)) => Some(bin(vrir::BinOp::Or, x, y)),
                        (x, y) => x.or(y),
                    };
                    if let Some(c) = cond {
                        lw.raise_if(c, "na_comparison");
                    }
                    (a, b)
                } else {
                    (a, b)
                };
                let vop = match op {
                    BinOp::Lt => vrir::BinOp::Lt,
                    BinOp::Le => vrir::BinOp::Le,
                    BinOp::Gt => vrir::BinOp::Gt,
                    BinOp::Ge => vrir::BinOp::Ge,
                    BinOp::Eq => vrir::BinOp::Eq,
                    _ => vrir::BinOp::Ne,
                };
                Ok(Lowered::new(bin(vop, a.expr, b.expr), ty(LOGICAL)))
            }
            BinOp::And | BinOp::Or => {
                let a = to_logical(lw, a, line)?;
                let b = to_logical(lw, b, line)?;
                let vop = if op == BinOp::And { vrir::BinOp::And } else { vrir::BinOp::Or };
                Ok(Lowered::new(bin(vop, a.expr, b.expr), ty(LOGICAL)))
            }
            BinOp::AndAnd | BinOp::OrOr | BinOp::Colon | BinOp::MatMul => unreachable!("handled by the engine"),
        }
    }

    fn scalars_are_vectors(&self) -> bool {
        true
    }

    fn compiles_call(&self, name: &str) -> bool {
        builtins::compiles(name)
    }

    fn iterates(&self, name: &str) -> bool {
        super::functionals::ITERATING.contains(&name)
    }

    fn is_recall(&self, name: &str) -> bool {
        name == "Recall"
    }

    fn builtin(&self, lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
        builtins::call(lw, name, args, line)
    }

    fn seq(&self, lw: &mut Lowerer, e: &Expr) -> Option<LResult<SeqParts>> {
        match &e.kind {
            ExprKind::Binary(BinOp::Colon, a, b) => Some(colon(lw, a, b, e.line)),
            ExprKind::Call { func, args } if !lw.is_user_function(func) => match func.as_str() {
                "seq" if super::sequences::is_value(args) => None,
                "seq_len" | "seq_along" | "seq" => Some(super::sequences::seq_call(lw, func, args, e.line)),
                _ => None,
            },
            _ => None,
        }
    }

    fn condition(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        let a = if a.ty.rank != 0 { single(lw, a, CONDITION_LENGTH) } else { a };
        Ok(to_logical(lw, a, line)?.expr)
    }

    fn index_value(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        match a.ty.elem {
            INTEGER => Ok(a.expr),
            DOUBLE => Ok(lw.cast(a, ScalarType::I64).expr),
            ScalarType::I64 => Ok(a.expr),
            LOGICAL => Err(lw.unsupported("logical scalar index", line, "R recycles it over the whole extent; index with a logical vector of full length")),
            _ => Err(lw.unsupported("complex index", line, "an index is a number")),
        }
    }

    fn index_array(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        match a.ty.elem {
            INTEGER | LOGICAL => Ok(a.expr),
            DOUBLE => Ok(lw.cast(a, INTEGER).expr),
            _ => Err(lw.unsupported("complex index", line, "an index is a number")),
        }
    }

    fn entry_check(&self, lw: &mut Lowerer, var: &str, ty: Ty) {
        if ty.elem != INTEGER {
            return;
        }
        let na = vrir::Expr::lit(Literal::I32(i32::MIN));
        let cond = if ty.rank == 0 {
            bin(vrir::BinOp::Eq, vrir::Expr::var(var), na)
        } else {
            bin(
                vrir::BinOp::And,
                bin(vrir::BinOp::Gt, lib(LibFn::Len, vec![vrir::Expr::var(var)]), i64c(0)),
                bin(vrir::BinOp::Eq, reduce(ReduceOp::Min, vrir::Expr::var(var)), na),
            )
        };
        lw.raise_if(cond, "integer_na_argument");
    }

    fn is_exclusion(&self, e: &Expr) -> bool {
        super::subscripts::is_exclusion(e)
    }

    fn exclusion(&self, lw: &mut Lowerer, e: &Expr, extent: vrir::Expr, line: Line) -> Option<LResult<vrir::Expr>> {
        super::subscripts::exclusion(lw, e, extent, line)
    }

    fn na_filled(&self, lw: &mut Lowerer, e: &Expr, elem: Option<ScalarType>) -> Option<LResult<Lowered>> {
        super::library::na_filled(lw, e, elem)
    }

    fn is_null(&self, e: &Expr) -> bool {
        super::subscripts::is_null(e)
    }

    fn is_empty_vector(&self, e: &Expr) -> bool {
        super::subscripts::is_empty_vector(e)
    }

    fn appended<'e>(&self, e: &'e Expr, name: &str) -> Option<&'e [Arg]> {
        super::subscripts::appended(e, name)
    }

    fn length_of<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        super::subscripts::length_of(e)
    }

    fn missing_value(&self, elem: ScalarType) -> Option<Literal> {
        match elem {
            DOUBLE => Some(Literal::F64(f64::NAN)),
            COMPLEX => Some(Literal::C128([f64::NAN, f64::NAN])),
            _ => None,
        }
    }

    fn host_has_answer(&self, reason: &str) -> bool {
        // R errors too for a wrong-signed `by`, a negative length, a positive subscript
        // among negative ones, a bad `diff` lag, a functional's own checks, a random
        // draw's bad arguments, a list element beyond the list's end; everything else
        // has an R answer (NA, a dropped dimension, a double sequence, a longer vector).
        !matches!(
            reason,
            "seq_wrong_sign"
                | "negative_length"
                | "seq_bad_length"
                | "seq_from_not_finite"
                | "seq_to_not_finite"
                | "seq_invalid_by"
                | "seq_by_too_small"
                | "list_subscript_out_of_bounds"
                | super::subscripts::MIXED
                | super::library::DIFF_LAG
        ) && !reason.starts_with(STOP_REASON)
            && !super::functionals::is_r_error(reason)
            && !super::random::r_errors_too(reason)
    }

    fn error_message(&self, reason: &str, counts: Option<(i64, i64)>) -> String {
        if let Some(message) = reason.strip_prefix(STOP_REASON).and_then(decode_stop_message) {
            return message;
        }
        if let Some((name, beyond)) = growth::decode_index_reason(reason) {
            let shown = |n: i64| if n >= COUNT_MAX { format!("{n} or more") } else { n.to_string() };
            return match counts {
                Some((i, len)) if beyond => super::bounds::single_message(&format!("{name}[{}]", shown(i)), i, len),
                Some((minus, len)) => super::bounds::single_message(&format!("{name}[{}]", -minus), -minus, len),
                None => format!("an index of `{name}` outside its length (R reads NA or drops elements there)"),
            };
        }
        if let Some(message) = super::random::error_message(reason) {
            return message;
        }
        match reason {
            "integer_overflow" => "integer overflow: R's result is NA (with a warning); compiled code raises this error instead".into(),
            super::arith::INEXACT_MODULUS => "`%%` or `%/%` of a double that is not a whole number below 2^31: R finishes them in long double, which compiled code reproduces only for those".into(),
            super::builtins::AS_INTEGER_NA => "as.integer of NaN, NA or a double outside R's integers: R's result is NA (with a warning), which compiled integers do not hold".into(),
            "integer_na_argument" => "an integer argument holds NA, which compiled code does not handle (run the function in R)".into(),
            "na_comparison" => "comparison with NA or NaN: R's result is a logical NA, which compiled code does not hold".into(),
            "na_logical" => "NA or NaN used as a logical value (R: missing value where TRUE/FALSE needed, or a logical NA)".into(),
            "non_integer_start" => "a sequence `a:b` whose start is not a whole number: R makes a double sequence, which compiled code does not".into(),
            "negative_length" => "a negative length or count (R: invalid argument)".into(),
            "dimension_dropped" => "a slice with a dimension of length 1 and another dimension: R drops it (drop = TRUE), which compiled code with static ranks cannot".into(),
            "seq_wrong_sign" => "wrong sign in 'by' argument of seq()".into(),
            "seq_invalid_by" => "invalid '(to - from)/by' in seq()".into(),
            "seq_by_too_small" => "'by' argument is much too small".into(),
            "seq_by_infinite" => "seq(from, to, by) with an infinite `by`: R's result is NaN or `from`, compiled code leaves it to R".into(),
            "seq_value_type" => "seq(from, to, by) over a zero span: R returns `from` (or `to`) itself, an integer here, where compiled code's sequence is double".into(),
            "zero_index_other" => "an element read with a zero index (R selects nothing) and another index that is negative or past its extent: R's answer (an error, or an exclusion) decides".into(),
            "seq_one_value" => "seq(x) of a vector of length one: R counts to its value, not its length (use seq_len or seq_along)".into(),
            "list_subscript_out_of_bounds" => "subscript out of bounds".into(),
            "list_grows" => "a list element assigned beyond the list's end: R grows the list, compiled lists keep their length".into(),
            "list_position_below_one" => "a list element selected by a position below 1: R's `[[` drops or refuses it, compiled code does neither".into(),
            "ifelse_all_na" => "ifelse() with an NA branch that every element takes: R's result is a logical NA vector (or logical(0)), which compiled code does not hold".into(),
            "seq_bad_length" => "'length.out' must be a non-negative number".into(),
            "seq_from_not_finite" => "'from' must be a finite number".into(),
            "seq_to_not_finite" => "'to' must be a finite number".into(),
            "seq_empty_integer" => "seq(..., length.out = 0) is integer(0) in R, where compiled code's sequence is double".into(),
            "seq_range_overflow" => "seq(from, to, length.out =) with `to - from` beyond the double range: R rescales, compiled code does not".into(),
            "seq_double_result" => "seq(from, by =, length.out =) of integers whose last value is beyond R's integers: R's result is double, compiled code's integer".into(),
            INTEGER_DIVISION_BY_ZERO => "integer %/% or %% by zero: R's result is NA, which compiled integers do not hold".into(),
            CONDITION_LENGTH => "a condition whose length is not 1 (R: an error, or for `&&` and `||` in older R its first element)".into(),
            COUNT_LENGTH => "a count or index whose length is not 1 (R takes its first element or raises an error)".into(),
            growth::GAP_WITHOUT_NA => "a vector grown past its end holds NA in the gap, which compiled integer and logical vectors do not hold".into(),
            growth::NULL_RESULT => "the result is a variable that was assigned NULL and is still empty: R's result may be NULL, which compiled code does not return".into(),
            super::subscripts::MIXED => "only 0's may be mixed with negative subscripts".into(),
            super::subscripts::NA_INDEX => "an NA among negative subscripts (R's result depends on it)".into(),
            super::library::WHICH_EMPTY => "which.max/which.min of an empty or all-NA vector: R's result is integer(0)".into(),
            super::library::BITW_NA => "a bitw* operand or result that is NA in R (NA, a value outside R's integers, a shift outside 0..31)".into(),
            super::library::DIFF_LAG => "'lag' and 'differences' must be integers >= 1".into(),
            super::recycle::RECYCLING => {
                let shown = |n: i64| if n >= COUNT_MAX { format!("{n} or more") } else { n.to_string() };
                let lengths = counts.map_or("lengths".to_string(), |(a, b)| format!("lengths {} and {}", shown(a), shown(b)));
                format!("{lengths} differ and neither is 1: R recycles the shorter, compiled code combines only equal lengths or length 1")
            }
            other => super::functionals::error_message(other, counts).unwrap_or_else(|| format!("run-time check `{other}` failed")),
        }
    }
}

/// Reason of an integer `%/%` or `%%` by zero (R: NA).
pub const INTEGER_DIVISION_BY_ZERO: &str = "integer_division_by_zero";
/// Reason of a condition (`if`, `while`, `&&`) whose length is not 1.
pub const CONDITION_LENGTH: &str = "condition_length";
/// Reason of a count or scalar index given as a vector whose length is not 1.
pub const COUNT_LENGTH: &str = "count_length";

/// The integer divisor `b` of `a %/% b` or `a %% b`, raising `INTEGER_DIVISION_BY_ZERO`
/// where an element is 0 (R answers NA there; VRIR would raise `division by zero`).
fn integer_divisor(lw: &mut Lowerer, a: Lowered, b: Lowered) -> (Lowered, Lowered) {
    if matches!(b.expr, vrir::Expr::Const { value: Literal::I32(v) } if v != 0) {
        return (a, b);
    }
    let b = lw.hoist(b);
    let zero = bin(vrir::BinOp::Eq, b.expr.clone(), vrir::Expr::lit(Literal::I32(0)));
    let a = if b.ty.rank == 0 && a.ty.rank > 0 { lw.hoist(a) } else { a };
    let cond = if b.ty.rank == 0 && a.ty.rank > 0 {
        // Nothing is divided when `a` is empty.
        bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, lib(LibFn::Len, vec![a.expr.clone()]), i64c(0)), zero)
    } else if b.ty.rank == 0 {
        zero
    } else {
        let count = lw.cast(Lowered::new(zero, b.ty.with_elem(LOGICAL)), ScalarType::I64);
        bin(vrir::BinOp::Gt, reduce(ReduceOp::Sum, count.expr), i64c(0))
    };
    lw.raise_if(cond, INTEGER_DIVISION_BY_ZERO);
    (a, b)
}

/// The one element of a vector used where R needs a single value (a condition, a
/// count): `reason` is raised when its length is not 1 at run time.
pub fn single(lw: &mut Lowerer, v: Lowered, reason: &str) -> Lowered {
    let v = lw.hoist(v);
    lw.raise_if(bin(vrir::BinOp::Ne, lib(LibFn::Len, vec![v.expr.clone()]), i64c(1)), reason);
    let first = vrir::Expr::Index { array: Box::new(v.expr), indices: vec![i64c(1)], flags: vrir::IndexFlags { flatten: v.ty.rank > 1, ..vrir::IndexFlags::default() } };
    Lowered::new(first, Ty::scalar(v.ty.elem))
}

/// `a:b`: integer when `a` is an integer or a whole number (R's rule), counting up or
/// down; the stop is the last value not passing `b`.
fn colon(lw: &mut Lowerer, a: &Expr, b: &Expr, line: Line) -> LResult<SeqParts> {
    let va = lw.expr(a)?;
    let vb = lw.expr(b)?;
    if va.ty.rank != 0 || vb.ty.rank != 0 {
        return Err(lw.unsupported("`:`", line, "its operands must be single numbers"));
    }
    if va.ty.elem == COMPLEX || vb.ty.elem == COMPLEX {
        return Err(lw.unsupported("`:`", line, "complex operands"));
    }
    let start_const = match a.kind {
        ExprKind::Double(v) if v.fract() == 0.0 && v.abs() <= INT_MAX as f64 => Some(v as i64),
        ExprKind::Int(v) => Some(v as i64),
        _ => None,
    };
    let start = if let Some(s) = start_const {
        Lowered::new(i64c(s), Ty::scalar(ScalarType::I64))
    } else if va.ty.elem == DOUBLE {
        let va = lw.hoist(va);
        let s = lw.hoist(lw.cast(va.clone(), ScalarType::I64));
        let back = lw.cast(s.clone(), DOUBLE);
        lw.raise_if(bin(vrir::BinOp::Ne, back.expr, va.expr), "non_integer_start");
        s
    } else {
        lw.hoist(lw.cast(va, ScalarType::I64))
    };
    let stop_const = match b.kind {
        ExprKind::Double(v) if v.fract() == 0.0 && v.abs() <= INT_MAX as f64 => Some(v as i64),
        ExprKind::Int(v) => Some(v as i64),
        _ => None,
    };
    let stop = if let Some(s) = stop_const {
        Lowered::new(i64c(s), Ty::scalar(ScalarType::I64))
    } else if vb.ty.elem == DOUBLE {
        // start + trunc(b - start): the last value not passing b, in either direction.
        let startf = lw.cast(start.clone(), DOUBLE);
        let dist = lw.cast(Lowered::new(bin(vrir::BinOp::Sub, vb.expr, startf.expr), Ty::scalar(DOUBLE)), ScalarType::I64);
        lw.hoist(Lowered::new(bin(vrir::BinOp::Add, start.expr.clone(), dist.expr), Ty::scalar(ScalarType::I64)))
    } else {
        lw.hoist(lw.cast(vb, ScalarType::I64))
    };
    let step = match (start_const, stop_const) {
        (Some(s), Some(t)) => i64c(if s <= t { 1 } else { -1 }),
        _ => {
            // 1 when counting up, -1 when down: 2 * (start <= stop) - 1.
            let up = lw.cast(Lowered::new(bin(vrir::BinOp::Le, start.expr.clone(), stop.expr.clone()), Ty::scalar(LOGICAL)), ScalarType::I64);
            bin(vrir::BinOp::Sub, bin(vrir::BinOp::Mul, i64c(2), up.expr), i64c(1))
        }
    };
    Ok(SeqParts { start: start.expr, stop: stop.expr, step, elem: INTEGER })
}

/// A complex power as R computes it (arithmetic.c, `mycpow`): an exponent that is a whole
/// number k with |k| <= 65536 is `R_cpow_n`, repeated squaring from `1 + 0i` (`z = 1; while
/// (k > 0) { if (k & 1) z = z * X; if (k == 1) break; k >>= 1; X = X * X }`), each product
/// C's `(ac - bd) + (ad + bc)i` as VRIR's; compiled here for a constant k >= 0. Other
/// exponents go to C's `cpow` (and a negative k to C's complex division), whose last bits
/// compiled code does not reproduce: refused.
fn complex_pow(lw: &mut Lowerer, a: Lowered, b: Lowered, rank: u32, line: Line) -> LResult<Lowered> {
    let k = match &b.expr {
        vrir::Expr::Const { value: Literal::F64(v) } if b.ty.rank == 0 && v.fract() == 0.0 && (0.0..=65536.0).contains(v) => Some(*v as u32),
        vrir::Expr::Const { value: Literal::I32(v) } if b.ty.rank == 0 && (0..=65536).contains(v) => Some(*v as u32),
        vrir::Expr::Const { value: Literal::C128([v, im]) } if b.ty.rank == 0 && *im == 0.0 && v.fract() == 0.0 && (0.0..=65536.0).contains(v) => Some(*v as u32),
        _ => None,
    };
    let Some(mut k) = k else {
        return Err(lw.unsupported(
            "complex `^`",
            line,
            "only a constant whole exponent from 0 to 65536 compiles (R then multiplies; for other exponents it calls C's cpow, whose last bits compiled code does not reproduce)",
        ));
    };
    let t = Ty::array(COMPLEX, rank);
    let one = || vrir::Expr::lit(Literal::C128([1.0, 0.0]));
    if k == 0 {
        // R_cpow_n(X, 0) is 1 whatever X (and R's zero base gives 0^0 = 1 too).
        if rank > 0 {
            return Err(lw.unsupported("complex `^ 0` of a vector", line, "write rep(1+0i, length(x))"));
        }
        return Ok(Lowered::new(one(), Ty::scalar(COMPLEX)));
    }
    let mut x = lw.hoist(lw.cast(a, COMPLEX));
    let mut z: Option<vrir::Expr> = None;
    while k > 0 {
        if k & 1 == 1 {
            let prev = z.take().unwrap_or_else(one);
            z = Some(lw.hoist(Lowered::new(bin(vrir::BinOp::Mul, prev, x.expr.clone()), t)).expr);
        }
        if k == 1 {
            break;
        }
        k >>= 1;
        x = lw.hoist(Lowered::new(bin(vrir::BinOp::Mul, x.expr.clone(), x.expr.clone()), t));
    }
    Ok(Lowered::new(z.expect("k > 0 multiplies once"), t))
}
