//! Live variables: before each statement, the variables whose current value some later
//! statement may read. A backward analysis over the structured AST: loops iterate to a
//! fixed point, `break` continues with what is live after its loop, `continue` with what
//! is live at its loop's next iteration, `return` with what its values read.
//!
//! Memory reuse needs it (a dead array's buffer may be written); the optimizer's `vr
//! explain` shows it.
//!
//! Sets are bit sets over the function's variables, numbered once (every name a
//! statement reads or sets), with each statement's reads and writes computed once, not
//! at every iteration of a loop's fixed point: `licm` recomputes liveness after every
//! move and the cpu-par backend once per parfor, and sets of names (a `String` per
//! element, cloned at every statement) were most of that time (issue 18, compile
//! latency). The answers are the same; a unit test compares them with the set-of-names
//! walker this replaced, at every statement of the bench kernels and text-form tests.

use super::bits::Bits;
use super::{child_blocks, preorder, stmt_count, stmt_defs, stmt_uses};
use crate::vrir::ast::{Block, Function, Stmt, StmtKind};
use std::collections::{BTreeSet, HashMap};

/// Live variables before and after every statement, by preorder number (see
/// [`super::preorder`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LiveVars {
    names: Vec<String>,
    index: HashMap<String, usize>,
    live_in: Vec<Bits>,
    /// What is live when the statement completes normally (for a loop: after the loop;
    /// the cpu-par backend stores a parfor's private variables back only when live here).
    live_out: Vec<Bits>,
}

impl LiveVars {
    pub fn compute(f: &Function) -> LiveVars {
        let stmts = preorder(&f.body);
        let mut names: Vec<String> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut number = |v: &String, names: &mut Vec<String>| -> usize {
            *index.entry(v.clone()).or_insert_with(|| {
                names.push(v.clone());
                names.len() - 1
            })
        };
        // Each statement's own reads and writes (`free` counts as a write, loop
        // variables as writes of their loop), by name first, then as bit sets.
        let mut named: Vec<(Vec<usize>, Vec<usize>)> = Vec::with_capacity(stmts.len());
        for s in &stmts {
            let uses: Vec<usize> = stmt_uses(s).iter().map(|v| number(v, &mut names)).collect();
            let defs: Vec<usize> = match &s.kind {
                StmtKind::Free { var } => vec![number(var, &mut names)],
                StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
                    vars.iter().map(|v| number(v, &mut names)).collect()
                }
                _ => stmt_defs(s).iter().map(|v| number(v, &mut names)).collect(),
            };
            named.push((uses, defs));
        }
        let n = names.len();
        let bits = |ix: &[usize]| {
            let mut b = Bits::new(n);
            ix.iter().for_each(|&i| b.insert(i));
            b
        };
        let (uses, defs) = named.iter().map(|(u, d)| (bits(u), bits(d))).unzip();
        let empty = Bits::new(n);
        let mut w = Walker {
            uses,
            defs,
            empty: empty.clone(),
            live_in: vec![empty.clone(); stmts.len()],
            live_out: vec![empty.clone(); stmts.len()],
            loops: Vec::new(),
        };
        w.stmts(&f.body, 0, empty);
        LiveVars {
            names,
            index,
            live_in: w.live_in,
            live_out: w.live_out,
        }
    }

    fn contains(&self, sets: &[Bits], id: usize, var: &str) -> bool {
        match (sets.get(id), self.index.get(var)) {
            (Some(s), Some(&i)) => s.contains(i),
            _ => false,
        }
    }

    fn names_of(&self, sets: &[Bits], id: usize) -> Option<BTreeSet<String>> {
        sets.get(id)
            .map(|s| s.iter().map(|i| self.names[i].clone()).collect())
    }

    /// Whether `var` is live after statement `id` completes.
    pub fn is_live_after(&self, id: usize, var: &str) -> bool {
        self.contains(&self.live_out, id, var)
    }

    /// Whether `var` is live before statement `id`.
    pub fn is_live(&self, id: usize, var: &str) -> bool {
        self.contains(&self.live_in, id, var)
    }

    /// The variables live before statement `id` (None past the last statement).
    pub fn live_in(&self, id: usize) -> Option<BTreeSet<String>> {
        self.names_of(&self.live_in, id)
    }

    /// The variables live after statement `id` completes (for a loop: after the loop).
    pub fn live_out(&self, id: usize) -> Option<BTreeSet<String>> {
        self.names_of(&self.live_out, id)
    }
}

/// What is live where a `break` and a `continue` of the innermost loop go.
struct LoopExits {
    brk: Bits,
    cont: Bits,
}

struct Walker {
    /// Per statement: what it reads by itself, what it sets by itself (loop variables
    /// for a loop, the variable for `free`).
    uses: Vec<Bits>,
    defs: Vec<Bits>,
    empty: Bits,
    live_in: Vec<Bits>,
    live_out: Vec<Bits>,
    loops: Vec<LoopExits>,
}

impl Walker {
    /// Live before the list `stmts`, whose first statement has preorder number `first`,
    /// given what is live after it.
    fn stmts(&mut self, stmts: &[Stmt], first: usize, out: Bits) -> Bits {
        let ids = super::stmt_ids(stmts, first);
        let mut live = out;
        for (s, id) in stmts.iter().zip(ids).rev() {
            live = self.stmt(s, id, live);
        }
        live
    }

    fn block(&mut self, b: &Block, first: usize, out: Bits) -> Bits {
        self.stmts(&b.stmts, first, out)
    }

    fn stmt(&mut self, s: &Stmt, id: usize, out: Bits) -> Bits {
        self.live_out[id].clone_from(&out);
        let live = match &s.kind {
            StmtKind::Assign { .. } | StmtKind::Alloc { .. } => {
                let mut l = out;
                l.subtract(&self.defs[id]);
                l.union(&self.uses[id]);
                l
            }
            StmtKind::Free { .. } => {
                let mut l = out;
                l.subtract(&self.defs[id]);
                l
            }
            StmtKind::Expr { .. } | StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => {
                let mut l = out;
                l.union(&self.uses[id]);
                l
            }
            StmtKind::Return { .. } => self.uses[id].clone(),
            StmtKind::Break => self.loops.last().map_or_else(|| self.empty.clone(), |l| l.brk.clone()),
            StmtKind::Continue => self
                .loops
                .last()
                .map_or_else(|| self.empty.clone(), |l| l.cont.clone()),
            StmtKind::Block(b) => self.block(b, id + 1, out),
            StmtKind::If { then, els, .. } => {
                let blocks = child_blocks(s);
                let mut l = self.block(then, id + 1, out.clone());
                match els {
                    Some(e) => {
                        let first = id + 1 + blocks[0].stmts.iter().map(stmt_count).sum::<usize>();
                        l.union(&self.block(e, first, out));
                    }
                    None => l.union(&out),
                }
                l.union(&self.uses[id]);
                l
            }
            StmtKind::For { body, .. } | StmtKind::Parfor { body, .. } => {
                // `decision`: live where the loop decides between another iteration and
                // leaving; loop variables are set afresh at each iteration's start.
                let mut decision = out.clone();
                loop {
                    self.loops.push(LoopExits {
                        brk: out.clone(),
                        cont: decision.clone(),
                    });
                    let mut body_in = self.block(body, id + 1, decision.clone());
                    self.loops.pop();
                    body_in.subtract(&self.defs[id]);
                    let mut next = out.clone();
                    next.union(&body_in);
                    if next == decision {
                        break;
                    }
                    decision = next;
                }
                let mut l = decision;
                l.union(&self.uses[id]);
                l
            }
            StmtKind::While { body, .. } => {
                // `head`: live before the condition, evaluated before every iteration.
                let mut head = out.clone();
                head.union(&self.uses[id]);
                loop {
                    self.loops.push(LoopExits {
                        brk: out.clone(),
                        cont: head.clone(),
                    });
                    let body_in = self.block(body, id + 1, head.clone());
                    self.loops.pop();
                    let mut next = out.clone();
                    next.union(&self.uses[id]);
                    next.union(&body_in);
                    if next == head {
                        break;
                    }
                    head = next;
                }
                head
            }
        };
        self.live_in[id] = live.clone();
        live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::parse_module;

    /// The set-of-names walker this module's bit sets replaced, kept as the reference
    /// the agreement test compares with.
    #[allow(dead_code)]
    mod reference {
        use crate::analysis::{child_blocks, stmt_count, stmt_defs, stmt_uses};
        use crate::vrir::ast::{Block, Function, Stmt, StmtKind};
        use std::collections::BTreeSet;

    type Set = BTreeSet<String>;

    /// Live variables before and after every statement, by preorder number (see
    /// [`super::preorder`]).
    #[derive(Clone, Debug, PartialEq)]
    pub(super) struct LiveVars {
        pub live_in: Vec<Set>,
        /// What is live when the statement completes normally (for a loop: after the loop;
        /// the cpu-par backend stores a parfor's private variables back only when live here).
        pub live_out: Vec<Set>,
    }

    impl LiveVars {
        pub(super) fn compute(f: &Function) -> LiveVars {
            let n: usize = f.body.iter().map(stmt_count).sum();
            let mut w = Walker {
                live_in: vec![Set::new(); n],
                live_out: vec![Set::new(); n],
                loops: Vec::new(),
            };
            w.stmts(&f.body, 0, Set::new());
            LiveVars {
                live_in: w.live_in,
                live_out: w.live_out,
            }
        }

        /// Whether `var` is live after statement `id` completes.
        pub fn is_live_after(&self, id: usize, var: &str) -> bool {
            self.live_out.get(id).is_some_and(|s| s.contains(var))
        }

        /// Whether `var` is live before statement `id`.
        pub fn is_live(&self, id: usize, var: &str) -> bool {
            self.live_in.get(id).is_some_and(|s| s.contains(var))
        }
    }

    /// What is live where a `break` and a `continue` of the innermost loop go.
    struct LoopExits {
        brk: Set,
        cont: Set,
    }

    struct Walker {
        live_in: Vec<Set>,
        live_out: Vec<Set>,
        loops: Vec<LoopExits>,
    }

    impl Walker {
        /// Live before the list `stmts`, whose first statement has preorder number `first`,
        /// given what is live after it.
        fn stmts(&mut self, stmts: &[Stmt], first: usize, out: Set) -> Set {
            let ids = crate::analysis::stmt_ids(stmts, first);
            let mut live = out;
            for (s, id) in stmts.iter().zip(ids).rev() {
                live = self.stmt(s, id, live);
            }
            live
        }

        fn block(&mut self, b: &Block, first: usize, out: Set) -> Set {
            self.stmts(&b.stmts, first, out)
        }

        fn stmt(&mut self, s: &Stmt, id: usize, out: Set) -> Set {
            if let Some(o) = self.live_out.get_mut(id) {
                o.clone_from(&out);
            }
            let uses = stmt_uses(s);
            let live = match &s.kind {
                StmtKind::Assign { .. } | StmtKind::Alloc { .. } => {
                    let mut l = out;
                    for d in stmt_defs(s) {
                        l.remove(&d);
                    }
                    l.extend(uses);
                    l
                }
                StmtKind::Free { var } => {
                    let mut l = out;
                    l.remove(var);
                    l
                }
                StmtKind::Expr { .. } | StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => {
                    let mut l = out;
                    l.extend(uses);
                    l
                }
                StmtKind::Return { .. } => uses,
                StmtKind::Break => self.loops.last().map(|l| l.brk.clone()).unwrap_or_default(),
                StmtKind::Continue => self
                    .loops
                    .last()
                    .map(|l| l.cont.clone())
                    .unwrap_or_default(),
                StmtKind::Block(b) => self.block(b, id + 1, out),
                StmtKind::If { then, els, .. } => {
                    let blocks = child_blocks(s);
                    let mut l = self.block(then, id + 1, out.clone());
                    match els {
                        Some(e) => {
                            let first = id + 1 + blocks[0].stmts.iter().map(stmt_count).sum::<usize>();
                            l.extend(self.block(e, first, out));
                        }
                        None => l.extend(out),
                    }
                    l.extend(uses);
                    l
                }
                StmtKind::For { vars, body, .. } | StmtKind::Parfor { vars, body, .. } => {
                    // `decision`: live where the loop decides between another iteration and
                    // leaving; loop variables are set afresh at each iteration's start.
                    let mut decision = out.clone();
                    loop {
                        self.loops.push(LoopExits {
                            brk: out.clone(),
                            cont: decision.clone(),
                        });
                        let body_in = self.block(body, id + 1, decision.clone());
                        self.loops.pop();
                        let mut next = out.clone();
                        next.extend(body_in.into_iter().filter(|v| !vars.contains(v)));
                        if next == decision {
                            break;
                        }
                        decision = next;
                    }
                    let mut l = decision;
                    l.extend(uses);
                    l
                }
                StmtKind::While { body, .. } => {
                    // `head`: live before the condition, evaluated before every iteration.
                    let mut head = out.clone();
                    head.extend(uses.iter().cloned());
                    loop {
                        self.loops.push(LoopExits {
                            brk: out.clone(),
                            cont: head.clone(),
                        });
                        let body_in = self.block(body, id + 1, head.clone());
                        self.loops.pop();
                        let mut next = out.clone();
                        next.extend(uses.iter().cloned());
                        next.extend(body_in);
                        if next == head {
                            break;
                        }
                        head = next;
                    }
                    head
                }
            };
            self.live_in[id] = live.clone();
            live
        }
    }

    }

    #[test]
    fn agrees_with_the_set_of_names_walker_everywhere() {
        let mut seen = 0;
        for dir in ["/../bench/kernels", "/tests/text_form"] {
            let dir = format!("{}{dir}", env!("CARGO_MANIFEST_DIR"));
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if !p.extension().is_some_and(|x| x == "vrir") {
                    continue;
                }
                let m = parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
                for f in &m.functions {
                    let r = reference::LiveVars::compute(f);
                    let lv = LiveVars::compute(f);
                    let n: usize = f.body.iter().map(stmt_count).sum();
                    for id in 0..n {
                        assert_eq!(lv.live_in(id).as_ref(), Some(&r.live_in[id]), "{} {id}", f.name);
                        assert_eq!(lv.live_out(id).as_ref(), Some(&r.live_out[id]), "{} {id}", f.name);
                    }
                    assert_eq!(lv.live_in(n), None);
                }
                seen += 1;
            }
        }
        assert!(seen >= 10, "read only {seen} programs");
    }

    fn live(src: &str) -> Vec<Vec<String>> {
        let m = parse_module(src).unwrap();
        let f = &m.functions[0];
        let lv = LiveVars::compute(f);
        let n: usize = f.body.iter().map(stmt_count).sum();
        (0..n).map(|id| lv.live_in(id).unwrap().into_iter().collect()).collect()
    }

    #[test]
    fn a_value_is_live_from_its_definition_to_its_last_use() {
        let l = live(
            "(module m :index-base 0 (function f ((a i64)) (i64) (locals (b i64) (c i64))
               (set b (+ a 1)) (set c 2) (set b (* b c)) (return b)))",
        );
        assert_eq!(l[0], vec!["a"]);
        assert_eq!(l[1], vec!["b"]);
        assert_eq!(l[2], vec!["b", "c"]);
        assert_eq!(l[3], vec!["b"]);
    }

    #[test]
    fn loops_carry_values_around_the_back_edge() {
        // s is read in the body and so live before the loop; i (the loop variable) is
        // set by the loop and not live before it; n is read by the domain.
        let l = live(
            "(module m :index-base 0 (function f ((n i64)) (i64) (locals (i i64) (s i64) (t i64))
               (set s 0)
               (for (i) (range 0 n) (block (set t i) (set s (+ s t))))
               (return s)))",
        );
        assert_eq!(l[1], vec!["n", "s"]);
        assert_eq!(l[2], vec!["i", "s"]);
        assert_eq!(l[3], vec!["s", "t"]);
        assert_eq!(l[4], vec!["s"]);
    }

    #[test]
    fn break_sees_what_follows_the_loop_and_while_rereads_its_condition() {
        let l = live(
            "(module m :index-base 0 (function f ((n i64)) (i64) (locals (k i64) (r i64))
               (set k 0) (set r 7)
               (while (< k n) (block (if (> k 3) (block (break))) (set k (+ k 1))))
               (return r)))",
        );
        // Before the while: k, n (condition) and r (read after the loop).
        assert_eq!(l[2], vec!["k", "n", "r"]);
        // Before `break`: only what is read after the loop.
        assert_eq!(l[4], vec!["r"]);
    }

    #[test]
    fn live_out_of_a_loop_is_what_follows_it_and_repeats_with_an_enclosing_loop() {
        // x is assigned in the parfor and read only inside it: dead after the parfor
        // when nothing reads it later; inside an enclosing loop whose next iteration
        // reads x before assigning it, live after.
        let src = |tail: &str| {
            format!(
                "(module m :index-base 0 (function f ((n i64) (a f64[1,row])) (i64) (locals (i i64) (t i64) (x i64))
                   (set x 0)
                   (for (t) (range 0 2) (block
                     (set (index a 0) (cast f64 x))
                     (parfor (i) (range 0 n) (block (set x i)))))
                   (return {tail})))"
            )
        };
        let m = parse_module(&src("n")).unwrap();
        let lv = LiveVars::compute(&m.functions[0]);
        // Preorder: 0 set x, 1 for, 2 set a, 3 parfor, 4 set x, 5 return.
        assert!(lv.is_live_after(3, "x"), "the next t iteration reads x");
        assert!(!lv.is_live_after(4, "i"));
        let m = parse_module(
            "(module m :index-base 0 (function f ((n i64)) (i64) (locals (i i64) (x i64))
               (parfor (i) (range 0 n) (block (set x i)))
               (return n)))",
        )
        .unwrap();
        let lv = LiveVars::compute(&m.functions[0]);
        assert!(!lv.is_live_after(0, "x"));
        assert!(!lv.is_live_after(0, "i"));
    }
}
