//! What the enclosing function tells an outlined parfor body (cpu-par), from the
//! analyses over the VRIR function: which variables are live after the loop (only those
//! of the private ones are stored back by the last chunk: storing the others would keep
//! every private value and its "assigned" flag alive across the whole body, which costs
//! registers in every inner loop), and which are certainly assigned before it (a
//! variable the body only reads needs no "assigned" check inside then; a private one
//! starts each chunk assigned).

use crate::analysis::liveness::LiveVars;
use crate::analysis::preorder;
use crate::analysis::definite::DefiniteAssignment;
use crate::vrir::ast::{Block, Function, StmtKind};
use std::collections::BTreeSet;

#[derive(Clone, Debug, Default)]
pub(crate) struct ParforFacts {
    /// Variables some later statement may read after the loop completes.
    pub live_after: BTreeSet<String>,
    /// Variables (parameters and locals) that hold a value on every path to the loop.
    pub assigned_before: BTreeSet<String>,
}

/// The facts of the parfor of `f` whose body is `body` (the very block, by address);
/// `None` when `body` is no parfor body of `f` (the caller then assumes nothing).
pub(crate) fn parfor_facts(f: &Function, body: &Block) -> Option<ParforFacts> {
    let stmts = preorder(&f.body);
    let id = stmts.iter().position(
        |s| matches!(&s.kind, StmtKind::Parfor { body: b, .. } if std::ptr::eq(b, body)),
    )?;
    let live = LiveVars::compute(f);
    let reach = DefiniteAssignment::compute(f);
    let names = f
        .params
        .iter()
        .map(|p| &p.name)
        .chain(f.locals.iter().map(|l| &l.name));
    Some(ParforFacts {
        live_after: live.live_out(id)?,
        assigned_before: names
            .filter(|n| reach.certainly_assigned(id, n))
            .cloned()
            .collect(),
    })
}
