//! Bounds-check elimination: two passes that clear the `check` flag of array accesses
//! (`:nocheck`) where the access is known to be in bounds. The interpreter still checks
//! every access; compiled code skips the check.
//!
//! - `bce-redundant`: an element access `A[e...]` needs no check when the same access
//!   (same array variable, same subscripts as written, same `:neg`/`:flat`) was checked
//!   before on every path, and neither A nor any variable of the subscripts was assigned
//!   in between. A forward "available checks" analysis over the structured AST: facts
//!   from one branch of an `if` survive only if the other branch has them too, facts
//!   from the right side of `and`/`or` do not survive (it may not run), and a loop body
//!   starts without the facts about variables the loop assigns.
//! - `bce-version`: loop versioning. For a loop nest whose loop bounds are affine in the
//!   outer indices and in variables the nest never assigns (up to [`MAX_DEPTH`] levels,
//!   constant steps of either sign, inclusive stops), each element access whose
//!   subscripts are affine in the same way gets the minimum and maximum of each
//!   subscript over the nest, computed before the nest by substituting each loop's
//!   bounds from the innermost loop out. The nest becomes
//!   `(if TEST (block NEST-without-checks) (block NEST))`: TEST holds when every such
//!   subscript stays within its extent; otherwise the original nest runs and raises
//!   exactly the error the interpreter raises. TEST reads only variables that are
//!   certainly assigned before the nest (reaching definitions), never fails and has no
//!   effects.
//!
//! Arrays can change extents only by being reassigned (`set`, `alloc`, `free`,
//! `mset`); an access to an array the nest reassigns keeps its check. Integer
//! arithmetic wraps, so TEST first requires every variable and extent it reads to be
//! within +-2^31, and a nest is versioned only when its forms have at most
//! [`MAX_TERMS`] terms with coefficients up to [`MAX_COEFF`] and the substituted forms
//! a coefficient sum up to [`MAX_SUBSTITUTED`]: then neither TEST nor the nest's own
//! subscript arithmetic can wrap.

use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::analysis::affine::{self, Affine, AffineContext, Atom, VarRole};
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{assigned_vars, stmt_count};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{
    BinOp, Block, Expr, Function, IndexFlags, LValue, Literal, Module, Stmt, StmtKind,
};
use crate::vrir::types::{ScalarType, Type};
use crate::vrir::verify::expr_type;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

pub const REDUNDANT: Pass = Pass {
    name: "bce-redundant",
    summary: "drop a bounds check that an identical earlier check already made",
    run: redundant,
};

pub const VERSION: Pass = Pass {
    name: "bce-version",
    summary: "version affine loop nests: one test before the nest, then a check-free copy",
    run: version,
};

/// Loops of one nest whose indices versioning follows.
pub const MAX_DEPTH: usize = 5;
/// Terms an affine subscript or bound may have.
pub const MAX_TERMS: usize = 8;
/// Largest coefficient magnitude in a subscript or bound as written.
pub const MAX_COEFF: i64 = 1 << 8;
/// Largest constant in any form.
pub const MAX_CONST: i64 = 1 << 40;
/// Largest coefficient sum of a form after the loop bounds are substituted in.
pub const MAX_SUBSTITUTED: i64 = 1 << 16;
/// Every variable and extent TEST reads must lie within +-this.
pub const ATOM_LIMIT: i64 = 1 << 31;

// ---------------------------------------------------------------- shared helpers

/// The element type and rank of array variable `name`, if it is one.
fn array_rank(f: &Function, name: &str) -> Option<u32> {
    match f.var_type(name) {
        Some(Type::Array(a)) => Some(a.ndims),
        _ => None,
    }
}

/// Whether `(index A indices)` with these flags reads or writes one element: one
/// scalar integer subscript per dimension (or fewer with `:flat`).
fn is_element_access(
    m: &Module,
    f: &Function,
    array: &str,
    indices: &[Expr],
    flags: &IndexFlags,
) -> bool {
    let Some(rank) = array_rank(f, array) else {
        return false;
    };
    let count_ok = indices.len() == rank as usize
        || (flags.flatten && !indices.is_empty() && indices.len() < rank as usize);
    count_ok
        && indices
            .iter()
            .all(|i| matches!(expr_type(m, f, i), Ok(Type::Scalar { elem }) if elem.is_int()))
}

/// Checked accesses in `stmts`: (all, those whose nearest enclosing loop has no loop
/// inside it).
pub fn count_checks(stmts: &[Stmt]) -> (u64, u64) {
    fn has_loop(stmts: &[Stmt]) -> bool {
        crate::analysis::preorder(stmts).iter().any(|s| {
            matches!(
                s.kind,
                StmtKind::For { .. } | StmtKind::Parfor { .. } | StmtKind::While { .. }
            )
        })
    }
    fn in_expr(e: &Expr, inner: bool, n: &mut (u64, u64)) {
        if let Expr::Index { flags, .. } = e {
            if flags.check {
                n.0 += 1;
                n.1 += inner as u64;
            }
        }
        for c in crate::analysis::sub_exprs(e) {
            in_expr(c, inner, n);
        }
    }
    fn walk(stmts: &[Stmt], inner: bool, n: &mut (u64, u64)) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { targets, value } => {
                    in_expr(value, inner, n);
                    for t in targets {
                        if let LValue::Index { indices, flags, .. } = t {
                            indices.iter().for_each(|i| in_expr(i, inner, n));
                            if flags.check {
                                n.0 += 1;
                                n.1 += inner as u64;
                            }
                        }
                    }
                }
                StmtKind::If { cond, then, els } => {
                    in_expr(cond, inner, n);
                    walk(&then.stmts, inner, n);
                    if let Some(e) = els {
                        walk(&e.stmts, inner, n);
                    }
                }
                StmtKind::For {
                    domain: c, body, ..
                }
                | StmtKind::Parfor {
                    domain: c, body, ..
                }
                | StmtKind::While { cond: c, body } => {
                    in_expr(c, inner, n);
                    walk(&body.stmts, !has_loop(&body.stmts), n);
                }
                StmtKind::Block(b) => walk(&b.stmts, inner, n),
                StmtKind::Return { values } => values.iter().for_each(|v| in_expr(v, inner, n)),
                StmtKind::Expr { expr } => in_expr(expr, inner, n),
                StmtKind::Alloc { dims, .. } => dims.iter().for_each(|d| in_expr(d, inner, n)),
                _ => {}
            }
        }
    }
    let mut n = (0, 0);
    walk(stmts, false, &mut n);
    n
}

// ---------------------------------------------------------------- bce-redundant

/// Available checks: a key naming the access -> the variables it mentions.
type Avail = BTreeMap<String, BTreeSet<String>>;

fn kill(avail: &mut Avail, var: &str) {
    avail.retain(|_, vars| !vars.contains(var));
}

fn intersect(a: Avail, b: &Avail) -> Avail {
    a.into_iter().filter(|(k, _)| b.contains_key(k)).collect()
}

/// Whether a subscript is a pure function of variables: evaluating it twice with the
/// same variables gives the same value (no calls, no array reads).
fn is_pure_subscript(e: &Expr) -> bool {
    match e {
        Expr::Const { .. } | Expr::Var { .. } => true,
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => is_pure_subscript(arg),
        Expr::Binary { lhs, rhs, .. } => is_pure_subscript(lhs) && is_pure_subscript(rhs),
        Expr::Dim { arg, .. } => matches!(**arg, Expr::Var { .. }),
        _ => false,
    }
}

struct Redundant<'a> {
    m: &'a Module,
    /// The function as it was before the pass (types only).
    f: &'a Function,
    removed: u64,
}

impl Redundant<'_> {
    /// The key of an access whose check can be shared, with the variables it reads.
    fn key(
        &self,
        array: &str,
        indices: &[Expr],
        flags: &IndexFlags,
    ) -> Option<(String, BTreeSet<String>)> {
        if !indices.iter().all(is_pure_subscript)
            || !is_element_access(self.m, self.f, array, indices, flags)
        {
            return None;
        }
        let mut vars = BTreeSet::from([array.to_string()]);
        indices
            .iter()
            .for_each(|i| crate::analysis::expr_vars(i, &mut vars));
        let norm = Expr::Index {
            array: Box::new(Expr::var(array)),
            indices: indices.to_vec(),
            flags: IndexFlags {
                check: true,
                view: false,
                ..*flags
            },
        };
        Some((crate::vrir::text::print_expr(&norm), vars))
    }

    /// After the subscripts of an access were evaluated: drop its check if available,
    /// else record it.
    fn access(&mut self, array: &str, indices: &[Expr], flags: &mut IndexFlags, avail: &mut Avail) {
        if !flags.check {
            return;
        }
        if let Some((key, vars)) = self.key(array, indices, flags) {
            match avail.entry(key) {
                std::collections::btree_map::Entry::Occupied(_) => {
                    flags.check = false;
                    self.removed += 1;
                }
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(vars);
                }
            }
        }
    }

    fn expr(&mut self, e: &mut Expr, avail: &mut Avail) {
        match e {
            Expr::Binary {
                op: BinOp::And | BinOp::Or,
                lhs,
                rhs,
            } => {
                self.expr(lhs, avail);
                // The right side may not run: what it checks is not available after.
                let mut inner = avail.clone();
                self.expr(rhs, &mut inner);
            }
            Expr::Index {
                array,
                indices,
                flags,
            } => {
                self.expr(array, avail);
                for i in indices.iter_mut() {
                    self.expr(i, avail);
                }
                if let Expr::Var { name } = &**array {
                    let name = name.clone();
                    self.access(&name, indices, flags, avail);
                }
            }
            _ => {
                for c in sub_exprs_mut(e) {
                    self.expr(c, avail);
                }
            }
        }
    }

    /// Returns what is available after the statements, or None when control never
    /// falls through their end.
    fn stmts(&mut self, stmts: &mut [Stmt], mut avail: Avail) -> Option<Avail> {
        for s in stmts {
            avail = self.stmt(s, avail)?;
        }
        Some(avail)
    }

    fn stmt(&mut self, s: &mut Stmt, mut avail: Avail) -> Option<Avail> {
        // A loop body starts without the facts about what the loop assigns.
        let loop_assigned = match s.kind {
            StmtKind::For { .. } | StmtKind::Parfor { .. } | StmtKind::While { .. } => {
                assigned_vars(std::slice::from_ref(s))
            }
            _ => BTreeSet::new(),
        };
        match &mut s.kind {
            StmtKind::Assign { targets, value } => {
                self.expr(value, &mut avail);
                for t in targets.iter_mut() {
                    match t {
                        LValue::Index {
                            array,
                            indices,
                            flags,
                        } => {
                            for i in indices.iter_mut() {
                                self.expr(i, &mut avail);
                            }
                            let array = array.clone();
                            self.access(&array, indices, flags, &mut avail);
                        }
                        LValue::Var { name } => kill(&mut avail, name),
                    }
                }
                Some(avail)
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond, &mut avail);
                let t = self.stmts(&mut then.stmts, avail.clone());
                let e = match els {
                    Some(b) => self.stmts(&mut b.stmts, avail),
                    None => Some(avail),
                };
                match (t, e) {
                    (Some(t), Some(e)) => Some(intersect(t, &e)),
                    (Some(x), None) | (None, Some(x)) => Some(x),
                    (None, None) => None,
                }
            }
            StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                self.expr(domain, &mut avail);
                for v in &loop_assigned {
                    kill(&mut avail, v);
                }
                let _ = self.stmts(&mut body.stmts, avail.clone());
                Some(avail)
            }
            StmtKind::While { cond, body } => {
                for v in &loop_assigned {
                    kill(&mut avail, v);
                }
                // The condition runs before every iteration, so its checks hold in the
                // body; after the loop only what held before it (a break skips it).
                let mut in_body = avail.clone();
                self.expr(cond, &mut in_body);
                let _ = self.stmts(&mut body.stmts, in_body);
                Some(avail)
            }
            StmtKind::Block(b) => self.stmts(&mut b.stmts, avail),
            StmtKind::Return { values } => {
                for v in values.iter_mut() {
                    self.expr(v, &mut avail);
                }
                None
            }
            StmtKind::Break | StmtKind::Continue => None,
            StmtKind::Expr { expr } => {
                self.expr(expr, &mut avail);
                Some(avail)
            }
            StmtKind::Alloc { var, dims } => {
                for d in dims.iter_mut() {
                    self.expr(d, &mut avail);
                }
                let var = var.clone();
                kill(&mut avail, &var);
                Some(avail)
            }
            StmtKind::Free { var } => {
                let var = var.clone();
                kill(&mut avail, &var);
                Some(avail)
            }
            StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => Some(avail),
        }
    }
}

fn redundant(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let before = f.clone();
    let (_, inner_before) = count_checks(&f.body);
    let mut r = Redundant {
        m: cx.module,
        f: &before,
        removed: 0,
    };
    let _ = r.stmts(&mut f.body, Avail::new());
    let (_, inner_after) = count_checks(&f.body);
    *counters.entry("checks_removed").or_default() += r.removed;
    *counters.entry("inner_checks_removed").or_default() += inner_before - inner_after;
    Ok(())
}

// ---------------------------------------------------------------- bce-version

/// One loop index of the nest and the affine range its values stay in.
#[derive(Clone, Debug)]
struct LoopIndex {
    var: String,
    lo: Affine,
    hi: Affine,
}

/// A variable's only assignment in the nest, seen from the statements after it in the
/// same loop body.
#[derive(Clone, Debug)]
struct Definition {
    form: Affine,
    /// Least and greatest values that must lie within `i32` for `form` to be the
    /// variable's value (its narrowing casts), over the loops enclosing the assignment.
    within_i32: Vec<(Affine, Affine)>,
}

/// How names look from inside one nest.
struct NestCx<'a> {
    f: &'a Function,
    /// Every variable the nest may assign (loop variables included).
    assigned: &'a BTreeSet<String>,
    /// The analyzable loops enclosing the point being looked at, outermost first.
    env: &'a [LoopIndex],
    /// Definitions that reach the point being looked at.
    defs: &'a BTreeMap<String, Definition>,
    /// Where the ranges that TEST must keep within `i32` are collected.
    within_i32: &'a RefCell<Vec<(Affine, Affine)>>,
}

impl AffineContext for NestCx<'_> {
    fn role(&self, var: &str) -> VarRole {
        if self.env.iter().any(|l| l.var == var) {
            VarRole::Index
        } else if !self.assigned.contains(var)
            && matches!(
                self.f.var_type(var),
                Some(Type::Scalar {
                    elem: ScalarType::I64
                })
            )
        {
            VarRole::Invariant
        } else {
            VarRole::Other
        }
    }
    fn dims_invariant(&self, array: &str) -> bool {
        !self.assigned.contains(array) && array_rank(self.f, array).is_some()
    }
    fn definition(&self, var: &str) -> Option<Affine> {
        let d = self.defs.get(var)?;
        self.within_i32
            .borrow_mut()
            .extend(d.within_i32.iter().cloned());
        Some(d.form.clone())
    }
    fn is_i32(&self, var: &str) -> bool {
        matches!(
            self.f.var_type(var),
            Some(Type::Scalar {
                elem: ScalarType::I32
            })
        )
    }
    fn require_within_i32(&self, form: &Affine) -> bool {
        let (Some(lo), Some(hi)) = (
            extreme(form, self.env, false),
            extreme(form, self.env, true),
        ) else {
            return false;
        };
        self.within_i32.borrow_mut().push((lo, hi));
        true
    }
}

/// A form small enough that evaluating it cannot wrap (see the module comment).
fn small(a: &Affine) -> bool {
    a.terms.len() <= MAX_TERMS
        && a.constant.unsigned_abs() <= MAX_CONST as u64
        && a.terms
            .values()
            .all(|c| c.unsigned_abs() <= MAX_COEFF as u64)
}

/// The least (or greatest) value of `form` over the loops of `env`: substitute each
/// loop index by its lower or upper bound, innermost first, by the sign of its
/// coefficient. The result reads no loop index.
fn extreme(form: &Affine, env: &[LoopIndex], max: bool) -> Option<Affine> {
    let mut g = form.clone();
    for l in env.iter().rev() {
        let atom = Atom::Var(l.var.clone());
        let c = g.coeff(&atom);
        if c != 0 {
            let by = if (c > 0) == max { &l.hi } else { &l.lo };
            g = g.substitute(&atom, by)?;
        }
    }
    (g.coeff_magnitude()? <= MAX_SUBSTITUTED && g.constant.unsigned_abs() <= MAX_CONST as u64)
        .then_some(g)
}

/// An upper end's array, the dimensions its extent spans, and its terms.
type UpperKey = (String, Vec<u32>, BTreeMap<Atom, i64>);

/// One access of the nest made check-free, with what TEST must establish for it.
struct Guarded {
    array: String,
    /// Per dimension: the least and greatest subscript over the nest.
    ranges: Vec<(Affine, Affine)>,
    flat: bool,
}

struct Versioner<'a> {
    m: &'a Module,
    f: &'a Function,
    reach: DefiniteAssignment,
    index_base: i64,
    versioned: u64,
    removed: u64,
    inner_removed: u64,
}

/// Collects the accesses of one nest, clearing their checks in the copy it walks.
struct NestWalk<'a, 'v> {
    v: &'a Versioner<'v>,
    assigned: BTreeSet<String>,
    guarded: Vec<Guarded>,
    /// Preorder number of the nest's outermost loop (where TEST runs).
    root: usize,
    /// Set when some loop bound could not be computed safely: give the nest up.
    failed: bool,
    /// Integer variables the nest assigns exactly once.
    assigned_once: BTreeSet<String>,
    /// Definitions that reach the statement being walked.
    defs: BTreeMap<String, Definition>,
    /// Ranges TEST must keep within `i32` (narrowing casts read as their argument).
    within_i32: RefCell<Vec<(Affine, Affine)>>,
    /// Invariant step expressions TEST must find equal to 1.
    unit_steps: Vec<Expr>,
}

impl NestWalk<'_, '_> {
    fn cx<'e>(&'e self, env: &'e [LoopIndex]) -> NestCx<'e> {
        NestCx {
            f: self.v.f,
            assigned: &self.assigned,
            env,
            defs: &self.defs,
            within_i32: &self.within_i32,
        }
    }

    fn access(&mut self, array: &str, indices: &[Expr], flags: &mut IndexFlags, env: &[LoopIndex]) {
        if !flags.check || !is_element_access(self.v.m, self.v.f, array, indices, flags) {
            return;
        }
        let cx = self.cx(env);
        if !cx.dims_invariant(array) {
            return;
        }
        let mut ranges = Vec::new();
        for i in indices {
            let Some(form) = affine::int_value(i, &cx).filter(small) else {
                return;
            };
            let (Some(lo), Some(hi)) = (extreme(&form, env, false), extreme(&form, env, true))
            else {
                return;
            };
            ranges.push((lo, hi));
        }
        // TEST may read only what is certainly assigned before the nest; and an access
        // whose least subscript is a constant below the base would make it always fail
        // (a `:neg` read of a[i-1] from i = 0): such accesses keep their checks.
        let reach = &self.v.reach;
        let readable = reach.certainly_assigned(self.root, array)
            && ranges.iter().all(|(lo, hi)| {
                lo.terms.keys().chain(hi.terms.keys()).all(|a| match a {
                    Atom::Var(v) | Atom::Dim(v, _) => reach.certainly_assigned(self.root, v),
                })
            });
        let hopeless = ranges
            .iter()
            .any(|(lo, _)| lo.terms.is_empty() && lo.constant < self.v.index_base);
        if !readable || hopeless {
            return;
        }
        flags.check = false;
        self.guarded.push(Guarded {
            array: array.to_string(),
            ranges,
            flat: flags.flatten,
        });
    }

    fn expr(&mut self, e: &mut Expr, env: &[LoopIndex]) {
        for c in sub_exprs_mut(e) {
            self.expr(c, env);
        }
        if let Expr::Index {
            array,
            indices,
            flags,
        } = e
        {
            if let Expr::Var { name } = &**array {
                let name = name.clone();
                self.access(&name, indices, flags, env);
            }
        }
    }

    /// The index ranges of a loop, when its domain is a range (or a domain of ranges)
    /// with constant steps and affine bounds, and its body never assigns its variables.
    fn loop_indices(
        &self,
        vars: &[String],
        domain: &Expr,
        body: &Block,
        env: &[LoopIndex],
    ) -> Option<(Vec<LoopIndex>, Vec<Expr>)> {
        let mut unit_steps = Vec::new();
        if env.len() + vars.len() > MAX_DEPTH {
            return None;
        }
        let ranges: Vec<&Expr> = match domain {
            Expr::Range { .. } => vec![domain],
            Expr::Domain { ranges } => ranges.iter().collect(),
            _ => return None,
        };
        let body_assigned = assigned_vars(&body.stmts);
        let distinct: BTreeSet<&String> = vars.iter().collect();
        if ranges.len() != vars.len() || distinct.len() != vars.len() {
            return None;
        }
        let cx = self.cx(env);
        let mut out = Vec::new();
        for (var, r) in vars.iter().zip(ranges) {
            if body_assigned.contains(var)
                || !matches!(
                    self.v.f.var_type(var),
                    Some(Type::Scalar {
                        elem: ScalarType::I64
                    })
                )
            {
                return None;
            }
            let Expr::Range {
                start: Some(start),
                stop: Some(stop),
                step,
            } = r
            else {
                return None;
            };
            let step = match step.as_deref() {
                None => 1,
                Some(Expr::Const {
                    value: Literal::I64(k),
                }) => *k,
                Some(Expr::Const {
                    value: Literal::I32(k),
                }) => *k as i64,
                // R's `a:b` steps by (a <= b) * 2 - 1: when that is the same throughout
                // the nest, TEST may require it to be 1 and the copy assume so.
                Some(e) if self.invariant_step(e) => {
                    unit_steps.push(e.clone());
                    1
                }
                Some(_) => return None,
            };
            let (lo, hi) = match step {
                0 => return None,
                s if s > 0 => (
                    affine::lower_bound(start, &cx)?,
                    affine::upper_bound(stop, &cx)?,
                ),
                _ => (
                    affine::lower_bound(stop, &cx)?,
                    affine::upper_bound(start, &cx)?,
                ),
            };
            if !small(&lo) || !small(&hi) {
                return None;
            }
            out.push(LoopIndex {
                var: var.clone(),
                lo,
                hi,
            });
        }
        // The indices' own extremes must be small too, so their values cannot wrap.
        for l in &out {
            extreme(&l.lo, env, false)?;
            extreme(&l.hi, env, true)?;
        }
        Some((out, unit_steps))
    }

    /// Whether a step expression is `i64`, cannot fail, has no effects and reads only
    /// variables the nest never assigns that are certainly assigned before it: then
    /// TEST can evaluate it, and it has that value wherever the nest evaluates it.
    fn invariant_step(&self, e: &Expr) -> bool {
        fn pure(w: &NestWalk, e: &Expr) -> bool {
            match e {
                Expr::Const { .. } => true,
                Expr::Var { name } => {
                    !w.assigned.contains(name)
                        && w.v.reach.certainly_assigned(w.root, name)
                        && matches!(w.v.f.var_type(name), Some(Type::Scalar { .. }))
                }
                Expr::Unary { arg, .. } => pure(w, arg),
                Expr::Cast { arg, .. } => {
                    matches!(
                        expr_type(w.v.m, w.v.f, arg),
                        Ok(Type::Scalar {
                            elem: ScalarType::Bool | ScalarType::I32 | ScalarType::I64
                        })
                    ) && pure(w, arg)
                }
                Expr::Binary { op, lhs, rhs } => {
                    !matches!(op, BinOp::Div | BinOp::IDiv | BinOp::Mod)
                        && pure(w, lhs)
                        && pure(w, rhs)
                }
                _ => false,
            }
        }
        matches!(
            expr_type(self.v.m, self.v.f, e),
            Ok(Type::Scalar {
                elem: ScalarType::I64
            })
        ) && pure(self, e)
    }

    /// Record the definition made by `s` (a statement directly in a loop body) when it
    /// assigns an integer variable that the nest assigns nowhere else and its value
    /// has a form here. Statements after `s` in the same body see it: `s` ran in this
    /// iteration, nothing else assigns the variable, and the form reads only indices
    /// of loops enclosing `s` and variables the nest never assigns.
    fn define(&mut self, s: &Stmt, env: &[LoopIndex]) {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return;
        };
        let [LValue::Var { name }] = targets.as_slice() else {
            return;
        };
        if !self.assigned_once.contains(name) {
            return;
        }
        let wide = match self.v.f.var_type(name) {
            Some(Type::Scalar {
                elem: ScalarType::I64,
            }) => true,
            Some(Type::Scalar {
                elem: ScalarType::I32,
            }) => false,
            _ => return,
        };
        let collected = RefCell::new(Vec::new());
        let form = {
            let cx = NestCx {
                f: self.v.f,
                assigned: &self.assigned,
                env,
                defs: &self.defs,
                within_i32: &collected,
            };
            if wide {
                affine::exact(value, &cx)
            } else {
                affine::int_value(value, &cx)
            }
        };
        if let Some(form) = form.filter(small) {
            self.defs.insert(
                name.clone(),
                Definition {
                    form,
                    within_i32: collected.into_inner(),
                },
            );
        }
    }

    fn block(&mut self, b: &mut Block, env: &mut Vec<LoopIndex>) {
        for s in &mut b.stmts {
            self.stmt(s, env);
        }
    }

    fn stmt(&mut self, s: &mut Stmt, env: &mut Vec<LoopIndex>) {
        match &mut s.kind {
            StmtKind::Assign { targets, value } => {
                self.expr(value, env);
                for t in targets.iter_mut() {
                    if let LValue::Index {
                        array,
                        indices,
                        flags,
                    } = t
                    {
                        for i in indices.iter_mut() {
                            self.expr(i, env);
                        }
                        let array = array.clone();
                        self.access(&array, indices, flags, env);
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond, env);
                self.block(then, env);
                if let Some(e) = els {
                    self.block(e, env);
                }
            }
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                self.expr(domain, env);
                let depth = env.len();
                if let Some((indices, steps)) = self.loop_indices(vars, domain, body, env) {
                    env.extend(indices);
                    self.unit_steps.extend(steps);
                }
                // Definitions made in the body are seen by what follows them in it.
                let outer = self.defs.clone();
                for s in &mut body.stmts {
                    self.stmt(s, env);
                    self.define(s, env);
                }
                self.defs = outer;
                env.truncate(depth);
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, env);
                self.block(body, env);
            }
            StmtKind::Block(b) => self.block(b, env),
            StmtKind::Return { values } => values.iter_mut().for_each(|v| self.expr(v, env)),
            StmtKind::Expr { expr } => self.expr(expr, env),
            StmtKind::Alloc { dims, .. } => dims.iter_mut().for_each(|d| self.expr(d, env)),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Free { .. }
            | StmtKind::RefIncr { .. }
            | StmtKind::RefDecr { .. } => {}
        }
    }
}

fn and(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::And, a, b)
}

impl Versioner<'_> {
    /// TEST for the guarded accesses of a nest at statement `id`, or None when it
    /// would read a variable that may be unassigned there.
    fn test(
        &self,
        id: usize,
        guarded: &[Guarded],
        within_i32: &[(Affine, Affine)],
        unit_steps: &[Expr],
    ) -> Option<Expr> {
        let mut atoms: BTreeSet<Atom> = BTreeSet::new();
        let base = self.index_base;
        // Forms with the same terms differ only by their constant: the least lower end
        // and the greatest upper end (per array extent) decide, so keep just those.
        let mut lowers: BTreeMap<BTreeMap<Atom, i64>, i64> = BTreeMap::new();
        let mut uppers: BTreeMap<UpperKey, i64> = BTreeMap::new();
        for g in guarded {
            let rank = array_rank(self.f, &g.array)? as usize;
            for (d, (lo, hi)) in g.ranges.iter().enumerate() {
                atoms.extend(lo.terms.keys().cloned());
                atoms.extend(hi.terms.keys().cloned());
                // Extent of this subscript: one dimension, or the trailing ones
                // flattened for the last subscript of a :flat access.
                let dims: Vec<u32> = if g.flat && d + 1 == g.ranges.len() {
                    (d as u32..rank as u32).collect()
                } else {
                    vec![d as u32]
                };
                let low = lowers.entry(lo.terms.clone()).or_insert(lo.constant);
                *low = (*low).min(lo.constant);
                let high = uppers
                    .entry((g.array.clone(), dims, hi.terms.clone()))
                    .or_insert(hi.constant);
                *high = (*high).max(hi.constant);
            }
        }
        // position = subscript - base: need 0 <= lo - base and hi - base < extent.
        let mut conds: Vec<Expr> = Vec::new();
        for (terms, constant) in lowers {
            if terms.is_empty() {
                // A constant lower end is known now; below the base TEST would always
                // fail, so the nest is not worth a copy.
                if constant < base {
                    return None;
                }
                continue;
            }
            let lo = Affine { constant, terms };
            conds.push(Expr::binary(BinOp::Ge, lo.to_expr(), Expr::i64(base)));
        }
        for ((array, dims, terms), constant) in uppers {
            let top = Affine {
                constant: constant.checked_sub(base)?,
                terms,
            };
            let extent = dims
                .into_iter()
                .map(|k| Expr::Dim {
                    arg: Box::new(Expr::var(array.clone())),
                    axis: k,
                })
                .reduce(|a, b| Expr::binary(BinOp::Mul, a, b))?;
            conds.push(Expr::binary(BinOp::Lt, top.to_expr(), extent));
        }
        // Narrowing casts read as their argument: that argument must fit in i32.
        for (lo, hi) in within_i32 {
            for (form, min) in [(lo, true), (hi, false)] {
                let limit = if min {
                    i32::MIN as i64
                } else {
                    i32::MAX as i64
                };
                if form.terms.is_empty() {
                    if (min && form.constant < limit) || (!min && form.constant > limit) {
                        return None;
                    }
                    continue;
                }
                atoms.extend(form.terms.keys().cloned());
                let op = if min { BinOp::Ge } else { BinOp::Le };
                conds.push(Expr::binary(op, form.to_expr(), Expr::i64(limit)));
            }
        }
        for step in unit_steps {
            conds.push(Expr::binary(BinOp::Eq, step.clone(), Expr::i64(1)));
        }
        // Extents are compared as they are (no arithmetic on them needs a guard), but
        // reading them needs the array assigned.
        if !guarded
            .iter()
            .all(|g| self.reach.certainly_assigned(id, &g.array))
        {
            return None;
        }
        let mut guards = Vec::new();
        for a in &atoms {
            let (name, e) = match a {
                Atom::Var(v) => (v, Expr::var(v.clone())),
                Atom::Dim(arr, k) => (
                    arr,
                    Expr::Dim {
                        arg: Box::new(Expr::var(arr.clone())),
                        axis: *k,
                    },
                ),
            };
            if !self.reach.certainly_assigned(id, name) {
                return None;
            }
            if matches!(a, Atom::Var(_)) {
                guards.push(Expr::binary(BinOp::Ge, e.clone(), Expr::i64(-ATOM_LIMIT)));
            }
            guards.push(Expr::binary(BinOp::Le, e, Expr::i64(ATOM_LIMIT)));
        }
        let mut seen = BTreeSet::new();
        let all: Vec<Expr> = guards
            .into_iter()
            .chain(conds)
            .filter(|c| seen.insert(crate::vrir::text::print_expr(c)))
            .collect();
        all.into_iter().reduce(and)
    }

    /// Version the loop `s` (preorder number `id`) if it has accesses to guard.
    fn try_version(&mut self, s: &mut Stmt, id: usize) -> bool {
        let mut fast = s.clone();
        let assigned = assigned_vars(std::slice::from_ref(s));
        let nest = crate::analysis::preorder(std::slice::from_ref(s));
        let assigned_once = assigned
            .iter()
            .filter(|x| {
                nest.iter()
                    .map(|t| crate::analysis::assignments_of(t, x))
                    .sum::<usize>()
                    == 1
            })
            .cloned()
            .collect();
        let mut walk = NestWalk {
            v: self,
            assigned,
            guarded: Vec::new(),
            root: id,
            failed: false,
            assigned_once,
            defs: BTreeMap::new(),
            within_i32: RefCell::new(Vec::new()),
            unit_steps: Vec::new(),
        };
        walk.stmt(&mut fast, &mut Vec::new());
        if walk.failed || walk.guarded.is_empty() {
            return false;
        }
        let guarded = std::mem::take(&mut walk.guarded);
        let within_i32 = walk.within_i32.take();
        let unit_steps = std::mem::take(&mut walk.unit_steps);
        let Some(test) = self.test(id, &guarded, &within_i32, &unit_steps) else {
            return false;
        };
        // TEST finds those steps equal to 1: the fast copy steps by 1 outright, so that
        // LLVM sees a unit-stride loop (a trip count without division, vectorization).
        unit_step_loops(std::slice::from_mut(&mut fast), &unit_steps);
        let (_, inner_before) = count_checks(std::slice::from_ref(s));
        let (_, inner_after) = count_checks(std::slice::from_ref(&fast));
        self.versioned += 1;
        self.removed += guarded.len() as u64;
        self.inner_removed += inner_before - inner_after;
        let line = s.line;
        let checked = std::mem::replace(s, Stmt::new(StmtKind::Break));
        *s = Stmt {
            kind: StmtKind::If {
                cond: test,
                then: Block {
                    on_gpu: false,
                    stmts: vec![fast],
                },
                els: Some(Block {
                    on_gpu: false,
                    stmts: vec![checked],
                }),
            },
            line,
        };
        true
    }

    /// Version every outermost nest with something to guard in `stmts` (first one
    /// numbered `first`); look inside loops that had nothing.
    fn stmts(&mut self, stmts: &mut [Stmt], first: usize) {
        let mut id = first;
        for s in stmts {
            let n = stmt_count(s);
            let is_loop = matches!(s.kind, StmtKind::For { .. } | StmtKind::Parfor { .. });
            if !(is_loop && self.try_version(s, id)) {
                match &mut s.kind {
                    StmtKind::Block(b) => self.stmts(&mut b.stmts, id + 1),
                    StmtKind::If { then, els, .. } => {
                        let else_first = id + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                        self.stmts(&mut then.stmts, id + 1);
                        if let Some(e) = els {
                            self.stmts(&mut e.stmts, else_first);
                        }
                    }
                    StmtKind::For { body, .. }
                    | StmtKind::Parfor { body, .. }
                    | StmtKind::While { body, .. } => self.stmts(&mut body.stmts, id + 1),
                    _ => {}
                }
            }
            id += n;
        }
    }
}

/// Loops of `stmts` whose step is one of `unit_steps` step by 1 (no step expression).
fn unit_step_loops(stmts: &mut [Stmt], unit_steps: &[Expr]) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                if let Expr::Range { step, .. } = domain {
                    if step.as_deref().is_some_and(|e| unit_steps.contains(e)) {
                        *step = None;
                    }
                }
                unit_step_loops(&mut body.stmts, unit_steps);
            }
            StmtKind::While { body, .. } => unit_step_loops(&mut body.stmts, unit_steps),
            StmtKind::Block(b) => unit_step_loops(&mut b.stmts, unit_steps),
            StmtKind::If { then, els, .. } => {
                unit_step_loops(&mut then.stmts, unit_steps);
                if let Some(e) = els {
                    unit_step_loops(&mut e.stmts, unit_steps);
                }
            }
            _ => {}
        }
    }
}

fn version(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let before = f.clone();
    let mut v = Versioner {
        m: cx.module,
        f: &before,
        reach: DefiniteAssignment::compute(&before),
        index_base: cx.module.index_base as i64,
        versioned: 0,
        removed: 0,
        inner_removed: 0,
    };
    v.stmts(&mut f.body, 0);
    *counters.entry("loops_versioned").or_default() += v.versioned;
    *counters.entry("checks_removed").or_default() += v.removed;
    *counters.entry("inner_checks_removed").or_default() += v.inner_removed;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::{optimize, OptOptions};
    use crate::vrir::text::parse_module;

    fn versioned(src: &str) -> u64 {
        let m = parse_module(src).unwrap();
        crate::vrir::verify::verify_module(&m).unwrap();
        let (_, stats) = optimize(&m, &OptOptions::parse("none,+bce-version").unwrap()).unwrap();
        stats.total("bce-version", "loops_versioned")
    }

    #[test]
    fn inner_loop_checks_are_those_of_loops_without_loops() {
        let m = parse_module(
            "(module m :index-base 0 (function f ((a f64[1,row]) (n i64)) () (locals (i i64) (j i64))
               (set (index a 0) 1.0)
               (for (i) (range 0 n) (block
                 (set (index a i) 2.0)
                 (for (j) (range 0 n) (block (set (index a j) (index a i))))))))",
        )
        .unwrap();
        assert_eq!(count_checks(&m.functions[0].body), (4, 2));
    }

    #[test]
    fn large_coefficients_and_non_affine_subscripts_are_not_versioned() {
        let nest = |subscript: &str| {
            format!(
                "(module m :index-base 0 (function f ((a f64[1,row]) (n i64)) (f64) (locals (i i64) (s f64))
                   (set s 0.0)
                   (for (i) (range 0 n) (block (set s (+ s (index a {subscript})))))
                   (return s)))"
            )
        };
        assert_eq!(versioned(&nest("(* 256 i)")), 1);
        assert_eq!(
            versioned(&nest("(* 257 i)")),
            0,
            "beyond MAX_COEFF the test could wrap"
        );
        assert_eq!(versioned(&nest("(* i i)")), 0);
        assert_eq!(versioned(&nest("(index (copy (cast i64[1,row] a)) 0)")), 0);
    }

    #[test]
    fn loops_deeper_than_the_limit_keep_their_checks() {
        let vars = ["i1", "i2", "i3", "i4", "i5", "i6"];
        let mut body = format!("(set s (+ s (index a {})))", vars.join(" "));
        for v in vars.iter().rev() {
            body = format!("(for ({v}) (range 0 1) (block {body}))");
        }
        let locals: String = vars.iter().map(|v| format!("({v} i64) ")).collect();
        let src = format!(
            "(module m :index-base 0 (function f ((a f64[6,row])) (f64) (locals {locals}(s f64))
               (set s 0.0) {body} (return s)))"
        );
        // Six levels: the sixth index is not followed, so the access is not guarded
        // from the outermost loop; from the second loop down it is (five levels).
        let m = parse_module(&src).unwrap();
        let (out, stats) = optimize(&m, &OptOptions::parse("none,+bce-version").unwrap()).unwrap();
        assert_eq!(stats.total("bce-version", "loops_versioned"), 1);
        let text = crate::vrir::text::print_module(&out);
        assert!(
            text.contains("(for (i1) (range 0 1)\n      (block\n        (if"),
            "{text}"
        );
    }
}
