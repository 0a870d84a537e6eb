//! `fusion`: chains of element-wise operations become one loop with no temporary
//! arrays (Parakeet's map fusion), and a `sum`/`prod` of such a chain becomes one
//! accumulation loop (reduce-of-map fusion).
//!
//! Why: every element-wise operator compiles to a loop that writes a fresh array
//! (`cpu/codegen/elementwise.rs`), and `simplify` makes each nested one an explicit
//! temporary, so `d = a * 2.0 + sqrt(b)` allocates, writes and reads two arrays it
//! throws away. Here a temporary assigned an element-wise tree, used once (by the next
//! statements' tree) and mentioned nowhere else, is substituted back into its user;
//! when the user's tree then holds two or more operations (or is reduced), it becomes
//! loops over the elements (`elementwise.rs`). A nested tree written by hand (simplify
//! off) fuses the same way.
//!
//! What keeps behaviour the same, errors included:
//! - Only the statements just before the user, in a row, are substituted: they assign
//!   temporaries only, so nothing the tree reads changes between them.
//! - A temporary read several times is substituted at each read only when its tree
//!   cannot fail on an element and every mention of it besides its assignment is in
//!   the statements being fused (it dies there; R's vector style computes such
//!   vectors in each iteration: `d <- x - x[k]; r2 <- d * d + eps`). A copy of an array
//!   variable (`(set _t4 d)`, R's recycling copies) is substituted the same way.
//! - Every variable the tree reads is certainly assigned where the chain starts.
//! - Shapes: the fused code runs only when every array of the tree has the extents of
//!   the first; otherwise the statements as written run and raise their shape error
//!   (the original test order, after the same work).
//! - At most one operation that can fail on an element (integer division, `rem`,
//!   `pow`, float-to-integer casts): with one, the first failing element is the one the
//!   unfused code meets first, so loops then visit elements in logical order.
//!   Reductions accumulate in the storage order the interpreter folds in, from the
//!   same 0 or 1, so floating-point sums are bit-identical.
//! - Errors name the same line: simplify's temporaries carry their user's line; one
//!   from another source line is absorbed only when none of its operations can fail.
//! - Nothing is fused inside `parfor` bodies. Inside GPU sections a chain becomes one
//!   element-wise tree again (the temporaries substituted back into their user, no loops):
//!   the GPU planner compiles a tree into one kernel (`gpu/library`), and on the CPU the
//!   tree is evaluated as written before `simplify` split it. Reductions there keep their
//!   operand as written.
//!
//! - A reduction with an accumulator type (`:acc f80`) or a mean keeps its node (VRIR
//!   has no `f80` scalar for an accumulation loop). A whole `sum`, `prod` or `mean` of
//!   a chain that cannot fail on an element becomes that reduction of the whole tree,
//!   which the cpu backend folds element by element (`cpu/codegen/fused_accumulate.rs`);
//!   otherwise (and on cpu-par for many elements of a tree calling the C math library)
//!   the chain fuses into one loop writing one array, which the reduction folds.
//!
//! - The user may be a store into a selection (`(set (index D ...) tree)`): the tree
//!   fuses into a fresh local and the store runs as written with it; when nothing in
//!   the tree can fail and no array of the tree may share D's storage, the loop writes
//!   through a view of the selection (created where the store would check its indices,
//!   after nothing that can fail), with the store as written where extents differ.
//! - Scalar statements inside the row: one the later values do not read is stepped
//!   over and runs after the fused loop (its order as written); one the tree reads whose
//!   value cannot fail runs before the loop when no earlier statement of the row reads
//!   what it assigns or assigns what it reads.
//!
//! Counters: `ops_fused` (element-wise operations now computed inside a fused loop),
//! `temporaries_removed` (temporaries substituted into their user), `reductions_fused`.

use super::elementwise::{
    assign, element, fresh_local, identity, loop_nest, mentions, parallel_when_large, recognise,
    same_shape_test, storage_is_logical, store, Tree,
};
use super::{Counters, Pass, PassContext};
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::stmt_count;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{
    Accum, AllocInit, BinOp, Block, Expr, Function, LValue, LibFn, Module, ReduceOp, Stmt, StmtKind,
};
use crate::vrir::types::{ScalarType, Type};

/// The counters, in the order `fuse` reports them.
const COUNTERS: [&str; 3] = ["ops_fused", "temporaries_removed", "reductions_fused"];

pub const FUSION: Pass = Pass {
    name: "fusion",
    summary: "fuse chains of element-wise operations (and sums/products of them) into one loop",
    run,
};

struct Fuser<'a> {
    m: &'a Module,
    /// Fused element-wise loops over many elements become `parfor` (cpu-par).
    parallel: bool,
    /// Inside a GPU section: chains become trees, not loops.
    in_gpu: bool,
    /// The function as written (analyses and mention counts refer to it).
    orig: Function,
    /// The function's symbol table, where fresh locals are added.
    table: Function,
    reach: DefiniteAssignment,
    /// Alias classes of the function as written (a store is written in place only
    /// into an array no array of its tree may share storage with).
    alias: crate::analysis::alias::AliasSets,
    counters: &'a mut Counters,
}

/// What the user statement computes.
enum Root {
    /// `target = tree`.
    Map,
    /// `target = (sum|prod tree)`.
    Reduce(ReduceOp),
    /// `target = (op tree ... :acc T)`, or a mean: the tree fuses into one loop writing
    /// one array, which the reduction then folds as written. Its accumulator type has
    /// no scalar variable to live in, so it is never turned into an accumulation loop.
    Accumulated {
        op: ReduceOp,
        axis: Option<u32>,
        acc: Option<Accum>,
    },
}

impl Fuser<'_> {
    /// Is `t` a temporary that `tree` may absorb: a local array variable mentioned
    /// exactly twice in the function (this assignment and one read, in `tree`). With
    /// `shared` (its value cannot fail on an element), it may also be read several
    /// times by the statements being fused, `group`, when those are all its mentions
    /// besides this assignment: it dies within them (R's `d <- x - x[k]` read by
    /// `d * d` and `m * d` in one iteration). Its tree is then computed at each read
    /// (LLVM computes repeated pure element operations once).
    fn absorbable(&self, t: &str, tree: &Expr, group: &[Stmt], shared: bool) -> bool {
        let is_local_array = self
            .orig
            .locals
            .iter()
            .any(|l| l.name == t && matches!(l.ty, Type::Array(_)));
        let mut reads_in_tree = 0;
        crate::analysis::walk_expr(tree, &mut |e| {
            if matches!(e, Expr::Var { name } if name == t) {
                reads_in_tree += 1;
            }
        });
        let total = mentions(&self.orig.body, t);
        if !is_local_array || reads_in_tree == 0 {
            return false;
        }
        if reads_in_tree == 1 && total == 2 {
            return true;
        }
        // Reads only: a group storing into `t` (`t[...] = sqrt(t)`) still needs `t`'s
        // storage, so its assignment must stay (found by opt_differential).
        let mut reads_in_group = 0;
        crate::analysis::walk_body_exprs(group, &mut |e| {
            if matches!(e, Expr::Var { name } if name == t) {
                reads_in_group += 1;
            }
        });
        shared && total == 1 + reads_in_group
    }

    /// Statements `stmts` (as written), the first numbered `first` in preorder.
    fn stmts(&mut self, stmts: Vec<Stmt>, first: usize) -> Vec<Stmt> {
        let written = stmts.clone();
        let ids = crate::analysis::stmt_ids(&stmts, first);
        let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
        // How many statements of `out` each statement of `written` became.
        let mut emitted: Vec<usize> = Vec::with_capacity(stmts.len());
        // What each statement's fusion added to the counters (taken back when a later
        // fusion absorbs the statement as written).
        let mut added: Vec<[u64; 3]> = Vec::with_capacity(stmts.len());
        for (j, mut s) in stmts.into_iter().enumerate() {
            let sid = ids[j];
            match &mut s.kind {
                StmtKind::Block(b) => {
                    let outer = self.in_gpu;
                    self.in_gpu |= b.on_gpu;
                    b.stmts = self.stmts(std::mem::take(&mut b.stmts), sid + 1);
                    self.in_gpu = outer;
                }
                StmtKind::If { then, els, .. } => {
                    let else_first = sid + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                    let outer = self.in_gpu;
                    self.in_gpu = outer || then.on_gpu;
                    then.stmts = self.stmts(std::mem::take(&mut then.stmts), sid + 1);
                    if let Some(e) = els.as_mut() {
                        self.in_gpu = outer || e.on_gpu;
                        e.stmts = self.stmts(std::mem::take(&mut e.stmts), else_first);
                    }
                    self.in_gpu = outer;
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    let outer = self.in_gpu;
                    self.in_gpu |= body.on_gpu;
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), sid + 1);
                    self.in_gpu = outer;
                }
                _ => {}
            }
            match self.fuse(&written, &ids, j, &emitted) {
                Some((absorbed, replacement, counts)) => {
                    let dropped: usize = emitted[j - absorbed..].iter().sum();
                    out.truncate(out.len() - dropped);
                    emitted[j - absorbed..].iter_mut().for_each(|n| *n = 0);
                    for undone in &mut added[j - absorbed..] {
                        for (k, name) in COUNTERS.iter().enumerate() {
                            *self.counters.entry(name).or_default() -= undone[k];
                        }
                        *undone = [0; 3];
                    }
                    for (k, name) in COUNTERS.iter().enumerate() {
                        *self.counters.entry(name).or_default() += counts[k];
                    }
                    emitted.push(replacement.len());
                    added.push(counts);
                    out.extend(replacement);
                }
                None => {
                    emitted.push(1);
                    added.push([0; 3]);
                    out.push(s);
                }
            }
        }
        out
    }

    /// Fuse statement `j` of `written` with the temporaries just before it: how many
    /// earlier statements it absorbs and what replaces them and it.
    fn fuse(
        &mut self,
        written: &[Stmt],
        ids: &[usize],
        j: usize,
        emitted: &[usize],
    ) -> Option<(usize, Vec<Stmt>, [u64; 3])> {
        let s = &written[j];
        // Where the result goes: a variable, `return` (None), or a store into a selection
        // of an array (`store`: the statement, whose value the fused result replaces).
        let mut store: Option<&Stmt> = None;
        let (target, value): (Option<&str>, &Expr) = match &s.kind {
            StmtKind::Assign { targets, value } => match targets.as_slice() {
                [LValue::Var { name }] => (Some(name.as_str()), value),
                [LValue::Index { .. }] if !self.in_gpu => {
                    store = Some(s);
                    (None, value)
                }
                _ => return None,
            },
            StmtKind::Return { values } => match values.as_slice() {
                [value] => (None, value),
                _ => return None,
            },
            _ => return None,
        };
        if self.in_gpu {
            // Only element-wise chains into a variable, as one tree.
            if target.is_none() || recognise(self.m, &self.orig, value).is_none() {
                return None;
            }
        }
        let (root, tree) = match value {
            Expr::Reduce {
                op: op @ (ReduceOp::Sum | ReduceOp::Prod),
                arg,
                axis: None,
                acc: None,
            } => (Root::Reduce(*op), (**arg).clone()),
            Expr::Reduce { op, arg, axis, acc } if acc.is_some() || op.is_mean() => (
                Root::Accumulated {
                    op: *op,
                    axis: *axis,
                    acc: *acc,
                },
                (**arg).clone(),
            ),
            // A scalar value is no element-wise tree, whatever it absorbs (substitution
            // keeps the tree's type): stop before walking back over the row, which made
            // this pass quadratic in a block of scalar statements.
            other if !matches!(
                crate::vrir::verify::expr_type(self.m, &self.orig, other),
                Ok(Type::Array(_))
            ) =>
            {
                return None
            }
            other => (Root::Map, other.clone()),
        };
        // Absorb the temporaries assigned just before, nearest first, down to `floor`.
        let written_tree = tree;
        let mut floor = 0;
        let (tree, start, stepped, hoisted) = loop {
            let mut tree = written_tree.clone();
            let mut start = j;
            // Scalar statements of the row stepped over (see `steppable`), with their
            // positions, nearest first.
            let mut stepped: Vec<(usize, Stmt)> = Vec::new();
            // Scalar statements the tree reads, computed before the fused loop (see
            // `hoistable`), with their positions, nearest first.
            let mut hoisted: Vec<(usize, Stmt)> = Vec::new();
            while start > floor {
                if !self.in_gpu && self.steppable(&written[start - 1], &written[start..=j], target)
                {
                    stepped.push((start - 1, written[start - 1].clone()));
                    start -= 1;
                    continue;
                }
                if !self.in_gpu && self.hoistable(&written[start - 1]) {
                    hoisted.push((start - 1, written[start - 1].clone()));
                    start -= 1;
                    continue;
                }
                let StmtKind::Assign { targets, value } = &written[start - 1].kind else {
                    break;
                };
                let [LValue::Var { name: t }] = targets.as_slice() else {
                    break;
                };
                // An element error carries the fused statement's line: a temporary from
                // another line is absorbed only if none of its operations can fail.
                let same_line = written[start - 1].line == s.line;
                let group = &written[start..=j];
                match (recognise(self.m, &self.orig, value), value) {
                    (Some(def), _)
                        if self.absorbable(
                            t,
                            &tree,
                            group,
                            def.fallible == 0 && cheap_to_repeat(value),
                        ) && (same_line || def.fallible == 0) => {}
                    // A copy of an array variable (R's recycling copies `_t4 = d`): its
                    // reads read the variable, which nothing in the row assigns (the row
                    // assigns absorbed temporaries only).
                    (None, Expr::Var { name: src })
                        if self.orig.var_type(src) == self.orig.var_type(t)
                            && self.absorbable(t, &tree, group, true)
                            && group
                                .iter()
                                .all(|g| !crate::analysis::stmt_defs(g).contains(src)) => {}
                    _ => break,
                }
                // A stepped-over statement runs after the fused loop: it may not read
                // what the loop no longer computes.
                if stepped
                    .iter()
                    .any(|(_, x)| mentions(std::slice::from_ref(x), t) > 0)
                {
                    break;
                }
                let mut next = tree.clone();
                substitute(&mut next, t, value);
                if tree_size(&next) > MAX_SHARED_TREE
                    && tree_size(&next) > tree_size(&tree) + tree_size(value)
                {
                    // A shared temporary copied at too many reads.
                    break;
                }
                tree = next;
                start -= 1;
            }
            // Statement start - 1 was absorbed by an earlier fusion whose replacement is
            // at or after `start`: replacing that would drop it. Absorb only what follows
            // that replacement (a shared temporary can stop the row inside it).
            if start > floor && start < j && emitted[start - 1] == 0 {
                floor = (start..j).find(|r| emitted[*r] > 0).map_or(j, |r| r + 1);
                continue;
            }
            // Scalar statements just before the first absorbed temporary stay where
            // they are.
            loop {
                // By position: a row may hold two equal statements.
                if start < j && stepped.last().is_some_and(|(p, _)| *p == start) {
                    stepped.pop();
                } else if start < j && hoisted.last().is_some_and(|(p, _)| *p == start) {
                    hoisted.pop();
                } else {
                    break;
                }
                start += 1;
            }
            stepped.reverse();
            hoisted.reverse();
            let stepped: Vec<Stmt> = stepped.into_iter().map(|(_, x)| x).collect();
            break (tree, start, stepped, hoisted);
        };
        // A hoisted statement runs before the row's earlier statements: none of them
        // may read what it assigns or assign what it reads.
        for (p, h) in &hoisted {
            let StmtKind::Assign { targets, value } = &h.kind else {
                return None;
            };
            let mut reads = std::collections::BTreeSet::new();
            crate::analysis::expr_vars(value, &mut reads);
            let v: Vec<String> = targets
                .iter()
                .filter_map(|t| match t {
                    LValue::Var { name } => Some(name.clone()),
                    _ => None,
                })
                .collect();
            for q in &written[start..*p] {
                if v.iter().any(|x| mentions(std::slice::from_ref(q), x) > 0)
                    || crate::analysis::stmt_defs(q)
                        .iter()
                        .any(|d| reads.contains(d))
                {
                    return None;
                }
            }
            if !reads
                .iter()
                .all(|r| self.reach.certainly_assigned(ids[start], r))
            {
                return None;
            }
        }
        let hoisted: Vec<Stmt> = hoisted.into_iter().map(|(_, h)| h).collect();
        let hoisted_vars: Vec<String> = hoisted
            .iter()
            .flat_map(crate::analysis::stmt_defs)
            .collect();
        let info = recognise(self.m, &self.orig, &tree)?;
        let replaced = j - start;
        let absorbed = replaced - stepped.len() - hoisted.len();
        let worth = match root {
            Root::Map | Root::Accumulated { .. } => info.ops >= 2,
            Root::Reduce(_) => info.ops >= 1,
        };
        let order_ok = match root {
            Root::Map | Root::Accumulated { .. } => true,
            Root::Reduce(_) => info.fallible == 0 || storage_is_logical(&info.ty),
        };
        let assigned = info
            .arrays
            .iter()
            .chain(&info.scalars)
            .all(|v| hoisted_vars.contains(v) || self.reach.certainly_assigned(ids[start], v));
        if !worth || info.fallible > 1 || !order_ok || !assigned {
            return None;
        }
        let line = s.line;
        if self.in_gpu {
            // The tree as one statement: its shapes, errors and order are those of the
            // statements it replaces, which computed exactly these operations in this
            // order (simplify's split undone).
            let target = target.expect("checked above");
            let counts = [info.ops as u64, absorbed as u64, 0];
            // The tree reads the temporaries in its operands' order and carries the
            // user's line: with two or more arrays, a shape mismatch must come from the
            // statements as written (their order, their lines), as on the CPU below.
            let joined = assign(target, tree, line);
            let stmts = match same_shape_test(&info.arrays, info.ty.ndims) {
                None => vec![joined],
                // (The statements as written are exactly those replaced only when none
                // was stepped over or hoisted.)
                Some(_) if absorbed != replaced => return None,
                Some(test) => vec![Stmt {
                    kind: StmtKind::If {
                        cond: test,
                        then: Block {
                            on_gpu: false,
                            stmts: vec![joined],
                        },
                        els: Some(Block {
                            on_gpu: false,
                            stmts: written[start..=j].to_vec(),
                        }),
                    },
                    line,
                }],
            };
            return Some((absorbed, stmts, counts));
        }
        // A store's value goes into a fresh local first (an array, or the scalar of a
        // reduction); the store then runs as written with that local as its value.
        let stored = store.map(|_| {
            let ty = match root {
                Root::Reduce(_) => Type::scalar(info.ty.elem),
                _ => Type::Array(info.ty),
            };
            fresh_local(&mut self.table, "_v", ty)
        });
        let target = stored.as_deref().or(target);
        let root = match (root, &stored) {
            // `(set (index ...) (sum tree :acc T))`: the reduction stays in the store.
            (Root::Accumulated { .. }, Some(_)) => Root::Map,
            (r, _) => r,
        };
        let store_value = |v: &str| -> Expr {
            match value {
                Expr::Reduce { op, axis, acc, .. }
                    if stored.is_some() && (acc.is_some() || op.is_mean()) =>
                {
                    Expr::Reduce {
                        op: *op,
                        arg: Box::new(Expr::var(v)),
                        axis: *axis,
                        acc: *acc,
                    }
                }
                _ => Expr::var(v),
            }
        };
        // A whole sum, product or mean with an accumulator type, of a tree that cannot
        // fail on an element: the reduction of the tree itself, which the backends fold
        // element by element (the cpu backend's fused_accumulate.rs), with no array for
        // the tree's values. It runs under the shape test as the loops do: the tree
        // reads the temporaries in its operands' order and carries the reduction's line,
        // so a shape error must come from the statements as written (their order, their
        // lines), not from the tree. Stepped-over statements would have to run
        // between the fold and the assignment, so a row with some keeps the loop. The
        // fold itself is serial (its order is the result's bits); on cpu-par a tree
        // that calls the C math library (`exp`, `sin`, ...) is computed in parallel
        // into an array first when it has many elements, and folded in place when few.
        // (Measured, 2 cores: sum(x * x + 1) of 5e7 doubles 0.58 s and 662 MB peak
        // through the array, 0.25 s and 270 MB folded in place.)
        let folds_tree = matches!(
            root,
            Root::Accumulated {
                op: ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Mean,
                axis: None,
                ..
            }
        ) && info.fallible == 0
            && stepped.is_empty();
        let tree_form = folds_tree && (!self.parallel || cheap_to_repeat(&tree));
        let mut fused = match root {
            Root::Map => self.map_loop(target, &tree, &info, line)?,
            Root::Reduce(op) => self.reduce_loop(target, op, &tree, &info, line)?,
            Root::Accumulated { op, axis, acc } => {
                let reduce = |arg: Expr| {
                    let value = Expr::Reduce {
                        op,
                        arg: Box::new(arg),
                        axis,
                        acc,
                    };
                    match target {
                        Some(t) => assign(t, value, line),
                        None => give_back(value, line),
                    }
                };
                if tree_form {
                    vec![reduce(tree.clone())]
                } else {
                    let folded = fresh_local(&mut self.table, "_f", Type::Array(info.ty));
                    // (Under the test below the loop is parallel as it stands.)
                    let map_parallel = self.parallel && !folds_tree;
                    let parallel = std::mem::replace(&mut self.parallel, map_parallel);
                    let out = self.map_loop(Some(&folded), &tree, &info, line);
                    self.parallel = parallel;
                    let mut out = out?;
                    out.push(reduce(Expr::var(folded)));
                    if folds_tree {
                        for s in &mut out {
                            if let StmtKind::For { vars, domain, body } = &s.kind {
                                s.kind = StmtKind::Parfor {
                                    vars: vars.clone(),
                                    domain: domain.clone(),
                                    body: body.clone(),
                                };
                            }
                        }
                        // cpu-par: many elements are computed in parallel into the
                        // array and folded serially; fewer in the fold itself.
                        let count = (0..info.ty.ndims)
                            .map(|k| super::elementwise::dim(&info.arrays[0], k))
                            .reduce(|a, b| Expr::binary(BinOp::Mul, a, b))?;
                        out = vec![Stmt {
                            kind: StmtKind::If {
                                cond: Expr::binary(
                                    BinOp::Ge,
                                    count,
                                    Expr::i64(super::elementwise::PARALLEL_MIN_ELEMENTS),
                                ),
                                then: Block {
                                    on_gpu: false,
                                    stmts: out,
                                },
                                els: Some(Block {
                                    on_gpu: false,
                                    stmts: vec![reduce(tree.clone())],
                                }),
                            },
                            line,
                        }];
                    }
                    out
                }
            }
        };
        // The stepped-over scalar statements run after the fused computation and before
        // the result is assigned, stored or returned: their order as written.
        let at = fused
            .iter()
            .rposition(|x| {
                matches!(
                    x.kind,
                    StmtKind::For { .. } | StmtKind::Parfor { .. } | StmtKind::If { .. }
                )
            })
            .map_or(fused.len(), |k| k + 1);
        let stepped_copy = stepped.clone();
        let stepped_at = at..at + stepped.len();
        fused.splice(at..at, stepped);
        if let (Some(st), Some(v)) = (store, &stored) {
            let mut st = st.clone();
            if let StmtKind::Assign { value: sv, .. } = &mut st.kind {
                *sv = store_value(v);
            }
            let direct = matches!(root, Root::Map) && info.fallible == 0;
            match self.store_view(st.clone(), &info).filter(|_| direct) {
                // In place: the stepped statements, the selection as a view (its index
                // errors are the store's: nothing before it could fail), then, when its
                // extents are the tree's, one loop writing through it; otherwise the
                // value into a fresh array and the store, which raises its shape error.
                Some((view_stmt, w, extents_match)) => {
                    let mut plain: Vec<Stmt> = fused
                        .drain(..)
                        .enumerate()
                        .filter(|(k, _)| !stepped_at.contains(k))
                        .map(|(_, x)| x)
                        .collect();
                    plain.push(st);
                    let idx = self.index_vars(info.ty.ndims);
                    let extents: Vec<Expr> = (0..info.ty.ndims)
                        .map(|k| super::elementwise::dim(&info.arrays[0], k))
                        .collect();
                    let col = !storage_is_logical(&info.ty);
                    let body = vec![super::elementwise::store(
                        &w,
                        &idx,
                        element(&tree, &idx, &info.arrays),
                        line,
                    )];
                    let nest = loop_nest(self.m.index_base, &idx, extents.clone(), col, body, line);
                    let nest = if self.parallel {
                        parallel_when_large(nest, &extents)
                    } else {
                        nest
                    };
                    fused = stepped_copy.clone();
                    fused.push(view_stmt);
                    fused.push(Stmt {
                        kind: StmtKind::If {
                            cond: extents_match,
                            then: Block {
                                on_gpu: false,
                                stmts: vec![nest],
                            },
                            els: Some(Block {
                                on_gpu: false,
                                stmts: plain,
                            }),
                        },
                        line,
                    });
                }
                None => fused.push(st),
            }
        }
        let counts = [
            info.ops as u64,
            absorbed as u64,
            matches!(root, Root::Reduce(_)) as u64,
        ];
        let mut replacement = hoisted;
        replacement.extend(match same_shape_test(&info.arrays, info.ty.ndims) {
            None => fused,
            Some(test) => vec![Stmt {
                kind: StmtKind::If {
                    cond: test,
                    then: Block {
                        on_gpu: false,
                        stmts: fused,
                    },
                    els: Some(Block {
                        on_gpu: false,
                        stmts: written[start..=j].to_vec(),
                    }),
                },
                line,
            }],
        });
        Some((replaced, replacement, counts))
    }

    /// Whether `s`, a statement of the row, may run before the fused loop (whose tree
    /// reads what it assigns: `hoist-scalars`' `(set _s3 (neg 0.356563782))` between
    /// the temporaries of R's `cnd`): `(set v E)` with v a scalar and E unable to fail
    /// or have effects (constants, scalar variables, `neg`/`not`, arithmetic and
    /// comparisons but no division, casts from integers or bool to a real type).
    /// `fuse` then checks that the row's earlier statements neither read v nor assign
    /// what E reads, and that E's variables are certainly assigned where the row starts.
    fn hoistable(&self, s: &Stmt) -> bool {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return false;
        };
        let [LValue::Var { name: v }] = targets.as_slice() else {
            return false;
        };
        matches!(self.orig.var_type(v), Some(Type::Scalar { .. })) && self.cannot_fail(value)
    }

    fn cannot_fail(&self, e: &Expr) -> bool {
        match e {
            Expr::Const { .. } => true,
            Expr::Var { name } => matches!(self.orig.var_type(name), Some(Type::Scalar { .. })),
            Expr::Unary { arg, .. } => self.cannot_fail(arg),
            Expr::Binary { op, lhs, rhs } => {
                !matches!(op, BinOp::Div | BinOp::IDiv | BinOp::Mod)
                    && self.cannot_fail(lhs)
                    && self.cannot_fail(rhs)
            }
            Expr::Cast {
                to: Type::Scalar { elem },
                arg,
            } => {
                let from = crate::vrir::verify::expr_type(self.m, &self.orig, arg);
                matches!(
                    from,
                    Ok(Type::Scalar {
                        elem: ScalarType::Bool | ScalarType::I32 | ScalarType::I64
                    })
                ) && !matches!(elem, ScalarType::C64 | ScalarType::C128)
                    && self.cannot_fail(arg)
            }
            _ => false,
        }
    }

    /// Whether `s`, a statement of the row before the user `group`'s last statement,
    /// may be stepped over: `(set v E)` with v a scalar and E without calls, maps,
    /// reductions or allocations (nothing an earlier fusion could have rewritten),
    /// mentioning no array temporary of the row, nor the user's target; v read by no
    /// value of the row (only, say, by the indices of the user's store). It then runs
    /// after the fused loop, which computes what the row computed before it, and before
    /// the result is assigned: the order as written. (R's index temporaries between a
    /// chain and its store: `(set _t14 ...) (set (index der (range 2 _t14 ...)) ...)`.)
    fn steppable(&self, s: &Stmt, group: &[Stmt], target: Option<&str>) -> bool {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return false;
        };
        let [LValue::Var { name: v }] = targets.as_slice() else {
            return false;
        };
        if !matches!(self.orig.var_type(v), Some(Type::Scalar { .. })) {
            return false;
        }
        let mut ok = true;
        crate::analysis::walk_expr(value, &mut |e| match e {
            Expr::Call { .. }
            | Expr::Map { .. }
            | Expr::Reduce { .. }
            | Expr::Scan { .. }
            | Expr::Alloc { .. } => ok = false,
            Expr::Lib { func, .. } if func.random_draw().is_some() => ok = false,
            Expr::Var { name }
                if Some(name.as_str()) == target
                    || matches!(self.orig.var_type(name), Some(Type::Array(_)))
                        && group
                            .iter()
                            .any(|g| crate::analysis::stmt_defs(g).contains(name)) =>
            {
                ok = false
            }
            _ => {}
        });
        let read_by_values = group.iter().any(|g| {
            let vals: Vec<&Expr> = match &g.kind {
                StmtKind::Assign { value, .. } => vec![value],
                StmtKind::Return { values } => values.iter().collect(),
                _ => return true,
            };
            vals.iter().any(|e| {
                let mut hit = false;
                crate::analysis::walk_expr(e, &mut |x| {
                    hit |= matches!(x, Expr::Var { name } if name == v);
                });
                hit
            })
        });
        ok && !read_by_values
    }

    /// For a store `(set (index D i...) V)` whose selection (scalar and range indices)
    /// can be a view of D that no array of the tree may share storage with: the view's
    /// assignment `(set _wN (index D i... :view))`, `_wN`, and the test that its extents
    /// are the tree's (those of `info.arrays[0]`).
    fn store_view(&mut self, st: Stmt, info: &Tree) -> Option<(Stmt, String, Expr)> {
        let StmtKind::Assign { targets, .. } = &st.kind else {
            return None;
        };
        let [LValue::Index {
            array: d,
            indices,
            flags,
        }] = targets.as_slice()
        else {
            return None;
        };
        let Some(Type::Array(dt)) = self.orig.var_type(d) else {
            return None;
        };
        if flags.flatten || flags.negative || dt.elem != info.ty.elem {
            return None;
        }
        let mut rank = dt.ndims.checked_sub(indices.len() as u32)?;
        for i in indices {
            match i {
                Expr::Range { .. } => rank += 1,
                _ => match crate::vrir::verify::expr_type(self.m, &self.orig, i) {
                    Ok(Type::Scalar { elem }) if elem.is_int() => {}
                    _ => return None,
                },
            }
        }
        let shared = info
            .arrays
            .iter()
            .any(|a| a == d || self.alias.may_alias(a, d));
        if rank != info.ty.ndims || shared {
            return None;
        }
        let w = fresh_local(
            &mut self.table,
            "_w",
            Type::Array(crate::vrir::types::ArrayType::new(
                dt.elem,
                rank,
                crate::vrir::types::Layout::Strided,
            )),
        );
        let view = Expr::Index {
            array: Box::new(Expr::var(d)),
            indices: indices.clone(),
            flags: crate::vrir::ast::IndexFlags {
                view: true,
                ..*flags
            },
        };
        let test = super::elementwise::all_of(
            (0..rank)
                .map(|k| {
                    Expr::binary(
                        BinOp::Eq,
                        super::elementwise::dim(&w, k),
                        super::elementwise::dim(&info.arrays[0], k),
                    )
                })
                .collect(),
        )?;
        Some((assign(&w, view, st.line), w, test))
    }

    fn index_vars(&mut self, n: u32) -> Vec<String> {
        (0..n)
            .map(|_| fresh_local(&mut self.table, "_i", Type::I64))
            .collect()
    }

    /// `target = tree` (`return tree` for no target) as: a fresh array of the tree's
    /// type, one loop writing each element, then the assignment or the return (straight
    /// into `target` when that is a local of the
    /// tree's type the tree does not read).
    fn map_loop(
        &mut self,
        target: Option<&str>,
        tree: &Expr,
        info: &Tree,
        line: Option<u32>,
    ) -> Option<Vec<Stmt>> {
        let ty = Type::Array(info.ty);
        // (`table` holds the function's locals and those fusion added.)
        let direct = target.filter(|t| {
            self.table.locals.iter().any(|l| l.name == *t && l.ty == ty)
                && !info.arrays.iter().chain(&info.scalars).any(|v| v == t)
        });
        let dest = if let Some(t) = direct {
            t.to_string()
        } else {
            fresh_local(&mut self.table, "_f", ty)
        };
        let idx = self.index_vars(info.ty.ndims);
        let extents: Vec<Expr> = (0..info.ty.ndims)
            .map(|k| super::elementwise::dim(&info.arrays[0], k))
            .collect();
        let mut out = vec![assign(
            &dest,
            Expr::Alloc {
                init: AllocInit::Empty,
                ty: info.ty,
                dims: extents.clone(),
            },
            line,
        )];
        // With no operation that can fail, any order gives the same array: storage
        // order is the fast one.
        let col = info.fallible == 0 && !storage_is_logical(&info.ty);
        let body = vec![store(&dest, &idx, element(tree, &idx, &info.arrays), line)];
        let nest = loop_nest(self.m.index_base, &idx, extents.clone(), col, body, line);
        out.push(if self.parallel && info.fallible == 0 {
            parallel_when_large(nest, &extents)
        } else {
            nest
        });
        match (target, direct) {
            (Some(t), None) => out.push(assign(t, Expr::var(dest), line)),
            (None, _) => out.push(give_back(Expr::var(dest), line)),
            _ => {}
        }
        Some(out)
    }

    /// `target = (op tree)` as an accumulation from op's identity over the elements in
    /// the storage order of the tree's type (the order the interpreter folds in).
    fn reduce_loop(
        &mut self,
        target: Option<&str>,
        op: ReduceOp,
        tree: &Expr,
        info: &Tree,
        line: Option<u32>,
    ) -> Option<Vec<Stmt>> {
        let elem = info.ty.elem;
        let target_ok = target.is_none_or(|t| self.table.var_type(t) == Some(&Type::scalar(elem)));
        if elem == ScalarType::Bool || !target_ok {
            return None;
        }
        let acc = fresh_local(&mut self.table, "_acc", Type::scalar(elem));
        let idx = self.index_vars(info.ty.ndims);
        let extents: Vec<Expr> = (0..info.ty.ndims)
            .map(|k| super::elementwise::dim(&info.arrays[0], k))
            .collect();
        let step = match op {
            ReduceOp::Sum => BinOp::Add,
            _ => BinOp::Mul,
        };
        let body = vec![assign(
            &acc,
            Expr::binary(step, Expr::var(&acc), element(tree, &idx, &info.arrays)),
            line,
        )];
        Some(vec![
            assign(&acc, identity(elem, op == ReduceOp::Prod)?, line),
            loop_nest(
                self.m.index_base,
                &idx,
                extents,
                !storage_is_logical(&info.ty),
                body,
                line,
            ),
            match target {
                Some(t) => assign(t, Expr::var(acc), line),
                None => give_back(Expr::var(acc), line),
            },
        ])
    }
}

/// `(return value)`.
fn give_back(value: Expr, line: Option<u32>) -> Stmt {
    Stmt {
        kind: StmtKind::Return {
            values: vec![value],
        },
        line,
    }
}

/// Trees of shared temporaries are copied at each read: at most this many nodes.
const MAX_SHARED_TREE: usize = 64;

/// Whether LLVM computes repeated copies of `e` once: arithmetic, comparisons, casts
/// and the library functions the cpu backend emits as LLVM intrinsics. Calls of the C
/// math library (`sin`, `exp`, `atan2`, ...) may set errno, so LLVM keeps each copy: a
/// temporary of those is absorbed only where it is read once.
fn cheap_to_repeat(e: &Expr) -> bool {
    let mut ok = true;
    crate::analysis::walk_expr(e, &mut |x| {
        if let Expr::Lib { func, .. } = x {
            ok &= matches!(
                func,
                LibFn::Sqrt
                    | LibFn::Abs
                    | LibFn::Floor
                    | LibFn::Ceil
                    | LibFn::Trunc
                    | LibFn::Min
                    | LibFn::Max
                    | LibFn::IsNan
                    | LibFn::IsInf
            );
        }
    });
    ok
}

/// The number of nodes of `e`.
fn tree_size(e: &Expr) -> usize {
    let mut n = 0;
    crate::analysis::walk_expr(e, &mut |_| n += 1);
    n
}

/// Replace every read of `t` in `e` by `value`.
fn substitute(e: &mut Expr, t: &str, value: &Expr) {
    if matches!(e, Expr::Var { name } if name == t) {
        *e = value.clone();
        return;
    }
    for c in super::sub_exprs_mut(e) {
        substitute(c, t, value);
    }
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let mut table = f.clone();
    table.body = Vec::new();
    let mut fuser = Fuser {
        m: cx.module,
        parallel: cx.options.parallel_loops,
        in_gpu: false,
        orig: f.clone(),
        table,
        reach: DefiniteAssignment::compute(f),
        alias: crate::analysis::alias::AliasSets::compute(f, cx.options.params_never_alias),
        counters,
    };
    let body = fuser.stmts(std::mem::take(&mut f.body), 0);
    f.locals = fuser.table.locals;
    f.body = body;
    Ok(())
}
