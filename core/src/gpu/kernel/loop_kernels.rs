//! **loop-kernels** (issue 19 item 1): a serial `for` of a GPU section whose iterations
//! are independent becomes a kernel of its own, one work item per iteration.
//!
//! Why: inside a section a `for` is CPU control flow, its body planned statement by
//! statement. A loop such as nbody1d's update after its parfor,
//! `for i: v[i] += acc[i] * dt; x[i] += v[i] * dt`, then runs on the CPU with the
//! engine called before each statement (two calls per iteration, 6,000 per call of the
//! bench kernel) and brings `acc`, `v` and `x` home, so the next section starts by
//! uploading them again. numba-cuda users write this loop as a second kernel launch;
//! here the compiler does it when it can prove it safe.
//!
//! When: the proof of [`super::ndrange`] for a loop that ends a parfor's body, applied to
//! a `for` with no parfor around it (no statements before it): its bounds cannot fail and
//! are evaluated before the launch, every store separates the iterations by the loop
//! variable, a written array is read only where the same iteration writes it, every
//! scalar the body assigns is assigned before it is read in an iteration; and, since a
//! serial loop leaves its scalars holding the last iteration's values (a parfor's are
//! unspecified), every scalar the body assigns other than the loop variable is dead
//! after the loop ([`scalars_dead_after`], the planner's liveness). The loop variable
//! holds the last point afterwards (the engine sets it, as after a parfor kernel; a loop
//! of no iterations leaves it unchanged, and the engine launches nothing).
//!
//! What it keeps: every work item performs its iteration's operations in the serial
//! order, so the values are the serial loop's bit for bit; work item `j` is iteration
//! `j` in the serial order and the launch's error slot keeps the lowest failing one, so
//! the error is the one the serial loop meets first (iterations after it may have run:
//! docs/vrir-semantics.md allows that inside a GPU section). Written arrays that share a
//! buffer with another array of the body run the whole loop serially in work item 0.
//! Anything the kernel generator cannot compile (calls taking arrays, allocation,
//! `return`, random draws, ...) leaves the loop as CPU code, as before.
//!
//! Counted per kernel in [`super::Kernel::passes`] (`loop over `i` made a kernel`).

use super::Reject;
use crate::vrir::ast::{Block, Function, Stmt, StmtKind};
use crate::vrir::types::Type;

/// `s`, a `for` of a section, wrapped as the body of a parfor of no dimensions, which
/// [`super::ndrange::promote`] then makes the kernel's only dimension.
pub(super) fn as_body(s: &Stmt, on_gpu: bool) -> Result<Block, Reject> {
    match &s.kind {
        StmtKind::For { vars, .. } if vars.len() == 1 => Ok(Block {
            on_gpu,
            stmts: vec![s.clone()],
        }),
        StmtKind::For { .. } => Err("a loop over a domain of several ranges".into()),
        _ => Err("not a for loop".into()),
    }
}

/// Every scalar the body of `for` loop `s` assigns, besides the loop variable, is dead
/// after the loop (`live_after`: is a variable live when the loop completes).
pub fn scalars_dead_after(
    f: &Function,
    s: &Stmt,
    live_after: impl Fn(&str) -> bool,
) -> Result<(), Reject> {
    let StmtKind::For { vars, body, .. } = &s.kind else {
        return Err("not a for loop".into());
    };
    for v in super::assigned_vars(&body.stmts) {
        if vars.contains(&v) || !matches!(f.var_type(&v), Some(Type::Scalar { .. })) {
            continue;
        }
        if live_after(&v) {
            return Err(format!(
                "`{v}` is assigned in the loop and read after it (a kernel's scalars are private to each work item)"
            ));
        }
    }
    Ok(())
}
