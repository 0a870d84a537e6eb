//! `index-arith`: integer arithmetic for indices that a front end computed in floating
//! point. R (`a[i, j - 1]` with `j - 1` a double) and MATLAB (everything a double)
//! produce subscripts and loop bounds such as `(cast i64 (- (cast f64 j) 1.0))` with `j`
//! an `i32`. Bounds-check elimination reads integer affine forms only, so such an index
//! hides the loop index from it; this pass rewrites the cast to `(- (cast i64 j) 1)`.
//!
//! Why the value cannot change: a `(cast i64 F)` is rewritten only when F is built
//! from `+`, `-`, `*` and `neg` over leaves that are `(cast f64 X)` with X an `i32` or
//! `bool` (exactly representable) and `f64` constants that are whole numbers, and when
//! a bound on the magnitude of every intermediate value (2^31 for an `i32`, 1 for a
//! `bool`, |c| for a constant; sums and products of those) is at most 2^53. Every
//! integer of magnitude up to 2^53 is a double, so each floating-point operation is
//! exact and the cast to `i64` (truncation, an error only for NaN or out of range)
//! gets the exact integer, which the `i64` arithmetic computes without wrapping. `i64`
//! or `f32` leaves, division, library calls and fractional constants are left alone.
//! Evaluation order and the operands themselves are kept, so errors and effects are too.
//!
//! Counts `casts_rewritten`.

use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{
    BinOp, Block, Expr, Function, LValue, Literal, Module, Stmt, StmtKind, UnOp,
};
use crate::vrir::types::{ScalarType, Type};
use crate::vrir::verify::expr_type;

pub const INDEX_ARITH: Pass = Pass {
    name: "index-arith",
    summary: "rewrite integer-valued floating-point index arithmetic to exact i64 arithmetic",
    run: index_arith,
};

/// Doubles represent every integer up to this magnitude.
const EXACT_LIMIT: u128 = 1 << 53;

struct Rewriter<'a> {
    m: &'a Module,
    /// The function before the pass (variable types only).
    f: &'a Function,
    rewritten: u64,
}

impl Rewriter<'_> {
    fn scalar(&self, e: &Expr) -> Option<ScalarType> {
        match expr_type(self.m, self.f, e) {
            Ok(Type::Scalar { elem }) => Some(elem),
            _ => None,
        }
    }

    /// `e` (an `f64` expression) as `i64` arithmetic with the same value, and a bound
    /// on the magnitude of every value it computes; None when exactness is not certain.
    fn integral(&self, e: &Expr) -> Option<(Expr, u128)> {
        let (out, bound) = match e {
            Expr::Cast { to, arg } if *to == Type::F64 => match self.scalar(arg)? {
                ScalarType::I32 => (
                    Expr::Cast {
                        to: Type::I64,
                        arg: arg.clone(),
                    },
                    1u128 << 31,
                ),
                ScalarType::Bool => (
                    Expr::Cast {
                        to: Type::I64,
                        arg: arg.clone(),
                    },
                    1,
                ),
                _ => return None,
            },
            Expr::Const {
                value: Literal::F64(c),
            } => {
                if c.fract() != 0.0 || c.abs() > EXACT_LIMIT as f64 {
                    return None;
                }
                (Expr::i64(*c as i64), c.abs() as u128)
            }
            Expr::Unary { op: UnOp::Neg, arg } => {
                let (a, b) = self.integral(arg)?;
                (
                    Expr::Unary {
                        op: UnOp::Neg,
                        arg: Box::new(a),
                    },
                    b,
                )
            }
            Expr::Binary { op, lhs, rhs } if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) => {
                let (l, lb) = self.integral(lhs)?;
                let (r, rb) = self.integral(rhs)?;
                let b = if *op == BinOp::Mul {
                    lb.checked_mul(rb)?
                } else {
                    lb + rb
                };
                (Expr::binary(*op, l, r), b)
            }
            _ => return None,
        };
        (bound <= EXACT_LIMIT).then_some((out, bound))
    }

    fn expr(&mut self, e: &mut Expr) {
        if let Expr::Cast { to, arg } = e {
            if *to == Type::I64 && self.scalar(arg) == Some(ScalarType::F64) {
                if let Some((int, _)) = self.integral(arg) {
                    *e = int;
                    self.rewritten += 1;
                    return;
                }
            }
        }
        for c in sub_exprs_mut(e) {
            self.expr(c);
        }
    }

    fn block(&mut self, b: &mut Block) {
        for s in &mut b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Assign { targets, value } => {
                self.expr(value);
                for t in targets {
                    if let LValue::Index { indices, .. } = t {
                        indices.iter_mut().for_each(|i| self.expr(i));
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.block(then);
                if let Some(e) = els {
                    self.block(e);
                }
            }
            StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                self.expr(domain);
                self.block(body);
            }
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.block(body);
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Return { values } => values.iter_mut().for_each(|v| self.expr(v)),
            StmtKind::Expr { expr } => self.expr(expr),
            StmtKind::Alloc { dims, .. } => dims.iter_mut().for_each(|d| self.expr(d)),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Free { .. }
            | StmtKind::RefIncr { .. }
            | StmtKind::RefDecr { .. } => {}
        }
    }
}

fn index_arith(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let before = f.clone();
    let mut r = Rewriter {
        m: cx.module,
        f: &before,
        rewritten: 0,
    };
    for s in &mut f.body {
        r.stmt(s);
    }
    *counters.entry("casts_rewritten").or_default() += r.rewritten;
    Ok(())
}
