//! Which reads of a local need their "assigned" check. Every local carries an "assigned"
//! flag and every read tests it (reading an unassigned variable is a run-time error), but
//! most reads are of a variable that reaching definitions prove assigned on every path:
//! R growcut had 173 of its 258 check sites of this kind. Their tests and failure blocks
//! are what LLVM's passes and machine code generation spend time on before proving them
//! dead (compile latency, issue 18): a local proved assigned at every statement that
//! reads it is read without a check.
//!
//! Proof: `analysis::reaching` (the same facts loop versioning relies on), at the
//! statement that reads the variable. For a `while` condition, evaluated at the loop head
//! and not only on entry, the entry's fact carries over because only `free` can take a
//! value away: locals that some `free` names keep every check.

use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{preorder, stmt_uses};
use crate::vrir::ast::{Function, StmtKind};
use std::collections::BTreeSet;

/// The locals of `f` that hold a value at every statement that reads them (reached
/// statements; a read in code no path reaches keeps the variable's checks).
pub(crate) fn assigned_at_every_read(f: &Function) -> BTreeSet<String> {
    let stmts = preorder(&f.body);
    let freed: BTreeSet<&str> = stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Free { var } => Some(var.as_str()),
            _ => None,
        })
        .collect();
    let mut proved: BTreeSet<String> = f
        .locals
        .iter()
        .map(|l| l.name.clone())
        .filter(|n| !freed.contains(n.as_str()))
        .collect();
    if proved.is_empty() {
        return proved;
    }
    let reach = DefiniteAssignment::compute(f);
    for (id, s) in stmts.iter().enumerate() {
        for v in stmt_uses(s) {
            if proved.contains(&v) && !reach.certainly_assigned(id, &v) {
                proved.remove(&v);
            }
        }
    }
    proved
}
