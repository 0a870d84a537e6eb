//! `prealloc`: arrays a loop assigns are made certainly assigned before it, so that
//! `reuse` can write each iteration's value into the previous iteration's buffer.
//!
//! Why: in R's vector style a loop body computes its vectors afresh in every iteration
//! (`d <- x - x[k]`). `reuse` writes `C = tree` into C's buffer only where C certainly
//! holds one (reaching definitions), which inside a loop fails because of the first
//! iteration; so every iteration allocated new arrays from the call's arena, which grew
//! with the iteration count.
//!
//! What it does: before a `for` or `while` loop (outermost first; not in `parfor` bodies
//! or GPU sections), each local array variable (not `strided`) that the loop assigns as
//! a whole (`(set V ...)`, nested statements included), that is not certainly assigned
//! before the loop and not live there (liveness: no path from the loop's start reads it
//! before assigning it, the path through zero iterations included), gets an empty array
//! of its type: `(set V (empty T 0 ...))`. Nothing can observe that value, so behaviour
//! is unchanged; what it buys is V certainly assigned inside the loop, which `reuse`
//! needs (it still checks V's size at run time before writing in place).
//! Counter: `arrays_preassigned`. Runs after `fusion` (whose temporaries must stay
//! mentioned only where they are computed) and before `reuse`.

use super::{Counters, Pass, PassContext};
use crate::analysis::liveness::LiveVars;
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{stmt_count, stmt_defs, stmt_ids};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{AllocInit, Expr, Function, Stmt, StmtKind};
use crate::vrir::types::{Layout, Type};
use std::collections::BTreeSet;

pub const PREALLOC: Pass = Pass {
    name: "prealloc",
    summary:
        "give arrays a loop assigns an empty value before it, so reuse can write them in place",
    run,
};

struct Prealloc<'a> {
    f: &'a Function,
    live: LiveVars,
    reach: DefiniteAssignment,
    /// Variables already given a value before an enclosing loop.
    done: BTreeSet<String>,
    count: u64,
}

/// Variables assigned as a whole by `s` or a statement nested in it, outside `parfor`
/// bodies and GPU sections.
fn assigned_whole(s: &Stmt, out: &mut BTreeSet<String>) {
    if matches!(s.kind, StmtKind::Assign { .. }) {
        out.extend(stmt_defs(s));
    }
    if matches!(s.kind, StmtKind::Parfor { .. }) {
        return;
    }
    for b in crate::analysis::child_blocks(s) {
        if !b.on_gpu {
            for s in &b.stmts {
                assigned_whole(s, out);
            }
        }
    }
}

impl Prealloc<'_> {
    fn stmts(&mut self, stmts: Vec<Stmt>, first: usize) -> Vec<Stmt> {
        let ids = stmt_ids(&stmts, first);
        let mut out = Vec::with_capacity(stmts.len());
        for (j, mut s) in stmts.into_iter().enumerate() {
            let sid = ids[j];
            let mut added = Vec::new();
            if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) {
                let mut vars = BTreeSet::new();
                assigned_whole(&s, &mut vars);
                for v in vars {
                    let Some(Type::Array(at)) =
                        self.f.locals.iter().find(|l| l.name == v).map(|l| &l.ty)
                    else {
                        continue;
                    };
                    if at.layout == Layout::Strided
                        || self.done.contains(&v)
                        || self.reach.certainly_assigned(sid, &v)
                        || self.live.is_live(sid, &v)
                    {
                        continue;
                    }
                    let dims = (0..at.ndims).map(|_| Expr::i64(0)).collect();
                    added.push(Stmt {
                        kind: StmtKind::Assign {
                            targets: vec![crate::vrir::ast::LValue::Var { name: v.clone() }],
                            value: Expr::Alloc {
                                init: AllocInit::Empty,
                                ty: *at,
                                dims,
                            },
                        },
                        line: s.line,
                    });
                    self.done.insert(v);
                    self.count += 1;
                }
            }
            match &mut s.kind {
                StmtKind::Block(b) if !b.on_gpu => {
                    b.stmts = self.stmts(std::mem::take(&mut b.stmts), sid + 1)
                }
                StmtKind::If { then, els, .. } => {
                    let else_first = sid + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                    if !then.on_gpu {
                        then.stmts = self.stmts(std::mem::take(&mut then.stmts), sid + 1);
                    }
                    if let Some(e) = els.as_mut().filter(|e| !e.on_gpu) {
                        e.stmts = self.stmts(std::mem::take(&mut e.stmts), else_first);
                    }
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } if !body.on_gpu => {
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), sid + 1)
                }
                _ => {}
            }
            out.extend(added);
            out.push(s);
        }
        out
    }
}

fn run(f: &mut Function, _cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let orig = f.clone();
    let mut p = Prealloc {
        f: &orig,
        live: LiveVars::compute(&orig),
        reach: DefiniteAssignment::compute(&orig),
        done: BTreeSet::new(),
        count: 0,
    };
    let body = p.stmts(std::mem::take(&mut f.body), 0);
    if p.count > 0 {
        *counters.entry("arrays_preassigned").or_default() += p.count;
    }
    f.body = body;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::{parse_module, print_module};

    fn after(body: &str) -> (String, u64) {
        let src = format!(
            "(module m :index-base 1 (function f ((x f64[1,col]) (n i64)) (f64[1,col])
               (locals (d f64[1,col]) (e f64[1,col]) (k i64)) {body}))"
        );
        let m = parse_module(&src).expect("parses");
        crate::vrir::verify::verify_module(&m).expect("verifies");
        let mut f = m.functions[0].clone();
        let mut counters = Counters::default();
        let opts = super::super::OptOptions::all();
        run(
            &mut f,
            &PassContext {
                module: &m,
                options: &opts,
            },
            &mut counters,
        )
        .expect("runs");
        let mut out = m.clone();
        out.functions[0] = f;
        crate::vrir::verify::verify_module(&out).expect("still verifies");
        (
            print_module(&out),
            counters.get("arrays_preassigned").copied().unwrap_or(0),
        )
    }

    #[test]
    fn an_array_computed_in_each_iteration_gets_a_value_before_the_loop() {
        let (text, n) = after(
            "(set e x) (for (k) (range 1 n) (block (set d (* x 2.0)) (set e (+ e d)))) (return e)",
        );
        assert_eq!(n, 1, "{text}");
        assert!(text.contains("(set d (empty f64[1,col] 0))"), "{text}");
    }

    #[test]
    fn an_array_read_before_the_loop_assigns_it_is_left_alone() {
        // After zero iterations d is read: an unassigned d must still raise there.
        let (text, n) = after("(for (k) (range 1 n) (block (set d (* x 2.0)))) (return d)");
        assert_eq!(n, 0, "{text}");
    }
}
