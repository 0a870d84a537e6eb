//! Julia's integer ranges as the engine's sequences: `a:b` (`UnitRange`, empty when
//! `b < a`), `a:s:b` (`StepRange`: a step of 0 is Julia's ArgumentError, VRIR's
//! `zero step`), `eachindex(x)` and `axes(A, d)`. Float ranges (`0:0.1:1`,
//! `range(a, b, length=n)`) compute their elements in extended precision in Julia
//! (`TwicePrecision`) and do not compile.

use super::ops;
use super::rules::{i64c, to_count, INT};
use crate::frontend::hir::{Expr, ExprKind};
use crate::frontend::lower::{LResult, Lowerer};
use crate::frontend::rules::SeqParts;
use crate::vrir;

pub fn seq(lw: &mut Lowerer, e: &Expr) -> Option<LResult<SeqParts>> {
    let line = e.line;
    match &e.kind {
        ExprKind::Binary(crate::frontend::hir::BinOp::Colon, a, b) => Some(parts(lw, a, None, b, line)),
        ExprKind::Call { func, args } if func == "#range" && args.len() == 3 => Some(parts(lw, &args[0].value, Some(&args[1].value), &args[2].value, line)),
        ExprKind::Call { func, args } if func == "eachindex" && args.len() == 1 && !lw.is_user_function(func) => Some((|| {
            let x = lw.expr(&args[0].value)?;
            let n = if x.ty.rank == 0 { i64c(1) } else { vrir::Expr::Lib { func: vrir::LibFn::Len, args: vec![x.expr] } };
            Ok(SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INT })
        })()),
        ExprKind::Call { func, args } if func == "axes" && args.len() == 2 && !lw.is_user_function(func) => Some((|| {
            let n = super::builtins::size_of(lw, &args[0].value, &args[1].value, line)?;
            Ok(SeqParts { start: i64c(1), stop: n, step: i64c(1), elem: INT })
        })()),
        _ => None,
    }
}

fn endpoint(lw: &mut Lowerer, e: &Expr, what: &str, line: u32) -> LResult<vrir::Expr> {
    let v = lw.expr(e)?;
    let v = ops::norm(lw, v);
    if v.ty.rank == 0 && matches!(v.ty.elem, crate::vrir::ScalarType::F64) {
        return Err(lw.unsupported(
            "range of Float64",
            line,
            "Julia computes float ranges in extended precision (StepRangeLen); compiled ranges are integers (write `1:n` and compute the float inside the loop)",
        ));
    }
    to_count(lw, v, what, line)
}

fn parts(lw: &mut Lowerer, a: &Expr, step: Option<&Expr>, b: &Expr, line: u32) -> LResult<SeqParts> {
    let start = endpoint(lw, a, "range start", line)?;
    let step = match step {
        Some(s) => endpoint(lw, s, "range step", line)?,
        None => i64c(1),
    };
    let stop = endpoint(lw, b, "range stop", line)?;
    Ok(SeqParts { start, stop, step, elem: INT })
}
