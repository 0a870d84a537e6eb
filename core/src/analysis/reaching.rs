//! Reaching definitions: before each statement, which assignments may have given each
//! variable its current value. A forward analysis over the structured AST; loops iterate
//! to a fixed point, `break` flows to the loop's exit, `continue` to its next iteration,
//! and nothing flows past `return`.
//!
//! Besides real assignments, a local starts with the pseudo-definition
//! [`Site::Unassigned`] and `free` leaves [`Site::Freed`]: a variable is *certainly
//! assigned* at a statement when neither reaches it. Loop versioning relies on that to
//! evaluate its test before a loop without reading a variable the loop itself might
//! never read (reading an unassigned variable is a run-time error).

use super::{stmt_count, stmt_defs};
use crate::vrir::ast::{Block, Function, Stmt, StmtKind};
use std::collections::BTreeSet;

/// Where a variable got its value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Site {
    /// A parameter, set by the caller.
    Param,
    /// A local before any assignment.
    Unassigned,
    /// The assignment (or `alloc`) with this preorder number.
    Stmt(usize),
    /// A loop variable, set by the loop statement with this preorder number.
    Loop(usize),
    /// The `free` statement with this preorder number.
    Freed(usize),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Def {
    pub var: String,
    pub site: Site,
}

type Set = BTreeSet<Def>;

/// Definitions reaching every statement, by preorder number; `None` for a statement no
/// path reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct ReachingDefs {
    pub reach_in: Vec<Option<Set>>,
}

impl ReachingDefs {
    pub fn compute(f: &Function) -> ReachingDefs {
        let n: usize = f.body.iter().map(stmt_count).sum();
        let mut entry = Set::new();
        for p in &f.params {
            entry.insert(Def {
                var: p.name.clone(),
                site: Site::Param,
            });
        }
        for l in &f.locals {
            entry.insert(Def {
                var: l.name.clone(),
                site: Site::Unassigned,
            });
        }
        let mut w = Walker {
            reach_in: vec![None; n],
            loops: Vec::new(),
        };
        w.stmts(&f.body, 0, Some(entry));
        ReachingDefs {
            reach_in: w.reach_in,
        }
    }

    /// The definitions of `var` that reach statement `id`.
    pub fn defs_of(&self, id: usize, var: &str) -> Vec<&Def> {
        match self.reach_in.get(id) {
            Some(Some(set)) => set.iter().filter(|d| d.var == var).collect(),
            _ => vec![],
        }
    }

    /// Whether `var` holds a value on every path to statement `id` (false for a
    /// statement no path reaches).
    pub fn certainly_assigned(&self, id: usize, var: &str) -> bool {
        match self.reach_in.get(id) {
            Some(Some(set)) => set
                .iter()
                .filter(|d| d.var == var)
                .all(|d| !matches!(d.site, Site::Unassigned | Site::Freed(_))),
            _ => false,
        }
    }
}

#[derive(Default)]
struct LoopFlows {
    brk: Option<Set>,
    cont: Option<Set>,
}

struct Walker {
    reach_in: Vec<Option<Set>>,
    loops: Vec<LoopFlows>,
}

fn join(a: Option<Set>, b: Option<Set>) -> Option<Set> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(mut a), Some(b)) => {
            a.extend(b);
            Some(a)
        }
    }
}

fn kill(set: &mut Set, var: &str) {
    set.retain(|d| d.var != var);
}

impl Walker {
    fn stmts(&mut self, stmts: &[Stmt], first: usize, mut state: Option<Set>) -> Option<Set> {
        let mut id = first;
        for s in stmts {
            state = self.stmt(s, id, state);
            id += stmt_count(s);
        }
        state
    }

    fn block(&mut self, b: &Block, first: usize, state: Option<Set>) -> Option<Set> {
        self.stmts(&b.stmts, first, state)
    }

    fn stmt(&mut self, s: &Stmt, id: usize, input: Option<Set>) -> Option<Set> {
        self.reach_in[id] = input.clone();
        let Some(mut set) = input else {
            // Unreachable: nested statements are unreachable too (left as None).
            return None;
        };
        match &s.kind {
            StmtKind::Assign { .. } | StmtKind::Alloc { .. } => {
                for v in stmt_defs(s) {
                    kill(&mut set, &v);
                    set.insert(Def {
                        var: v,
                        site: Site::Stmt(id),
                    });
                }
                Some(set)
            }
            StmtKind::Free { var } => {
                kill(&mut set, var);
                set.insert(Def {
                    var: var.clone(),
                    site: Site::Freed(id),
                });
                Some(set)
            }
            StmtKind::Expr { .. } | StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => {
                Some(set)
            }
            StmtKind::Return { .. } => None,
            StmtKind::Break => {
                if let Some(l) = self.loops.last_mut() {
                    l.brk = join(l.brk.take(), Some(set));
                }
                None
            }
            StmtKind::Continue => {
                if let Some(l) = self.loops.last_mut() {
                    l.cont = join(l.cont.take(), Some(set));
                }
                None
            }
            StmtKind::Block(b) => self.block(b, id + 1, Some(set)),
            StmtKind::If { then, els, .. } => {
                let t = self.block(then, id + 1, Some(set.clone()));
                let e = match els {
                    Some(e) => {
                        let first = id + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                        self.block(e, first, Some(set))
                    }
                    None => Some(set),
                };
                join(t, e)
            }
            StmtKind::For { vars, body, .. } | StmtKind::Parfor { vars, body, .. } => {
                let entry = set;
                let mut head = entry.clone();
                loop {
                    let mut body_in = head.clone();
                    for v in vars {
                        kill(&mut body_in, v);
                        body_in.insert(Def {
                            var: v.clone(),
                            site: Site::Loop(id),
                        });
                    }
                    self.loops.push(LoopFlows::default());
                    let out = self.block(body, id + 1, Some(body_in));
                    let flows = self.loops.pop().unwrap_or_default();
                    let next = join(join(Some(entry.clone()), out), flows.cont).unwrap_or_default();
                    if next == head {
                        return join(Some(head), flows.brk);
                    }
                    head = next;
                }
            }
            StmtKind::While { body, .. } => {
                let entry = set;
                let mut head = entry.clone();
                loop {
                    self.loops.push(LoopFlows::default());
                    let out = self.block(body, id + 1, Some(head.clone()));
                    let flows = self.loops.pop().unwrap_or_default();
                    let next = join(join(Some(entry.clone()), out), flows.cont).unwrap_or_default();
                    if next == head {
                        return join(Some(head), flows.brk);
                    }
                    head = next;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::parse_module;

    fn defs(src: &str) -> (Function, ReachingDefs) {
        let m = parse_module(src).unwrap();
        let f = m.functions[0].clone();
        let r = ReachingDefs::compute(&f);
        (f, r)
    }

    #[test]
    fn both_branches_of_an_if_reach_the_join() {
        let (_, r) = defs(
            "(module m :index-base 0 (function f ((c bool)) (i64) (locals (x i64))
               (if c (block (set x 1)) (block (set x 2)))
               (return x)))",
        );
        let sites: Vec<Site> = r
            .defs_of(3, "x")
            .into_iter()
            .map(|d| d.site.clone())
            .collect();
        assert_eq!(sites, vec![Site::Stmt(1), Site::Stmt(2)]);
        assert!(r.certainly_assigned(3, "x"));
        assert!(!r.certainly_assigned(1, "x"));
        assert!(r.certainly_assigned(0, "c"));
    }

    #[test]
    fn an_if_without_else_or_a_loop_may_leave_a_local_unassigned() {
        let (_, r) = defs(
            "(module m :index-base 0 (function f ((c bool) (n i64)) (i64) (locals (x i64) (y i64) (i i64))
               (if c (block (set x 1)))
               (for (i) (range 0 n) (block (set y i)))
               (return (+ x y))))",
        );
        assert!(!r.certainly_assigned(4, "x"));
        assert!(!r.certainly_assigned(4, "y"));
        // Inside the loop body, the loop variable holds a value.
        assert!(r.certainly_assigned(3, "i"));
        assert!(!r.certainly_assigned(2, "i"));
    }

    #[test]
    fn definitions_flow_around_loops_and_free_unassigns() {
        let (_, r) = defs(
            "(module m :index-base 0 (function f ((n i64) (a f64[1,row])) (i64) (locals (k i64))
               (set k 0)
               (while (< k n) (block (set k (+ k 1))))
               (free a)
               (return k)))",
        );
        let sites: Vec<Site> = r
            .defs_of(2, "k")
            .into_iter()
            .map(|d| d.site.clone())
            .collect();
        // Before the increment: the initial 0 and the increment itself (previous iteration).
        assert_eq!(sites, vec![Site::Stmt(0), Site::Stmt(2)]);
        assert!(r.certainly_assigned(3, "a"));
        assert!(!r.certainly_assigned(4, "a"));
    }
}
