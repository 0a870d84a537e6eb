//! `hoist-dims`: extents read inside loops become locals computed once before the loop.
//! `(dim A k)` inside a loop that never reassigns A (no `set`, `mset`, `alloc` or `free`
//! of A; element writes never change extents) is replaced by a local `_dim_A_k`, set to
//! `(dim A k)` just before the outermost enclosing loop where that holds. Compiled code
//! then keeps the extent in a register instead of reloading it from the array's
//! descriptor on every iteration (stores into elements stop LLVM from proving the
//! descriptor unchanged). Counts `dims_hoisted`: the `(dim A k)` forms replaced.
//!
//! Evaluating `(dim A k)` earlier than written, possibly before a loop that runs zero
//! times, must not fail: the verifier already guarantees A is an array with a k-th
//! dimension, so the one way it can fail is A holding no value. Hence a loop is a target
//! only where A is certainly assigned before it (reaching definitions); otherwise the
//! next loop in is tried, and with none the form stays.
//!
//! The domain of a `for`/`parfor` is evaluated once per run of that loop, so it counts
//! as inside the enclosing loops only; a `while` condition is evaluated every iteration
//! and counts as inside its loop.
//!
//! Runs after `bce-version`: versioning reads `(dim A k)` atoms in loop bounds and emits
//! them in its TEST as extents it compares without guards; with a local in their place it
//! would guard the local as an ordinary variable. Afterwards both copies of a versioned
//! nest and a TEST inside an outer loop get their extents hoisted.
//!
//! One local serves every target loop of the same `(dim A k)`: two target loops of it are
//! never nested (the outer one would have been the target of the inner one's forms), so
//! each assignment is read only inside the loop it precedes.

use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{assigned_vars, stmt_count};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, Function, LValue, Local, Stmt, StmtKind};
use crate::vrir::types::Type;
use std::collections::{BTreeMap, BTreeSet};

pub const HOIST_DIMS: Pass = Pass {
    name: "hoist-dims",
    summary: "read loop-invariant array extents once, before the outermost loop",
    run,
};

/// A loop enclosing the point being rewritten.
struct EnclosingLoop {
    /// Preorder number of the loop statement.
    id: usize,
    /// Variables the loop (its body, and its own loop variables) may assign.
    assigned: BTreeSet<String>,
}

struct Hoister<'a> {
    /// The function as it was before the pass: types and reaching definitions refer to it.
    f: &'a Function,
    reach: DefiniteAssignment,
    /// Enclosing loops, outermost first.
    loops: Vec<EnclosingLoop>,
    /// `(array, axis)` -> its local.
    locals: BTreeMap<(String, u32), String>,
    /// Target loop (preorder number) -> the extents to compute before it, first use first.
    before: BTreeMap<usize, Vec<(String, u32)>>,
    replaced: u64,
}

impl Hoister<'_> {
    /// The outermost enclosing loop before which `(dim array _)` can be computed.
    fn target(&self, array: &str) -> Option<usize> {
        if !matches!(self.f.var_type(array), Some(Type::Array(_))) {
            return None;
        }
        self.loops
            .iter()
            .find(|l| !l.assigned.contains(array) && self.reach.certainly_assigned(l.id, array))
            .map(|l| l.id)
    }

    fn local_for(&mut self, array: &str, axis: u32) -> String {
        if let Some(name) = self.locals.get(&(array.to_string(), axis)) {
            return name.clone();
        }
        let stem = format!("_dim_{array}_{axis}");
        let taken = |n: &str| self.f.var_type(n).is_some() || self.locals.values().any(|l| l == n);
        let mut name = stem.clone();
        let mut k = 1;
        while taken(&name) {
            k += 1;
            name = format!("{stem}_{k}");
        }
        self.locals.insert((array.to_string(), axis), name.clone());
        name
    }

    fn expr(&mut self, e: &mut Expr) {
        if let Expr::Dim { arg, axis } = e {
            if let Expr::Var { name: array } = &**arg {
                if let Some(target) = self.target(array) {
                    let (array, axis) = (array.clone(), *axis);
                    let local = self.local_for(&array, axis);
                    let list = self.before.entry(target).or_default();
                    if !list.contains(&(array.clone(), axis)) {
                        list.push((array, axis));
                    }
                    *e = Expr::var(local);
                    self.replaced += 1;
                    return;
                }
            }
        }
        for c in sub_exprs_mut(e) {
            self.expr(c);
        }
    }

    fn stmts(&mut self, stmts: Vec<Stmt>, first: usize) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let mut id = first;
        for mut s in stmts {
            let n = stmt_count(&s);
            let assigned = match s.kind {
                StmtKind::For { .. } | StmtKind::Parfor { .. } | StmtKind::While { .. } => {
                    Some(assigned_vars(std::slice::from_ref(&s)))
                }
                _ => None,
            };
            match &mut s.kind {
                StmtKind::Assign { targets, value } => {
                    self.expr(value);
                    for t in targets.iter_mut() {
                        if let LValue::Index { indices, .. } = t {
                            indices.iter_mut().for_each(|i| self.expr(i));
                        }
                    }
                }
                StmtKind::If { cond, then, els } => {
                    self.expr(cond);
                    let else_first = id + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                    then.stmts = self.stmts(std::mem::take(&mut then.stmts), id + 1);
                    if let Some(e) = els {
                        e.stmts = self.stmts(std::mem::take(&mut e.stmts), else_first);
                    }
                }
                StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                    self.expr(domain);
                    self.loops.push(EnclosingLoop {
                        id,
                        assigned: assigned.unwrap_or_default(),
                    });
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), id + 1);
                    self.loops.pop();
                }
                StmtKind::While { cond, body } => {
                    self.loops.push(EnclosingLoop {
                        id,
                        assigned: assigned.unwrap_or_default(),
                    });
                    self.expr(cond);
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), id + 1);
                    self.loops.pop();
                }
                StmtKind::Block(b) => b.stmts = self.stmts(std::mem::take(&mut b.stmts), id + 1),
                StmtKind::Return { values } => values.iter_mut().for_each(|v| self.expr(v)),
                StmtKind::Expr { expr } => self.expr(expr),
                StmtKind::Alloc { dims, .. } => dims.iter_mut().for_each(|d| self.expr(d)),
                StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Free { .. }
                | StmtKind::RefIncr { .. }
                | StmtKind::RefDecr { .. } => {}
            }
            for (array, axis) in self.before.remove(&id).unwrap_or_default() {
                let local = self.locals[&(array.clone(), axis)].clone();
                out.push(Stmt {
                    kind: StmtKind::Assign {
                        targets: vec![LValue::Var { name: local }],
                        value: Expr::Dim {
                            arg: Box::new(Expr::var(array)),
                            axis,
                        },
                    },
                    line: s.line,
                });
            }
            out.push(s);
            id += n;
        }
        out
    }
}

fn run(f: &mut Function, _cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let before = f.clone();
    let mut h = Hoister {
        f: &before,
        reach: DefiniteAssignment::compute(&before),
        loops: Vec::new(),
        locals: BTreeMap::new(),
        before: BTreeMap::new(),
        replaced: 0,
    };
    f.body = h.stmts(std::mem::take(&mut f.body), 0);
    for name in h.locals.into_values() {
        f.locals.push(Local {
            name,
            ty: Type::I64,
        });
    }
    *counters.entry("dims_hoisted").or_default() += h.replaced;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::opt::{optimize, OptOptions};
    use crate::vrir::text::{parse_module, print_module};

    fn hoisted(src: &str) -> (String, u64) {
        let m = parse_module(src).unwrap();
        crate::vrir::verify::verify_module(&m).unwrap();
        let (out, stats) = optimize(&m, &OptOptions::parse("none,+hoist-dims").unwrap()).unwrap();
        (
            print_module(&out),
            stats.total("hoist-dims", "dims_hoisted"),
        )
    }

    #[test]
    fn an_array_reassigned_in_the_loop_keeps_its_dim() {
        let (text, n) = hoisted(
            "(module m :index-base 0 (function f ((a f64[1,row]) (n i64)) (i64) (locals (i i64) (s i64))
               (set s 0)
               (for (i) (range 0 n) (block
                 (set s (+ s (dim a 0)))
                 (set a (zeros f64[1,row] i))))
               (return s)))",
        );
        assert_eq!(n, 0, "{text}");
    }

    #[test]
    fn a_possibly_unassigned_array_is_not_read_early() {
        // `b` is assigned only when c holds; a zero-trip loop must not read it.
        let (text, n) = hoisted(
            "(module m :index-base 0 (function f ((c bool) (n i64)) (i64) (locals (b f64[1,row]) (i i64) (s i64))
               (set s 0)
               (if c (block (set b (zeros f64[1,row] 3))))
               (for (i) (range 0 n) (block (set s (+ s (dim b 0)))))
               (return s)))",
        );
        assert_eq!(n, 0, "{text}");
    }

    #[test]
    fn the_target_is_the_outermost_loop_that_keeps_the_array() {
        // The outer loop reassigns `b`, the inner one does not: hoist before the inner.
        let (text, n) = hoisted(
            "(module m :index-base 0 (function f ((n i64)) (i64) (locals (b f64[1,row]) (i i64) (j i64) (s i64))
               (set s 0)
               (for (i) (range 0 n) (block
                 (set b (zeros f64[1,row] i))
                 (for (j) (range 0 n) (block (set s (+ s (dim b 0)))))))
               (return s)))",
        );
        assert_eq!(n, 1, "{text}");
        let set = text.find("(set _dim_b_0 (dim b 0))").expect(&text);
        assert!(text.find("(for (j)").unwrap() > set, "{text}");
        assert!(text.find("(for (i)").unwrap() < set, "{text}");
    }
}
