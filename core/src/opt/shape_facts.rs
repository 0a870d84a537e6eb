//! `shape-facts`: shape tests whose answer is already known are taken as true.
//!
//! Why: `fusion` puts each fused loop under a test that its arrays have equal extents,
//! `(if (== (dim A 0) (dim B 0)) FUSED AS-WRITTEN)`, with the statements as written (one
//! library operation each, each compiled as a loop of its own) in the other branch. In
//! R's vector style those tests are mostly decided already: `recycle-version` puts a run
//! of vector statements under `(if (and (== (len A) (len B)) ...) FAST ...)`, and an
//! array allocated with `(empty T (dim A 0))` has A's extent. Every such test left in the
//! code keeps its fallback's loops, which LLVM compiles for nothing: about half of the
//! machine code of R's `arc_distance_vec` (compile latency, issue 18).
//!
//! What it does, per function (not inside GPU sections): walking the statements in
//! order, it keeps classes of extents known equal, an extent being `(dim V k)` of an
//! array variable V, or `(len V)` of a rank-1 one (the same number). Facts come from an
//! enclosing `if` whose condition is a conjunction holding `(== X Y)` of two extents (in
//! its then-branch), and from an assignment or `alloc` of V whose extents are extents of
//! other arrays (`(empty T (dim A 0))`, `(fill T v (len A))`), or a copy `(set V W)`.
//! Assigning a variable (`set`, `alloc`, `free`) drops its facts; a loop drops, before
//! it, the facts of every variable its body assigns, and what a loop body or a branch
//! learns is dropped after it. An `if` whose condition is a conjunction of `==` of
//! extents, each known, becomes its then-branch (`shape_tests_removed`).
//!
//! Behaviour, errors included, is unchanged: the condition is true where it stands, and
//! evaluating it could not fail or have effects (each of its variables was read or
//! assigned before, which is where its fact came from). Runs after `fusion`.

use super::{Counters, Pass, PassContext};
use crate::analysis::assigned_vars;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, Expr, Function, LValue, LibFn, Stmt, StmtKind};
use crate::vrir::types::Type;
use std::collections::BTreeSet;

pub const SHAPE_FACTS: Pass = Pass {
    name: "shape-facts",
    summary: "take shape tests whose answer is known (enclosing tests, allocations) as true",
    run,
};

/// An extent: array variable and axis.
type Extent = (String, u32);

/// Classes of extents known equal at a point.
#[derive(Clone, Default)]
struct Facts {
    classes: Vec<BTreeSet<Extent>>,
}

impl Facts {
    fn class_of(&self, e: &Extent) -> Option<usize> {
        self.classes.iter().position(|c| c.contains(e))
    }

    fn equal(&self, a: &Extent, b: &Extent) -> bool {
        a == b || self.class_of(a).is_some_and(|k| self.classes[k].contains(b))
    }

    fn add(&mut self, a: Extent, b: Extent) {
        if a == b {
            return;
        }
        match (self.class_of(&a), self.class_of(&b)) {
            (Some(i), Some(j)) if i == j => {}
            (Some(i), Some(j)) => {
                let moved = self.classes.swap_remove(i.max(j));
                self.classes[i.min(j)].extend(moved);
            }
            (Some(i), None) => {
                self.classes[i].insert(b);
            }
            (None, Some(j)) => {
                self.classes[j].insert(a);
            }
            (None, None) => self.classes.push(BTreeSet::from([a, b])),
        }
    }

    /// Forget every fact about `var` (it was assigned).
    fn kill(&mut self, var: &str) {
        for c in &mut self.classes {
            c.retain(|(v, _)| v != var);
        }
        self.classes.retain(|c| c.len() > 1);
    }
}

struct Walk<'a> {
    f: &'a Function,
    removed: u64,
}

impl Walk<'_> {
    /// `e` as an extent: `(dim V k)` of an array variable, `(len V)` of a rank-1 one.
    fn extent(&self, e: &Expr) -> Option<Extent> {
        let (arg, axis) = match e {
            Expr::Dim { arg, axis } => (arg.as_ref(), *axis),
            Expr::Lib { func: LibFn::Len, args } if args.len() == 1 => (&args[0], 0),
            _ => return None,
        };
        let Expr::Var { name } = arg else { return None };
        let Some(Type::Array(a)) = self.f.var_type(name) else { return None };
        let rank_one = matches!(e, Expr::Lib { .. });
        if (rank_one && a.ndims != 1) || axis >= a.ndims {
            return None;
        }
        Some((name.clone(), axis))
    }

    /// The `(== X Y)` terms of extents in the conjunction `cond`, and whether every term
    /// of it is one.
    fn equalities(&self, cond: &Expr, out: &mut Vec<(Extent, Extent)>) -> bool {
        match cond {
            Expr::Binary { op: BinOp::And, lhs, rhs } => {
                let l = self.equalities(lhs, out);
                self.equalities(rhs, out) && l
            }
            Expr::Binary { op: BinOp::Eq, lhs, rhs } => match (self.extent(lhs), self.extent(rhs)) {
                (Some(a), Some(b)) => {
                    out.push((a, b));
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// What assigning `value` to `var` tells: its extents equal those `value` names.
    fn learn_assignment(&self, var: &str, value: &Expr, facts: &mut Facts) {
        let Some(Type::Array(a)) = self.f.var_type(var) else { return };
        let dims: Vec<Option<Extent>> = match value {
            Expr::Alloc { dims, .. } => dims.iter().map(|d| self.extent(d)).collect(),
            Expr::Var { name } if matches!(self.f.var_type(name), Some(Type::Array(b)) if b.ndims == a.ndims) => {
                (0..a.ndims).map(|k| Some((name.clone(), k))).collect()
            }
            _ => return,
        };
        for (k, d) in dims.into_iter().enumerate() {
            // An extent of the variable's old value says nothing about the new one.
            if let Some(d) = d.filter(|d| d.0 != var) {
                facts.add((var.to_string(), k as u32), d);
            }
        }
    }

    fn stmts(&mut self, stmts: &mut [Stmt], facts: &mut Facts) {
        for s in stmts {
            self.stmt(s, facts);
        }
    }

    fn stmt(&mut self, s: &mut Stmt, facts: &mut Facts) {
        match &mut s.kind {
            StmtKind::Block(b) if !b.on_gpu => self.stmts(&mut b.stmts, facts),
            StmtKind::If { cond, then, els } if !then.on_gpu && !els.as_ref().is_some_and(|e| e.on_gpu) => {
                let mut terms = Vec::new();
                let only_extents = self.equalities(cond, &mut terms);
                if only_extents && terms.iter().all(|(a, b)| facts.equal(a, b)) {
                    self.removed += 1;
                    let then = std::mem::take(then);
                    s.kind = StmtKind::Block(then);
                    if let StmtKind::Block(b) = &mut s.kind {
                        self.stmts(&mut b.stmts, facts);
                    }
                    return;
                }
                let mut inside = facts.clone();
                for (a, b) in terms {
                    inside.add(a, b);
                }
                self.stmts(&mut then.stmts, &mut inside);
                let mut assigned = assigned_vars(&then.stmts);
                if let Some(e) = els {
                    self.stmts(&mut e.stmts, &mut facts.clone());
                    assigned.extend(assigned_vars(&e.stmts));
                }
                for v in &assigned {
                    facts.kill(v);
                }
            }
            StmtKind::For { vars, body, .. } | StmtKind::Parfor { vars, body, .. } => {
                let mut assigned = assigned_vars(&body.stmts);
                assigned.extend(vars.iter().cloned());
                for v in &assigned {
                    facts.kill(v);
                }
                self.stmts(&mut body.stmts, &mut facts.clone());
            }
            StmtKind::While { body, .. } => {
                for v in &assigned_vars(&body.stmts) {
                    facts.kill(v);
                }
                self.stmts(&mut body.stmts, &mut facts.clone());
            }
            StmtKind::Assign { targets, value } => {
                for t in targets.iter() {
                    if let LValue::Var { name } = t {
                        facts.kill(name);
                    }
                }
                if let [LValue::Var { name }] = targets.as_slice() {
                    self.learn_assignment(name, value, facts);
                }
            }
            StmtKind::Alloc { var, dims } => {
                facts.kill(var);
                let ty = match self.f.var_type(var) {
                    Some(Type::Array(a)) => *a,
                    _ => return,
                };
                let value = Expr::Alloc {
                    init: crate::vrir::ast::AllocInit::Empty,
                    ty,
                    dims: dims.clone(),
                };
                self.learn_assignment(var, &value, facts);
            }
            StmtKind::Free { var } => facts.kill(var),
            // A GPU section's statements, and the rest, change no extent.
            _ => {}
        }
    }
}

fn run(f: &mut Function, _cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    // The walk reads only the function's variable types, so the body is taken out
    // rather than the whole function copied.
    let mut body = std::mem::take(&mut f.body);
    let mut w = Walk { f, removed: 0 };
    w.stmts(&mut body, &mut Facts::default());
    let removed = w.removed;
    f.body = body;
    *counters.entry("shape_tests_removed").or_default() += removed;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::opt::{optimize, OptOptions};
    use crate::vrir::text::{parse_module, print_module};

    fn after(src: &str) -> (String, u64) {
        let m = parse_module(src).unwrap();
        crate::vrir::verify::verify_module(&m).unwrap();
        let (out, stats) = optimize(&m, &OptOptions::parse("none,+shape-facts").unwrap()).unwrap();
        (print_module(&out), stats.total("shape-facts", "shape_tests_removed"))
    }

    /// Known from the enclosing test (len of rank-1 arrays is their extent) and from an
    /// allocation: both inner tests go; a test after a reassignment, one of a rank-2
    /// `len`, and one whose fact was learned only inside a loop stay.
    #[test]
    fn known_tests_go_and_unknown_ones_stay() {
        let src = "(module m :index-base 1
          (function f ((a f64[1,col]) (b f64[1,col]) (c f64[2,col])) (f64)
            (locals (t f64[1,col]) (u f64[1,col]) (i i64) (s f64))
            (set s 0.0)
            (if (== (len a) (len b))
              (block
                (if (== (dim a 0) (dim b 0)) (block (set s (+ s 1.0))) (block (set s (+ s 100.0))))
                (set t (empty f64[1,col] (dim b 0)))
                (if (and (== (dim t 0) (dim a 0)) (== (len t) (len b))) (block (set s (+ s 2.0))))
                (set t b)
                (if (== (dim t 0) (dim a 0)) (block (set s (+ s 4.0))))
                (set t (fill f64[1,col] 0.0 5))
                (if (== (dim t 0) (dim a 0)) (block (set s (+ s 8.0))))))
            (if (== (len c) (len a)) (block (set s (+ s 16.0))))
            (for (i) (range 1 2) (block (set u (empty f64[1,col] (dim a 0)))))
            (if (== (dim u 0) (dim a 0)) (block (set s (+ s 32.0))))
            (return s)))";
        let (text, removed) = after(src);
        assert_eq!(removed, 3, "{text}");
        // The three known: (dim a 0) = (dim b 0), t after its allocation, t after `(set t b)`.
        assert!(!text.contains("100.0"), "the else of a known test is gone: {text}");
        assert_eq!(text.matches("(if (== (dim t 0) (dim a 0))").count(), 1, "after the fill of 5: {text}");
        assert!(text.contains("(== (len c) (len a))"), "{text}");
        assert!(text.contains("(if (== (dim u 0) (dim a 0))"), "{text}");
    }
}
