//! `licm`: loop-invariant scalar assignments move out of `for` loops. Front ends
//! compute an inner loop's bounds inside the outer loop's body (R's `for (i in
//! 2:(m - 1))` inside `for (j ...)` gives `(set _t6 (- (cast i64 m) 1))` there, then
//! `(range 2 _t6 ...)`); hoisted before the outer loop, `_t6` is a variable the nest
//! never assigns, which is what `bce-version` needs to see the inner loop's range and
//! step as invariants of the whole nest.
//!
//! A statement `(set x E)` that is directly in the body of a `for` loop L moves to just
//! before L when:
//! - E cannot fail and has no effects: constants, variables, `dim` of an array
//!   variable, `+ - *`, comparisons, `and`/`or`, `neg`/`not`, and casts from `bool` or
//!   integers (a float-to-integer cast fails on NaN; integer division by zero fails);
//! - every variable E reads is certainly assigned before L (reaching definitions) and
//!   assigned nowhere in L, so E has the same value before L as at every iteration;
//! - x is a scalar assigned only by this statement in L, and x is not live before L
//!   (liveness): no read in L sees an older value of x, and (since L may run zero
//!   times, what is live after L is live before it) nothing after L reads it, so
//!   assigning it once more, or when L runs no iteration, changes nothing.
//!
//! Whole chains move, one statement at a time (`_t7` first, then `_t8` reading it),
//! until nothing more can: the analyses are recomputed after each move. `parfor` and
//! `while` bodies are left alone. Counts `hoisted`: moves (a statement that leaves two
//! nested loops counts twice).

use super::{Counters, Pass, PassContext};
use crate::analysis::liveness::LiveVars;
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{assigned_vars, preorder, stmt_count};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, Expr, Function, LValue, Module, Stmt, StmtKind};
use crate::vrir::types::{ScalarType, Type};
use crate::vrir::verify::expr_type;
use std::collections::BTreeSet;

pub const LICM: Pass = Pass {
    name: "licm",
    summary: "move loop-invariant scalar assignments that cannot fail out of for loops",
    run: licm,
};

/// Moves per function at most (each recomputes the analyses).
const MAX_MOVES: u64 = 1000;

struct Analyses<'a> {
    m: &'a Module,
    f: &'a Function,
    live: LiveVars,
    reach: DefiniteAssignment,
}

impl Analyses<'_> {
    /// Whether `e` cannot fail, has no effects, and reads only variables certainly
    /// assigned before loop `id` and not in `loop_assigned`.
    fn invariant_and_safe(&self, e: &Expr, id: usize, loop_assigned: &BTreeSet<String>) -> bool {
        let readable = |v: &str| !loop_assigned.contains(v) && self.reach.certainly_assigned(id, v);
        match e {
            Expr::Const { .. } => true,
            Expr::Var { name } => {
                readable(name) && matches!(self.f.var_type(name), Some(Type::Scalar { .. }))
            }
            Expr::Dim { arg, .. } => {
                matches!(&**arg, Expr::Var { name } if readable(name)
                    && matches!(self.f.var_type(name), Some(Type::Array(_))))
            }
            Expr::Unary { arg, .. } => self.invariant_and_safe(arg, id, loop_assigned),
            Expr::Cast { to, arg } => {
                let from = match expr_type(self.m, self.f, arg) {
                    Ok(Type::Scalar { elem }) => elem,
                    _ => return false,
                };
                matches!(from, ScalarType::Bool | ScalarType::I32 | ScalarType::I64)
                    && matches!(to, Type::Scalar { elem } if !matches!(elem, ScalarType::C64 | ScalarType::C128))
                    && self.invariant_and_safe(arg, id, loop_assigned)
            }
            Expr::Binary { op, lhs, rhs } => {
                !matches!(op, BinOp::Div | BinOp::IDiv | BinOp::Mod)
                    && self.invariant_and_safe(lhs, id, loop_assigned)
                    && self.invariant_and_safe(rhs, id, loop_assigned)
            }
            _ => false,
        }
    }

    /// The position in `body` of a statement that may move out of loop `l` (preorder
    /// number `id`, body statements numbered from `id + 1`).
    fn movable(&self, l: &Stmt, id: usize) -> Option<usize> {
        let StmtKind::For { body, .. } = &l.kind else {
            return None;
        };
        let loop_assigned = assigned_vars(std::slice::from_ref(l));
        let all = preorder(std::slice::from_ref(l));
        body.stmts.iter().position(|s| {
            let StmtKind::Assign { targets, value } = &s.kind else {
                return false;
            };
            let [LValue::Var { name: x }] = targets.as_slice() else {
                return false;
            };
            let assignments: usize = all
                .iter()
                .map(|t| crate::analysis::assignments_of(t, x))
                .sum();
            matches!(self.f.var_type(x), Some(Type::Scalar { .. }))
                && assignments == 1
                && !self.live.is_live(id, x)
                && self.invariant_and_safe(value, id, &loop_assigned)
        })
    }
}

/// Move one statement out of a loop in `stmts` (first numbered `first`); true if moved.
fn move_one(stmts: &mut Vec<Stmt>, first: usize, a: &Analyses) -> bool {
    let mut id = first;
    for k in 0..stmts.len() {
        if let Some(pos) = a.movable(&stmts[k], id) {
            let StmtKind::For { body, .. } = &mut stmts[k].kind else {
                unreachable!("movable only finds statements in for loops");
            };
            let s = body.stmts.remove(pos);
            stmts.insert(k, s);
            return true;
        }
        let n = stmt_count(&stmts[k]);
        let mut child = id + 1;
        let moved = match &mut stmts[k].kind {
            StmtKind::Block(b) => move_one(&mut b.stmts, child, a),
            StmtKind::If { then, els, .. } => {
                let in_then: usize = then.stmts.iter().map(stmt_count).sum();
                if move_one(&mut then.stmts, child, a) {
                    true
                } else {
                    child += in_then;
                    els.as_mut()
                        .is_some_and(|e| move_one(&mut e.stmts, child, a))
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::Parfor { body, .. }
            | StmtKind::While { body, .. } => move_one(&mut body.stmts, child, a),
            _ => false,
        };
        if moved {
            return true;
        }
        id += n;
    }
    false
}

fn licm(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let mut moved = 0;
    while moved < MAX_MOVES {
        let current = f.clone();
        let a = Analyses {
            m: cx.module,
            f: &current,
            live: LiveVars::compute(&current),
            reach: DefiniteAssignment::compute(&current),
        };
        if !move_one(&mut f.body, 0, &a) {
            break;
        }
        moved += 1;
    }
    *counters.entry("hoisted").or_default() += moved;
    Ok(())
}
