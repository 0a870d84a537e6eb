//! `recycle-version`: R's run-time recycling guards go where lengths are known equal.
//!
//! Why: the R front end (frontend/r/recycle.rs) lowers each element-wise operation of
//! two vectors with guards around it: the operands copied into temporaries, each
//! replaced by a full-length copy of its element when it has length 1 and the other
//! does not, and `recycling` raised when the lengths still differ:
//!
//! ```text
//! (set _t3 m) (set _t4 d)
//! (if (and (== (len _t3) 1) (!= (len _t4) 1)) (block (set _t3 (fill ... (len _t4)))))
//! (if (and (== (len _t4) 1) (!= (len _t3) 1)) (block (set _t4 (fill ... (len _t3)))))
//! (if (!= (len _t3) (len _t4)) (block (expr (call _error_recycling... ))))
//! (set _t7 (* _t3 _t4))
//! ```
//!
//! The guards split every chain of vector operations into single statements, so
//! `fusion` (which absorbs temporaries assigned just before their user) finds nothing
//! to fuse in R's vector style, and each operation allocates its own array.
//!
//! What this pass does, per statement list (not in `parfor` bodies or GPU sections):
//! - It follows which rank-1 arrays certainly have the same length: an element-wise
//!   statement `(set T E)` that completed leaves T with the shape of every array E
//!   reads; `(set T V)` gives T V's value; a `fill`/`zeros`/`empty` of `(len B)` has
//!   B's length. Values are tracked, not names (a reassigned variable is a new value);
//!   anything else a statement assigns has an unknown length.
//! - A guard whose two vectors certainly have equal lengths cannot do anything (its
//!   condition is false): it is removed (`guards_removed`).
//! - The remaining guards that compare vectors whose lengths are values available
//!   earlier in the list (parameters, slices, variables assigned before) are removed
//!   under a test: from the plain statements just before the first such guard (not
//!   before any value the test reads exists), up to the last guard removed and the
//!   plain statements after it (the user of the chain),
//!   the statements become `(if (and (== (len A) (len B)) ...) FAST AS-WRITTEN)`,
//!   FAST without those guards (`runs_versioned`). When the test holds, every removed
//!   guard's condition is false where it stood; otherwise the statements run as
//!   written. Local variables that live only inside the duplicated statements get
//!   fresh names in the AS-WRITTEN copy, so that each temporary of FAST is still
//!   mentioned only there (what `fusion` requires of what it absorbs).
//!
//! Behaviour, errors included, is unchanged: a guard is only removed where its
//! condition is false, and a condition (`len` of an assigned variable, comparisons)
//! cannot fail or have effects. Runs after `simplify` and before `fusion`.

use super::elementwise::{all_of, fresh_local};
use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::analysis::liveness::LiveVars;
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{stmt_count, stmt_defs, stmt_ids};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{
    BinOp, Block, Expr, Function, LValue, LibFn, Literal, Module, Stmt, StmtKind,
};
use crate::vrir::types::Type;
use crate::vrir::verify::expr_type;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub const RECYCLE_VERSION: Pass = Pass {
    name: "recycle-version",
    summary:
        "remove R's recycling guards where vector lengths are known equal, or under one length test",
    run,
};

/// A recycling guard of the R front end, over two vector variables.
#[derive(Clone, Debug)]
struct Guard {
    a: String,
    b: String,
    /// `(if (and (== (len A) 1) (!= (len B) 1)) (block (set A ...)))`: assigns A when it
    /// runs. Otherwise `(if (!= (len A) (len B)) ...)`, which raises.
    fills: bool,
}

fn len_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Lib {
            func: LibFn::Len,
            args,
        } => match args.as_slice() {
            [Expr::Var { name }] => Some(name),
            _ => None,
        },
        _ => None,
    }
}

fn is_one(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Const {
            value: Literal::I64(1)
        }
    )
}

/// `(op (len X) RHS)`: X and RHS.
fn len_cmp(e: &Expr, op: BinOp) -> Option<(&str, &Expr)> {
    match e {
        Expr::Binary { op: o, lhs, rhs } if *o == op => Some((len_of(lhs)?, rhs)),
        _ => None,
    }
}

/// The guard statement `s` is, if any (A and B rank-1 arrays of `f`).
fn guard(f: &Function, s: &Stmt) -> Option<Guard> {
    let StmtKind::If {
        cond,
        then,
        els: None,
    } = &s.kind
    else {
        return None;
    };
    let vector = |v: &str| matches!(f.var_type(v), Some(Type::Array(a)) if a.ndims == 1);
    let g = match cond {
        Expr::Binary {
            op: BinOp::And,
            lhs,
            rhs,
        } => {
            let (a, one) = len_cmp(lhs, BinOp::Eq)?;
            let (b, one2) = len_cmp(rhs, BinOp::Ne)?;
            // The body assigns A (and nothing else).
            let assigns_a = matches!(then.stmts.as_slice(),
                [Stmt { kind: StmtKind::Assign { targets, .. }, .. }]
                    if matches!(targets.as_slice(), [LValue::Var { name }] if name == a));
            if !(is_one(one) && is_one(one2) && assigns_a) {
                return None;
            }
            Guard {
                a: a.to_string(),
                b: b.to_string(),
                fills: true,
            }
        }
        Expr::Binary {
            op: BinOp::Ne,
            lhs,
            rhs,
        } => Guard {
            a: len_of(lhs)?.to_string(),
            b: len_of(rhs)?.to_string(),
            fills: false,
        },
        _ => return None,
    };
    (vector(&g.a) && vector(&g.b) && g.a != g.b).then_some(g)
}

/// Whether the element-wise library function `f` applies to each element.
fn is_elementwise_lib(f: LibFn) -> bool {
    !matches!(
        f,
        LibFn::Matmul | LibFn::Transpose | LibFn::Copy | LibFn::Len | LibFn::Ndims
    )
}

/// The array variables whose shape the array-valued element-wise expression `e` has
/// once it evaluated without error (its scalar subexpressions broadcast); None when
/// `e` is not such an expression.
fn shape_operands(m: &Module, f: &Function, e: &Expr) -> Option<Vec<String>> {
    fn walk(m: &Module, f: &Function, e: &Expr, out: &mut Vec<String>) -> Option<()> {
        match expr_type(m, f, e).ok()? {
            Type::Scalar { .. } => return Some(()),
            Type::Array(_) => {}
            _ => return None,
        }
        match e {
            Expr::Var { name } => out.push(name.clone()),
            Expr::Binary { lhs, rhs, .. } => {
                walk(m, f, lhs, out)?;
                walk(m, f, rhs, out)?;
            }
            Expr::Unary { arg, .. } => walk(m, f, arg, out)?,
            Expr::Cast {
                to: Type::Array(_),
                arg,
            } => walk(m, f, arg, out)?,
            Expr::Lib { func, args } if is_elementwise_lib(*func) => {
                for a in args {
                    walk(m, f, a, out)?;
                }
            }
            _ => return None,
        }
        Some(())
    }
    let mut out = Vec::new();
    walk(m, f, e, &mut out)?;
    (!out.is_empty()).then_some(out)
}

/// Where a value with a testable length comes from: variable `var` as statement `def`
/// of the list left it (None: as it was when the list started).
#[derive(Clone, Debug, PartialEq)]
struct Leaf {
    var: String,
    def: Option<usize>,
}

/// Values of array variables and which of them certainly have equal lengths
/// (union-find over values).
#[derive(Default)]
struct Lengths {
    parent: Vec<usize>,
    /// The first leaf of each value's class (at its root).
    leaf: Vec<Option<Leaf>>,
    /// Each variable's current value.
    cur: HashMap<String, usize>,
}

impl Lengths {
    fn fresh(&mut self, leaf: Option<Leaf>) -> usize {
        self.parent.push(self.parent.len());
        self.leaf.push(leaf);
        self.parent.len() - 1
    }

    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            self.parent[v] = self.parent[self.parent[v]];
            v = self.parent[v];
        }
        v
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        // Keep the leaf of the older value (the earlier one has the better chance to
        // exist where a test goes).
        let (keep, gone) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[gone] = keep;
        if self.leaf[keep].is_none() {
            self.leaf[keep] = self.leaf[gone].take();
        }
    }

    /// The value of `var` (a value as the list started, for a variable not yet seen).
    fn value(&mut self, var: &str) -> usize {
        if let Some(v) = self.cur.get(var) {
            return *v;
        }
        let v = self.fresh(Some(Leaf {
            var: var.to_string(),
            def: None,
        }));
        self.cur.insert(var.to_string(), v);
        v
    }

    fn same(&mut self, a: &str, b: &str) -> bool {
        let (va, vb) = (self.value(a), self.value(b));
        self.find(va) == self.find(vb)
    }

    fn leaf_of(&mut self, var: &str) -> Option<Leaf> {
        let v = self.value(var);
        let r = self.find(v);
        self.leaf[r].clone()
    }
}

/// What one walk over a statement list decided.
#[derive(Default)]
struct Plan {
    /// Guards removed: index in the list.
    removed: BTreeSet<usize>,
    /// Of those, removed only under the test: index, and the two leaves compared.
    assumed: Vec<(usize, Leaf, Leaf)>,
}

struct Walker<'a> {
    m: &'a Module,
    f: &'a Function,
}

impl Walker<'_> {
    /// Walk `stmts` following lengths; with `assume_from = Some(q)`, a guard at an index
    /// >= q over two vectors with leaves is removed by assuming equal lengths.
    fn walk(&self, stmts: &[Stmt], assume_from: Option<usize>) -> Plan {
        let mut l = Lengths::default();
        let mut plan = Plan::default();
        for (i, s) in stmts.iter().enumerate() {
            if let Some(g) = guard(self.f, s) {
                if l.same(&g.a, &g.b) {
                    plan.removed.insert(i);
                    continue;
                }
                if assume_from.is_some_and(|q| i >= q) {
                    if let (Some(la), Some(lb)) = (l.leaf_of(&g.a), l.leaf_of(&g.b)) {
                        let (va, vb) = (l.value(&g.a), l.value(&g.b));
                        l.union(va, vb);
                        plan.removed.insert(i);
                        plan.assumed.push((i, la, lb));
                        continue;
                    }
                }
                // Kept: a filling guard may replace its vector.
                if g.fills {
                    let v = l.fresh(None);
                    l.cur.insert(g.a.clone(), v);
                }
                continue;
            }
            self.effect(&mut l, s, i);
        }
        plan
    }

    /// What statement `s` (number `i` of the list) does to the lengths.
    fn effect(&self, l: &mut Lengths, s: &Stmt, i: usize) {
        if let StmtKind::Assign { targets, value } = &s.kind {
            if let [LValue::Var { name: t }] = targets.as_slice() {
                if let Some(Type::Array(_)) = self.f.var_type(t) {
                    let v = match value {
                        Expr::Var { name } if self.f.var_type(name).is_some() => l.value(name),
                        Expr::Alloc { dims, .. } if dims.len() == 1 => match len_of(&dims[0]) {
                            Some(b) => {
                                let v = l.fresh(None);
                                let vb = l.value(b);
                                l.union(v, vb);
                                v
                            }
                            None => l.fresh(Some(Leaf {
                                var: t.clone(),
                                def: Some(i),
                            })),
                        },
                        _ => match shape_operands(self.m, self.f, value) {
                            Some(ops) => {
                                let v = l.fresh(None);
                                for o in ops {
                                    let vo = l.value(&o);
                                    l.union(v, vo);
                                }
                                v
                            }
                            None => l.fresh(Some(Leaf {
                                var: t.clone(),
                                def: Some(i),
                            })),
                        },
                    };
                    l.cur.insert(t.clone(), v);
                    return;
                }
            }
        }
        // Anything else: what it assigns (nested statements too) has unknown lengths.
        for s in crate::analysis::preorder(std::slice::from_ref(s)) {
            for d in stmt_defs(s) {
                let v = l.fresh(None);
                l.cur.insert(d, v);
            }
        }
    }
}

struct Versioner<'a> {
    m: &'a Module,
    orig: Function,
    table: Function,
    live: LiveVars,
    reach: DefiniteAssignment,
    counters: &'a mut Counters,
}

impl Versioner<'_> {
    /// The statement list `stmts` (as written, the first numbered `first`), nested
    /// lists first.
    fn stmts(&mut self, mut stmts: Vec<Stmt>, first: usize) -> Vec<Stmt> {
        let ids = stmt_ids(&stmts, first);
        let written = stmts.clone();
        for (j, s) in stmts.iter_mut().enumerate() {
            let sid = ids[j];
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
        }
        self.list(&written, stmts, &ids)
    }

    /// Remove or version the guards of one list: `written` as written, `stmts` with
    /// their nested lists done.
    fn list(&mut self, written: &[Stmt], stmts: Vec<Stmt>, ids: &[usize]) -> Vec<Stmt> {
        let w = Walker {
            m: self.m,
            f: &self.orig,
        };
        let certain = w.walk(written, None);
        // Assume from the first guard on; move the start after the leaves' definitions
        // until every assumed guard comes after the test.
        let mut q = 0;
        let mut versioned: Option<(usize, Plan)> = None;
        for _ in 0..written.len() + 1 {
            let plan = w.walk(written, Some(q));
            if plan.assumed.is_empty() {
                break;
            }
            let p = plan
                .assumed
                .iter()
                .flat_map(|(_, a, b)| [a.def, b.def])
                .map(|d| d.map_or(0, |d| d + 1))
                .max()
                .unwrap_or(0);
            if plan.assumed.iter().all(|(g, _, _)| *g >= p) {
                versioned = Some((p, plan));
                break;
            }
            q = p;
        }
        // The test goes as late as it can: just before the plain statements that lead
        // to the first guard it removes (the chain fusion may join), not before loops
        // or other compound statements between the lengths' definitions and the chain,
        // which would be copied for nothing.
        let versioned = versioned.map(|(earliest, plan)| {
            let first = plan.assumed.iter().map(|(g, _, _)| *g).min().expect("assumed");
            let mut p = first;
            while p > earliest
                && matches!(written[p - 1].kind, StmtKind::Assign { .. } | StmtKind::Expr { .. })
            {
                p -= 1;
            }
            (p, plan)
        });
        let versioned = versioned.filter(|(p, plan)| self.leaves_exist(written, ids, *p, plan));
        let Some((p, plan)) = versioned else {
            return self.drop_guards(stmts, &certain.removed);
        };
        // The versioned statements: from the test to the last guard removed only under
        // it, and the plain statements and guards after it (the user of the chain).
        let mut e = plan
            .removed
            .iter()
            .copied()
            .filter(|i| !certain.removed.contains(i))
            .max()
            .expect("assumed");
        while e + 1 < written.len()
            && (matches!(
                written[e + 1].kind,
                StmtKind::Assign { .. } | StmtKind::Expr { .. } | StmtKind::Return { .. }
            ) || guard(&self.orig, &written[e + 1]).is_some())
        {
            e += 1;
        }
        let mut terms = Vec::new();
        for (_, a, b) in &plan.assumed {
            let t = Expr::binary(BinOp::Eq, len_expr(&a.var), len_expr(&b.var));
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
        let test = all_of(terms).expect("assumed");
        let removed_fast = plan.removed.iter().filter(|i| (p..=e).contains(*i)).count() as u64;
        let removed_outside = certain
            .removed
            .iter()
            .filter(|i| !(p..=e).contains(*i))
            .count() as u64;
        *self.counters.entry("guards_removed").or_default() += removed_fast + removed_outside;
        *self.counters.entry("runs_versioned").or_default() += 1;

        let line = written[p].line;
        let mut out = Vec::with_capacity(stmts.len() + 1);
        let mut fast = Vec::new();
        let mut slow = Vec::new();
        for (i, s) in stmts.into_iter().enumerate() {
            if i < p || i > e {
                if !certain.removed.contains(&i) {
                    out.push(s);
                }
                continue;
            }
            if !plan.removed.contains(&i) {
                fast.push(s.clone());
            }
            if !certain.removed.contains(&i) {
                slow.push(s);
            }
            if i == e {
                let renames = self.private_names(written, ids, p, e);
                rename_stmts(&mut slow, &renames);
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: test.clone(),
                        then: Block {
                            on_gpu: false,
                            stmts: std::mem::take(&mut fast),
                        },
                        els: Some(Block {
                            on_gpu: false,
                            stmts: std::mem::take(&mut slow),
                        }),
                    },
                    line,
                });
            }
        }
        out
    }

    /// Whether every leaf the test reads holds, just before statement `p`, the value
    /// the walk compared: assigned there, and not reassigned since its definition.
    fn leaves_exist(&self, written: &[Stmt], ids: &[usize], p: usize, plan: &Plan) -> bool {
        plan.assumed
            .iter()
            .flat_map(|(_, a, b)| [a, b])
            .all(|leaf| {
                let from = leaf.def.map_or(0, |d| d + 1);
                let untouched = written[from..p].iter().all(|s| {
                    crate::analysis::preorder(std::slice::from_ref(s))
                        .iter()
                        .all(|s| !stmt_defs(s).contains(&leaf.var))
                });
                let assigned = p >= written.len()
                    || leaf.def.is_some()
                    || self.reach.certainly_assigned(ids[p], &leaf.var);
                untouched && assigned
            })
    }

    /// Locals assigned in statements `p..=e` of `written` and dead before and after them
    /// (every mention is inside), each with a fresh name of its type.
    fn private_names(
        &mut self,
        written: &[Stmt],
        ids: &[usize],
        p: usize,
        e: usize,
    ) -> BTreeMap<String, String> {
        let mut assigned = BTreeSet::new();
        for s in crate::analysis::preorder(&written[p..=e]) {
            assigned.extend(stmt_defs(s));
        }
        let mut out = BTreeMap::new();
        for v in assigned {
            let local = self.orig.locals.iter().find(|l| l.name == v).cloned();
            let Some(local) = local else { continue };
            let dead_before = !self.live.is_live(ids[p], &v);
            let dead_after = !self.live.is_live_after(ids[e], &v);
            if dead_before && dead_after {
                let fresh = fresh_local(&mut self.table, &format!("{v}_r"), local.ty.clone());
                out.insert(v, fresh);
            }
        }
        out
    }

    fn drop_guards(&mut self, stmts: Vec<Stmt>, removed: &BTreeSet<usize>) -> Vec<Stmt> {
        if !removed.is_empty() {
            *self.counters.entry("guards_removed").or_default() += removed.len() as u64;
        }
        stmts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !removed.contains(i))
            .map(|(_, s)| s)
            .collect()
    }
}

fn len_expr(var: &str) -> Expr {
    Expr::Lib {
        func: LibFn::Len,
        args: vec![Expr::var(var)],
    }
}

/// Rename variables in statements (every mention: reads, targets, loop variables,
/// allocations, atomics).
fn rename_stmts(stmts: &mut [Stmt], map: &BTreeMap<String, String>) {
    if map.is_empty() {
        return;
    }
    let name = |n: &mut String| {
        if let Some(new) = map.get(n.as_str()) {
            *n = new.clone();
        }
    };
    for s in stmts {
        match &mut s.kind {
            StmtKind::Block(b) => rename_stmts(&mut b.stmts, map),
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    match t {
                        LValue::Var { name: n } => name(n),
                        LValue::Index { array, indices, .. } => {
                            name(array);
                            indices.iter_mut().for_each(|i| rename_expr(i, map));
                        }
                    }
                }
                rename_expr(value, map);
            }
            StmtKind::If { cond, then, els } => {
                rename_expr(cond, map);
                rename_stmts(&mut then.stmts, map);
                if let Some(e) = els {
                    rename_stmts(&mut e.stmts, map);
                }
            }
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                vars.iter_mut().for_each(name);
                rename_expr(domain, map);
                rename_stmts(&mut body.stmts, map);
            }
            StmtKind::While { cond, body } => {
                rename_expr(cond, map);
                rename_stmts(&mut body.stmts, map);
            }
            StmtKind::Return { values } => values.iter_mut().for_each(|v| rename_expr(v, map)),
            StmtKind::Expr { expr } => rename_expr(expr, map),
            StmtKind::Alloc { var, dims } => {
                name(var);
                dims.iter_mut().for_each(|d| rename_expr(d, map));
            }
            StmtKind::Free { var } | StmtKind::RefIncr { var } | StmtKind::RefDecr { var } => {
                name(var)
            }
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

fn rename_expr(e: &mut Expr, map: &BTreeMap<String, String>) {
    match e {
        Expr::Var { name }
        | Expr::AtomicAdd { array: name, .. }
        | Expr::AtomicCas { array: name, .. } => {
            if let Some(new) = map.get(name.as_str()) {
                *name = new.clone();
            }
        }
        _ => {}
    }
    for c in sub_exprs_mut(e) {
        rename_expr(c, map);
    }
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let mut table = f.clone();
    table.body = Vec::new();
    let mut v = Versioner {
        m: cx.module,
        orig: f.clone(),
        table,
        live: LiveVars::compute(f),
        reach: DefiniteAssignment::compute(f),
        counters,
    };
    let body = v.stmts(std::mem::take(&mut f.body), 0);
    f.locals = v.table.locals;
    f.body = body;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::{parse_module, print_module};

    /// The function after the pass, and its counters.
    fn after(body: &str) -> (String, Counters) {
        let src = format!(
            "(module m :index-base 1 (function f ((x f64[1,col]) (y f64[1,col]) (n i64)) (f64[1,col])
               (locals (a f64[1,col]) (b f64[1,col]) (c f64[1,col]) (t f64[1,col]) (u f64[1,col]))
               {body}))"
        );
        let m = parse_module(&src).expect("parses");
        crate::vrir::verify::verify_module(&m).expect("verifies");
        let mut f = m.functions[0].clone();
        let mut counters = Counters::default();
        let opts = super::super::OptOptions::all();
        let cx = PassContext {
            module: &m,
            options: &opts,
        };
        run(&mut f, &cx, &mut counters).expect("runs");
        let mut out = m.clone();
        out.functions[0] = f;
        crate::vrir::verify::verify_module(&out).expect("still verifies");
        (print_module(&out), counters)
    }

    /// The front end's guards for `(op t u)` with t and u copies of A and B.
    fn guards(a: &str, b: &str) -> String {
        format!(
            "(set t {a}) (set u {b})
             (if (and (== (len t) 1) (!= (len u) 1)) (block (set t (fill f64[1,col] (index t 1) (len u)))))
             (if (and (== (len u) 1) (!= (len t) 1)) (block (set u (fill f64[1,col] (index u 1) (len t)))))
             (if (!= (len t) (len u)) (block (expr (cast i32 (neg 1.0)))))"
        )
    }

    #[test]
    fn guards_between_values_of_one_length_go_without_a_test() {
        // a has x's shape once `(* x 2.0)` ran; t and u are copies.
        let (text, c) = after(&format!(
            "(set a (* x 2.0)) {} (return (+ t u))",
            guards("a", "x")
        ));
        assert_eq!(c.get("guards_removed"), Some(&3), "{text}");
        assert!(!c.contains_key("runs_versioned"), "{text}");
        assert!(!text.contains("(len"), "{text}");
    }

    #[test]
    fn guards_between_parameters_go_under_one_test() {
        let (text, c) = after(&format!("{} (set c (* t u)) (return c)", guards("x", "y")));
        assert_eq!(c.get("runs_versioned"), Some(&1), "{text}");
        assert!(text.contains("(if (== (len x) (len y))"), "{text}");
        // The copy as written keeps its guards, under fresh names.
        assert!(text.contains("(len t_r1)"), "{text}");
    }

    #[test]
    fn the_test_goes_after_compound_statements_before_the_chain() {
        // a's length exists from its first statement; the `if` between a and the chain
        // runs once, before the test, not copied into both versions.
        let (text, c) = after(&format!(
            "(set a (index x (range 1 n))) (if (> n 2) (block (set b (* y 2.0)))) (set c (* y 3.0)) {} (set b (* t u)) (return b)",
            guards("a", "y")
        ));
        assert_eq!(c.get("runs_versioned"), Some(&1), "{text}");
        assert_eq!(text.matches("(if (> n 2)").count(), 1, "{text}");
        let test = text.find("(if (== (len a) (len y))").expect("versioned");
        assert!(text.find("(if (> n 2)").unwrap() < test, "{text}");
        // The plain statement just before the chain is inside both versions (c, dead
        // outside them, renamed in the copy as written).
        assert_eq!(text.matches(" (* y 3.0))").count(), 2, "{text}");
        assert!(test < text.find("(set c (* y 3.0))").unwrap(), "{text}");
    }

    #[test]
    fn a_length_that_no_longer_exists_where_the_test_would_go_is_not_tested() {
        // b's length is known only after a was reassigned: c has the shape of a's first
        // value, which the test (after b) could no longer read.
        let (text, c) = after(&format!(
            "(set a (index x (range 1 n))) (set c (* a 2.0)) (set a y) (set b (index y (range 1 n))) {} (return (+ t u))",
            guards("c", "b")
        ));
        assert!(!c.contains_key("runs_versioned"), "{text}");
        assert_eq!(c.get("guards_removed").copied().unwrap_or(0), 0, "{text}");
    }
}
