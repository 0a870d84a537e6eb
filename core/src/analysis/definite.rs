//! Definite assignment: before each statement, which variables certainly hold a value
//! on every path that reaches it. The one question the optimizer's passes and the cpu
//! code generator ask of reaching definitions ([`super::reaching`]), answered without
//! computing them: a forward may-analysis of the variables that *may be unassigned*,
//! kept as a bit set over the function's declared variables.
//!
//! Why a separate analysis: compile latency (issue 18). [`super::reaching`] keeps, per
//! statement, a set of `(variable name, site)` definitions; cloning those sets (a
//! `String` each) at every statement and every loop iteration of the fixed point was
//! most of the VRIR optimizer's time (`perf`: BTreeMap clones and malloc), and `licm`
//! recomputes it after every move. Here a statement's state is a few machine words.
//!
//! It is exactly the projection of reaching definitions onto "does an `Unassigned` or a
//! `Freed` pseudo-definition of `var` reach": a local starts maybe unassigned, an
//! assignment, `alloc` or loop variable makes it assigned, `free` makes it maybe
//! unassigned again, joins are unions, loops iterate to a fixed point, `break` flows to
//! the loop's exit, `continue` to its next iteration, nothing flows past `return`. Every
//! transfer function acts on each variable alone, so the projection commutes with them
//! and the fixed points agree; the unit test below checks the two analyses agree at
//! every statement of programs with loops, breaks, frees and unreachable code.

use super::bits::Bits;
use super::{child_blocks, stmt_count, stmt_defs};
use crate::vrir::ast::{Block, Function, Stmt, StmtKind};
use std::collections::HashMap;

/// Variables that may be unassigned before every statement, by preorder number; `None`
/// for a statement no path reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct DefiniteAssignment {
    index: HashMap<String, usize>,
    maybe_unassigned: Vec<Option<Bits>>,
}

impl DefiniteAssignment {
    pub fn compute(f: &Function) -> DefiniteAssignment {
        // Indexed: the locals (they start unassigned) and every variable some `free`
        // names (it may become unassigned). Any other variable is assigned wherever a
        // path reaches (a parameter, or one only ever assigned), as in reaching
        // definitions, where no `Unassigned` or `Freed` definition of it exists.
        let mut index = HashMap::new();
        for l in &f.locals {
            let n = index.len();
            index.entry(l.name.clone()).or_insert(n);
        }
        for s in super::preorder(&f.body) {
            if let StmtKind::Free { var } = &s.kind {
                let n = index.len();
                index.entry(var.clone()).or_insert(n);
            }
        }
        let mut entry = Bits::new(index.len());
        for l in &f.locals {
            entry.insert(index[&l.name]);
        }
        let n: usize = f.body.iter().map(stmt_count).sum();
        let mut w = Walker {
            index: &index,
            state: vec![None; n],
            loops: Vec::new(),
        };
        w.stmts(&f.body, 0, Some(entry));
        let maybe_unassigned = w.state;
        DefiniteAssignment {
            index,
            maybe_unassigned,
        }
    }

    /// Whether `var` holds a value on every path to statement `id` (false for a
    /// statement no path reaches).
    pub fn certainly_assigned(&self, id: usize, var: &str) -> bool {
        match self.maybe_unassigned.get(id) {
            Some(Some(bits)) => self.index.get(var).is_none_or(|&i| !bits.contains(i)),
            _ => false,
        }
    }
}

#[derive(Default)]
struct LoopFlows {
    brk: Option<Bits>,
    cont: Option<Bits>,
}

struct Walker<'a> {
    index: &'a HashMap<String, usize>,
    state: Vec<Option<Bits>>,
    loops: Vec<LoopFlows>,
}

fn join(a: Option<Bits>, b: Option<Bits>) -> Option<Bits> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(mut a), Some(b)) => {
            a.union(&b);
            Some(a)
        }
    }
}

impl Walker<'_> {
    fn assign(&self, set: &mut Bits, var: &str) {
        if let Some(&i) = self.index.get(var) {
            set.remove(i);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt], first: usize, mut state: Option<Bits>) -> Option<Bits> {
        let mut id = first;
        for s in stmts {
            state = self.stmt(s, id, state);
            id += stmt_count(s);
        }
        state
    }

    fn block(&mut self, b: &Block, first: usize, state: Option<Bits>) -> Option<Bits> {
        self.stmts(&b.stmts, first, state)
    }

    fn stmt(&mut self, s: &Stmt, id: usize, input: Option<Bits>) -> Option<Bits> {
        self.state[id] = input.clone();
        let Some(mut set) = input else {
            // Unreachable: nested statements are unreachable too (left as None).
            return None;
        };
        match &s.kind {
            StmtKind::Assign { .. } | StmtKind::Alloc { .. } => {
                for v in stmt_defs(s) {
                    self.assign(&mut set, &v);
                }
                Some(set)
            }
            StmtKind::Free { var } => {
                set.insert(self.index[var]);
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
                        let first = id + 1 + child_blocks(s)[0].stmts.iter().map(stmt_count).sum::<usize>();
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
                        self.assign(&mut body_in, v);
                    }
                    self.loops.push(LoopFlows::default());
                    let out = self.block(body, id + 1, Some(body_in));
                    let flows = self.loops.pop().unwrap_or_default();
                    let next = join(join(Some(entry.clone()), out), flows.cont)
                        .unwrap_or_else(|| entry.clone());
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
                    let next = join(join(Some(entry.clone()), out), flows.cont)
                        .unwrap_or_else(|| entry.clone());
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
    use crate::analysis::reaching::ReachingDefs;
    use crate::vrir::text::parse_module;

    fn analyses(src: &str) -> (Function, DefiniteAssignment) {
        let m = parse_module(src).unwrap();
        let f = m.functions[0].clone();
        let d = DefiniteAssignment::compute(&f);
        (f, d)
    }

    #[test]
    fn ifs_loops_and_free_decide_what_is_certainly_assigned() {
        // Preorder: 0 if, 1 set x, 2 for, 3 set y, 4 set k, 5 while, 6 set k, 7 free a,
        // 8 return.
        let (_, d) = analyses(
            "(module m :index-base 0 (function f ((c bool) (n i64) (a f64[1,row])) (i64) (locals (x i64) (y i64) (i i64) (k i64))
               (if c (block (set x 1)))
               (for (i) (range 0 n) (block (set y i)))
               (set k 0)
               (while (< k n) (block (set k (+ k 1))))
               (free a)
               (return (+ x y))))",
        );
        assert!(d.certainly_assigned(0, "c") && d.certainly_assigned(0, "a"));
        assert!(!d.certainly_assigned(0, "x") && !d.certainly_assigned(2, "x"));
        // The loop variable holds a value inside the body only.
        assert!(!d.certainly_assigned(2, "i") && d.certainly_assigned(3, "i"));
        // A loop that may run no iteration may leave y unassigned.
        assert!(!d.certainly_assigned(4, "y"));
        assert!(d.certainly_assigned(5, "k") && d.certainly_assigned(6, "k"));
        assert!(d.certainly_assigned(7, "a") && !d.certainly_assigned(8, "a"));
    }

    #[test]
    fn nothing_is_certainly_assigned_where_no_path_reaches() {
        // Preorder: 0 set x, 1 return, 2 set x.
        let (_, d) = analyses(
            "(module m :index-base 0 (function f ((n i64)) (i64) (locals (x i64))
               (set x n) (return x) (set x 1)))",
        );
        assert!(d.certainly_assigned(1, "x") && d.certainly_assigned(1, "n"));
        assert!(!d.certainly_assigned(2, "x") && !d.certainly_assigned(2, "n"));
    }

    /// Both analyses, at every statement, for every declared variable (and one that is
    /// not declared).
    fn agree(src: &str) {
        let m = parse_module(src).unwrap();
        for f in &m.functions {
            let r = ReachingDefs::compute(f);
            let d = DefiniteAssignment::compute(f);
            let n: usize = f.body.iter().map(stmt_count).sum();
            let vars = f
                .params
                .iter()
                .map(|p| p.name.as_str())
                .chain(f.locals.iter().map(|l| l.name.as_str()))
                .chain(["undeclared"]);
            for v in vars {
                for id in 0..=n {
                    assert_eq!(
                        d.certainly_assigned(id, v),
                        r.certainly_assigned(id, v),
                        "{} statement {id} variable {v}",
                        f.name
                    );
                }
            }
        }
    }

    #[test]
    fn agrees_with_reaching_definitions_everywhere() {
        agree(
            "(module m :index-base 0 (function f ((c bool) (n i64) (a f64[1,row])) (i64) (locals (x i64) (y i64) (i i64) (j i64) (k i64) (b f64[1,row]))
               (set k 0)
               (for (i) (range 0 n) (block
                 (if (> i 2) (block (set x i) (continue)) (block (set y i)))
                 (for (j) (range 0 i) (block
                   (if c (block (break)))
                   (alloc b n)
                   (free b)
                   (set y x)))
                 (while (< k n) (block
                   (if (== k 5) (block (set x k) (break)))
                   (set k (+ k 1))
                   (if c (block (continue)))
                   (set y k)))))
               (if c (block (return k)) (block (free a)))
               (set x (+ x y))
               (return x)))",
        );
        // The bench kernels and the text-form test programs (every statement kind).
        let mut seen = 0;
        for dir in ["/../bench/kernels", "/tests/text_form"] {
            let dir = format!("{}{dir}", env!("CARGO_MANIFEST_DIR"));
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "vrir") {
                    agree(&std::fs::read_to_string(&p).unwrap());
                    seen += 1;
                }
            }
        }
        assert!(seen >= 10, "read only {seen} programs");
    }
}
