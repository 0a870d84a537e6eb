//! Julia's rule table for the shared engine: Julia's types (Bool, Int64, Float64,
//! ComplexF64), arrays by reference, column-major and 1-based, ranges that are empty
//! when they end before they start, Bool-only conditions, indices that are integers,
//! and the messages of Julia's errors. docs/frontend-julia.md lists every decision.

use super::ops::{self, Op};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line, UnOp};
use crate::frontend::lower::{decode_stop_message, LResult, Lowered, Lowerer, STOP_REASON};
use crate::frontend::rules::{Language, Marker, SeqParts};
use crate::frontend::types::Ty;
use crate::vrir::{self, Layout, LibFn, Literal, ScalarType};

pub struct Julia;

pub static RULES: Julia = Julia;

pub const BOOL: ScalarType = ScalarType::Bool;
pub const INT: ScalarType = ScalarType::I64;
pub const FLOAT: ScalarType = ScalarType::F64;
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

/// The prefix of VRIR names of Julia names that are not plain VRIR names (Unicode,
/// `!`, a leading `_`): `scale!` is `_jl_scale_x21`. Names the front end makes itself
/// (`#g1_x`) become `_h_g1_x`.
const ESCAPED: &str = "_jl_";
const HIDDEN: &str = "_h_";

/// The VRIR name of a Julia name (injective: escapes are hex code points).
pub fn vrir_name(name: &str) -> String {
    if let Some(rest) = name.strip_prefix('#') {
        return format!("{HIDDEN}{}", escape(rest));
    }
    if vrir::text::is_plain_name(name) && !name.starts_with('_') && !name.contains('.') {
        return name.to_string();
    }
    format!("{ESCAPED}{}", escape(name))
}

fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c == '_' {
            out.push_str("__");
        } else {
            out.push_str(&format!("_x{:x}_", c as u32));
        }
    }
    out
}

/// The Julia name of a VRIR name `vrir_name` made (specializations `f__2` are `f`).
pub fn julia_name(v: &str) -> String {
    let base = match v.rsplit_once("__") {
        Some((b, n)) if !b.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => b,
        _ => v,
    };
    if let Some(rest) = base.strip_prefix(ESCAPED) {
        return unescape(rest).unwrap_or_else(|| base.to_string());
    }
    if let Some(rest) = base.strip_prefix(HIDDEN) {
        return unescape(rest).map(|s| format!("#{s}")).unwrap_or_else(|| base.to_string());
    }
    base.to_string()
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::new();
    let b: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '_' {
            if b.get(i + 1) == Some(&'_') {
                out.push('_');
                i += 2;
                continue;
            }
            if b.get(i + 1) == Some(&'x') {
                let end = b[i + 2..].iter().position(|c| *c == '_')? + i + 2;
                let hex: String = b[i + 2..end].iter().collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                i = end + 1;
                continue;
            }
            return None;
        }
        out.push(b[i]);
        i += 1;
    }
    Some(out)
}

/// The element type of a Julia type name (`Int` is `Int64`).
pub fn scalar_type(name: &str) -> Option<ScalarType> {
    Some(match name {
        "Bool" => BOOL,
        "Int" | "Int64" => INT,
        "Float64" => FLOAT,
        "ComplexF64" | "Complex{Float64}" => COMPLEX,
        _ => return None,
    })
}

/// The i64 value of an integer used as a count or a dimension.
pub fn to_count(lw: &mut Lowerer, v: Lowered, what: &str, line: Line) -> LResult<vrir::Expr> {
    let v = ops::norm(lw, v);
    if v.ty.rank != 0 || !matches!(v.ty.elem, INT | BOOL) {
        return Err(lw.unsupported(what, line, &format!("expected an integer, got a {}", ops::ty_name(v.ty))));
    }
    Ok(lw.cast(v, INT).expr)
}

impl Language for Julia {
    fn name(&self) -> &'static str {
        "Julia"
    }
    fn index_base(&self) -> u8 {
        1
    }
    fn layout(&self) -> Layout {
        Layout::Col
    }
    fn vrir_name(&self, name: &str) -> String {
        vrir_name(name)
    }
    fn arguments_by_value(&self) -> bool {
        false
    }
    fn drops_unit_dims(&self) -> bool {
        false
    }
    fn zero_index_selects_nothing(&self) -> bool {
        false
    }
    fn parallel_index_type(&self) -> ScalarType {
        INT
    }
    fn stores_convert(&self) -> bool {
        true
    }
    fn convert_stored(&self, lw: &mut Lowerer, v: Lowered, elem: ScalarType) -> Lowered {
        super::builtins::convert(lw, v, elem)
    }
    fn marker(&self, name: &str) -> Option<Marker> {
        match name {
            "return" => Some(Marker::Return),
            "#gpu" => Some(Marker::Gpu),
            "#prange" => Some(Marker::ParallelRange),
            "error" => Some(Marker::Stop),
            super::desugar::RESULTS => Some(Marker::Results),
            "#argtype" | "#empty_fold" => Some(Marker::Check),
            _ => None,
        }
    }

    fn literal(&self, lw: &mut Lowerer, e: &Expr) -> LResult<Lowered> {
        let s = |v: Literal, t: ScalarType| Ok(Lowered::new(vrir::Expr::lit(v), Ty::scalar(t)));
        match &e.kind {
            ExprKind::Double(v) => s(Literal::F64(*v), FLOAT),
            ExprKind::Int(v) => s(Literal::I64(*v as i64), INT),
            ExprKind::Bool(v) => s(Literal::Bool(*v), BOOL),
            ExprKind::Imaginary(v) => s(Literal::C128([0.0, *v]), COMPLEX),
            _ => Err(lw.unsupported("missing value", e.line, "Julia's `missing` does not compile")),
        }
    }

    fn missing_as(&self, _lw: &mut Lowerer, _e: &Expr, _elem: ScalarType) -> Option<LResult<Lowered>> {
        None
    }

    fn unary(&self, lw: &mut Lowerer, op: UnOp, a: Lowered, line: Line) -> LResult<Lowered> {
        let spelled = match op {
            UnOp::Neg => "-",
            UnOp::Plus => "+",
            UnOp::Not => "!",
        };
        ops::unary(lw, spelled, a, false, line)
    }

    fn binary(&self, lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
        let o = match op {
            BinOp::Add => Op::Add,
            BinOp::Sub => Op::Sub,
            BinOp::Mul | BinOp::MatMul => Op::Mul,
            BinOp::Div => Op::Div,
            BinOp::Pow => Op::Pow,
            BinOp::Mod => Op::Mod,
            BinOp::IDiv => Op::Fld,
            BinOp::Lt => Op::Lt,
            BinOp::Le => Op::Le,
            BinOp::Gt => Op::Gt,
            BinOp::Ge => Op::Ge,
            BinOp::Eq => Op::Eq,
            BinOp::Ne => Op::Ne,
            BinOp::And => Op::And,
            BinOp::Or => Op::Or,
            BinOp::AndAnd | BinOp::OrOr | BinOp::Colon => unreachable!("handled by the engine"),
        };
        ops::binary(lw, o, a, b, false, line)
    }

    /// Julia functions compile whole (the front end cuts no sections): no call is
    /// screened as compilable on its own.
    fn compiles_call(&self, _name: &str) -> bool {
        false
    }

    fn builtin(&self, lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
        super::builtins::call(lw, name, args, line)
    }

    fn seq(&self, lw: &mut Lowerer, e: &Expr) -> Option<LResult<SeqParts>> {
        super::ranges::seq(lw, e)
    }

    fn condition(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        if a.ty != Ty::scalar(BOOL) {
            return Err(lw.diag(
                crate::ErrorKind::Type,
                "condition",
                line,
                &format!("TypeError: non-boolean ({}) used in boolean context", ops::ty_name(a.ty)),
            ));
        }
        Ok(a.expr)
    }

    fn index_value(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        match a.ty.elem {
            ScalarType::I32 | INT => Ok(a.expr),
            other => Err(lw.unsupported(
                &format!("index of type {}", ops::type_name(other)),
                line,
                "ArgumentError: invalid index (indices are integers; convert with Int(x))",
            )),
        }
    }

    fn index_array(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        match a.ty.elem {
            ScalarType::I32 | INT | BOOL => Ok(a.expr),
            other => Err(lw.unsupported(
                &format!("index array of type {}", ops::type_name(other)),
                line,
                "ArgumentError: invalid index (indices are integers or Bools)",
            )),
        }
    }

    fn entry_check(&self, _lw: &mut Lowerer, _var: &str, _ty: Ty) {}

    fn error_message(&self, reason: &str, _counts: Option<(i64, i64)>) -> String {
        if let Some(message) = reason.strip_prefix(STOP_REASON).and_then(decode_stop_message) {
            return message;
        }
        if let Some((name, _)) = crate::frontend::growth::decode_index_reason(reason) {
            return format!("BoundsError: attempt to access `{name}`, a number, at an index other than 1");
        }
        match reason {
            ops::DOMAIN_INT_POW => "DomainError: cannot raise an integer to a negative power (use a Float64 base)".into(),
            ops::DOMAIN_FLOAT_POW => {
                "DomainError: exponentiation of a negative number to a fractional power yields a complex result, which requires a complex argument".into()
            }
            ops::DIVIDE_ERROR => "DivideError: integer division error (typemin(Int) ÷ -1 overflows)".into(),
            ops::INT_FLOAT_COMPARE => "an Int64 beyond 2^53 compared with a Float64: Julia compares exact values, compiled code converts the integer".into(),
            ops::BROADCAST_EXTENT => {
                "broadcast of arrays whose extents differ: Julia broadcasts an extent of 1 (or raises DimensionMismatch), compiled code combines equal extents"
                    .into()
            }
            super::builtins::DOMAIN_SQRT => "DomainError: sqrt was called with a negative real argument (use sqrt(complex(x)))".into(),
            super::builtins::DOMAIN_LOG => "DomainError: log was called with a negative real argument (use log(complex(x)))".into(),
            super::builtins::DOMAIN_TRIG => "DomainError: sin, cos and tan are only defined for finite arguments".into(),
            super::builtins::DOMAIN_ASIN => "DomainError: asin and acos are only defined for arguments in [-1, 1]".into(),
            super::builtins::INEXACT => "InexactError: the value cannot be converted exactly to the target type".into(),
            super::builtins::EMPTY_FOLD => "reduction over an empty generator: Julia's answer depends on its version (zero or an error)".into(),
            super::builtins::DIMENSION_MISMATCH => "DimensionMismatch: the arrays' dimensions do not match".into(),
            super::builtins::NEGATIVE_DIMS => "ArgumentError: invalid Array dimensions (negative)".into(),
            other => format!("run-time check `{other}` failed"),
        }
    }

    fn is_exclusion(&self, _e: &Expr) -> bool {
        false
    }
    fn exclusion(&self, _lw: &mut Lowerer, _e: &Expr, _extent: vrir::Expr, _line: Line) -> Option<LResult<vrir::Expr>> {
        None
    }
    fn na_filled(&self, _lw: &mut Lowerer, _e: &Expr, _elem: Option<ScalarType>) -> Option<LResult<Lowered>> {
        None
    }
    fn is_null(&self, _e: &Expr) -> bool {
        false
    }
    fn is_empty_vector(&self, _e: &Expr) -> bool {
        false
    }
    fn appended<'e>(&self, _e: &'e Expr, _name: &str) -> Option<&'e [Arg]> {
        None
    }
    fn length_of<'e>(&self, _e: &'e Expr) -> Option<&'e str> {
        None
    }
    fn missing_value(&self, _elem: ScalarType) -> Option<Literal> {
        None
    }
    fn host_has_answer(&self, reason: &str) -> bool {
        matches!(reason, ops::INT_FLOAT_COMPARE | ops::BROADCAST_EXTENT | super::builtins::EMPTY_FOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in ["x", "scale!", "_tmp", "Δt", "x₁", "#g1_x", "a_b", "f__2x"] {
            let v = vrir_name(n);
            assert!(vrir::text::is_plain_name(&v), "{n} -> {v}");
            assert_eq!(julia_name(&v), n, "{n} -> {v}");
        }
        assert_eq!(julia_name("f__2"), "f");
    }
}
