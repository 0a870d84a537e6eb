//! `slice-views`: slices of arrays that nothing writes are read in place instead of
//! copied.
//!
//! Why: R's vector style works on shifted slices (`x[2:(n - 1)] - x[1:(n - 2)]`,
//! `a[i, ] * b[, j]`). A slice is a copy in VRIR (`(index x (range ...))`), so each one
//! writes and reads a whole array before any arithmetic happens, and `fusion`, which
//! fuses trees of array variables, sees only the copies. As a view
//! (`(index x (range ...) :view)`, sharing x's storage) the slice costs nothing, and a
//! fused loop reads the source's elements directly.
//!
//! What it does: `(set V (index X i...))`, a copying slice (scalar and range indices
//! only, no `:flat`/`:neg`) of an array variable X into a local V, becomes a view, and V's
//! declared type becomes `strided` (a view's layout; a `strided` variable may hold an
//! array of any layout, so V's other assignments stay valid). So do the locals that
//! receive V by plain copies (`(set W V)`, R's recycling copies), transitively. Where the
//! layout of an expression would follow V's (V the first array operand of an element-wise
//! operation, an argument of a call or library function, a returned value, a reduction
//! of two or more dimensions, an assignment to a variable that is not retyped), V is read
//! as `(cast T V)` with T its former type: a copy in T's layout, the same elements, so
//! every expression keeps its type. Element reads, `dim`, `len`, a cast's operand and the
//! other operands of an element-wise operation read V as it is; `fusion` turns such trees
//! into loops that read the source in place.
//!
//! Why behaviour cannot change: a view and a copy hold the same elements for as long as
//! neither storage is written. The pass requires, of the alias classes of X and of V
//! (flow-insensitive, `analysis::alias`): no element write, atomic, `alloc`, `free` or
//! reference count of any member, and no member passed to a call (whose callee could
//! write it); so the source and the view are never written while the function runs.
//! Later passes that write in place (`reuse`, fusion's direct destinations) refuse
//! `strided` targets and aliased ones. Indices, bounds checks and their errors are those
//! of the slice as written (the view checks the same selection). Not in functions with
//! GPU sections, nor for slices inside `parfor` bodies; a slice of a view (V indexed by a
//! range) keeps the candidate as written.
//!
//! Counters: `slices_viewed` (slices now views), `copies_kept` (reads of a view that
//! became a `(cast T V)` copy).

use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::analysis::alias::AliasSets;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, Function, LValue, LibFn, Module, Stmt, StmtKind};
use crate::vrir::types::{ArrayType, Layout, Type};
use crate::vrir::verify::expr_type;
use std::collections::{BTreeMap, BTreeSet};

pub const SLICE_VIEWS: Pass = Pass {
    name: "slice-views",
    summary: "read slices of arrays that nothing writes in place (views) instead of copying them",
    run,
};

/// `(index X i...)`, a copying slice of array variable X with scalar and range indices
/// (at least one range): X's name.
fn copying_slice<'e>(m: &Module, f: &Function, e: &'e Expr) -> Option<&'e str> {
    let Expr::Index {
        array,
        indices,
        flags,
    } = e
    else {
        return None;
    };
    let Expr::Var { name: x } = &**array else {
        return None;
    };
    if flags.view || flags.flatten || flags.negative {
        return None;
    }
    let Some(Type::Array(xt)) = f.var_type(x) else {
        return None;
    };
    let mut ranges = 0;
    for i in indices {
        match i {
            Expr::Range { .. } => ranges += 1,
            _ => match expr_type(m, f, i) {
                Ok(Type::Scalar { elem }) if elem.is_int() => {}
                _ => return None,
            },
        }
    }
    (ranges > 0 && indices.len() as u32 <= xt.ndims).then_some(x.as_str())
}

/// Variables that are written in place, allocated, freed, reference-counted or passed
/// to a call anywhere in `body`.
fn written_vars(m: &Module, f: &Function) -> BTreeSet<String> {
    let body = &f.body;
    let mut out = BTreeSet::new();
    crate::analysis::walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign { targets, .. } => {
            for t in targets {
                if let LValue::Index { array, .. } = t {
                    out.insert(array.clone());
                }
            }
        }
        StmtKind::Alloc { var, .. }
        | StmtKind::Free { var }
        | StmtKind::RefIncr { var }
        | StmtKind::RefDecr { var } => {
            out.insert(var.clone());
        }
        _ => {}
    });
    crate::analysis::walk_body_exprs(body, &mut |e| match e {
        Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
            out.insert(array.clone());
        }
        Expr::Call { args, .. } => {
            // Arrays reach the callee only through array-valued arguments.
            for a in args {
                if !matches!(expr_type(m, f, a), Ok(Type::Scalar { .. })) {
                    crate::analysis::expr_vars(a, &mut out);
                }
            }
        }
        _ => {}
    });
    out
}

/// Variables used as the array of a non-element index (a slice or gather of them, or
/// fewer scalar indices than dimensions), or assigned by a statement of several
/// targets: such a V stays as written.
fn sliced_or_multi(m: &Module, f: &Function, out: &mut BTreeSet<String>) {
    let body = &f.body;
    crate::analysis::walk_body_exprs(body, &mut |e| {
        if let Expr::Index {
            array,
            indices,
            flags,
        } = e
        {
            if let Expr::Var { name } = &**array {
                // One scalar index per dimension (or `:flat`): an element.
                let rank = match f.var_type(name) {
                    Some(Type::Array(t)) => t.ndims as usize,
                    _ => 0,
                };
                let element = (indices.len() == rank || flags.flatten)
                    && indices
                        .iter()
                        .all(|i| matches!(expr_type(m, f, i), Ok(Type::Scalar { .. })));
                if !element {
                    out.insert(name.clone());
                }
            }
        }
    });
    crate::analysis::walk_stmts(body, &mut |s| {
        if let StmtKind::Assign { targets, .. } = &s.kind {
            if targets.len() > 1 {
                for t in targets {
                    if let LValue::Var { name } = t {
                        out.insert(name.clone());
                    }
                }
            }
        }
    });
}

/// The candidate definitions: (V, X) for each `(set V slice-of-X)` outside `parfor`
/// bodies.
fn candidates(m: &Module, f: &Function, stmts: &[Stmt], out: &mut Vec<(String, String)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                if let ([LValue::Var { name: v }], Some(x)) =
                    (targets.as_slice(), copying_slice(m, f, value))
                {
                    out.push((v.clone(), x.to_string()));
                }
            }
            StmtKind::Parfor { .. } => {}
            _ => {
                for b in crate::analysis::child_blocks(s) {
                    candidates(m, f, &b.stmts, out);
                }
            }
        }
    }
}

struct Rewriter<'a> {
    m: &'a Module,
    /// The function as written (types of subexpressions before retyping).
    orig: &'a Function,
    /// Retyped variables and their former types.
    views: &'a BTreeMap<String, ArrayType>,
    /// Slice definitions to turn into views: their targets.
    defs: &'a BTreeSet<String>,
    viewed: u64,
    copies: u64,
}

impl Rewriter<'_> {
    /// `e` read where its layout matters: a retyped variable becomes a copy.
    fn sensitive(&mut self, e: &mut Expr) {
        if let Expr::Var { name } = e {
            if let Some(t) = self.views.get(name) {
                self.copies += 1;
                *e = Expr::Cast {
                    to: Type::Array(*t),
                    arg: Box::new(e.clone()),
                };
                return;
            }
        }
        self.expr(e);
    }

    /// `e` read where its layout does not matter.
    fn insensitive(&mut self, e: &mut Expr) {
        if !matches!(e, Expr::Var { .. }) {
            self.expr(e);
        }
    }

    /// The subexpressions of `e`, each as its position requires.
    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Var { .. } | Expr::Const { .. } => {}
            Expr::Dim { arg, .. } => self.insensitive(arg),
            Expr::Lib {
                func: LibFn::Len | LibFn::Ndims,
                args,
            } => args.iter_mut().for_each(|a| self.insensitive(a)),
            Expr::Index { array, indices, .. } => {
                // Only element reads of a view remain (see `sliced_or_multi`).
                self.insensitive(array);
                indices.iter_mut().for_each(|i| self.sensitive(i));
            }
            Expr::Cast {
                to: Type::Array(_),
                arg,
            } => self.insensitive(arg),
            Expr::Reduce {
                arg, axis: None, ..
            } if matches!(&**arg, Expr::Var { name } if self.views.get(name).is_some_and(|t| t.ndims == 1)) =>
            {
                // A whole reduction of one dimension folds in the same order either way.
            }
            Expr::Binary { lhs, rhs, .. } => {
                // The result takes the layout of the first array operand: the left one
                // when it is an array (a view read there is copied), else the right.
                let lhs_array = self.is_array(lhs);
                self.sensitive(lhs);
                if lhs_array {
                    self.insensitive(rhs);
                } else {
                    self.sensitive(rhs);
                }
            }
            Expr::Lib { func, args }
                if !matches!(func, LibFn::Matmul | LibFn::Transpose | LibFn::Copy) =>
            {
                let mut first = true;
                for a in args.iter_mut() {
                    if first {
                        first = !self.is_array(a);
                        self.sensitive(a);
                    } else {
                        self.insensitive(a);
                    }
                }
            }
            other => {
                for c in sub_exprs_mut(other) {
                    self.sensitive(c);
                }
            }
        }
    }

    /// Whether `e` (not yet rewritten) is array-valued.
    fn is_array(&self, e: &Expr) -> bool {
        matches!(expr_type(self.m, self.orig, e), Ok(Type::Array(_)))
    }

    fn stmts(&mut self, stmts: &mut [Stmt]) {
        for s in stmts {
            match &mut s.kind {
                StmtKind::Assign { targets, value } => {
                    let into_view = matches!(targets.as_slice(),
                        [LValue::Var { name }] if self.views.contains_key(name));
                    let slice_def = matches!(targets.as_slice(),
                        [LValue::Var { name }] if self.defs.contains(name))
                        && copying_slice(self.m, self.orig, value).is_some();
                    for t in targets.iter_mut() {
                        if let LValue::Index { indices, .. } = t {
                            indices.iter_mut().for_each(|i| self.sensitive(i));
                        }
                    }
                    if slice_def {
                        if let Expr::Index { flags, .. } = value {
                            flags.view = true;
                            self.viewed += 1;
                        }
                        for c in sub_exprs_mut(value).into_iter().skip(1) {
                            self.sensitive(c);
                        }
                    } else if into_view {
                        self.insensitive(value);
                    } else {
                        self.sensitive(value);
                    }
                }
                StmtKind::Return { values } => values.iter_mut().for_each(|v| self.sensitive(v)),
                StmtKind::Expr { expr } => self.sensitive(expr),
                StmtKind::If { cond, then, els } => {
                    self.sensitive(cond);
                    self.stmts(&mut then.stmts);
                    if let Some(e) = els {
                        self.stmts(&mut e.stmts);
                    }
                }
                StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                    self.sensitive(domain);
                    self.stmts(&mut body.stmts);
                }
                StmtKind::While { cond, body } => {
                    self.sensitive(cond);
                    self.stmts(&mut body.stmts);
                }
                StmtKind::Block(b) => self.stmts(&mut b.stmts),
                StmtKind::Alloc { dims, .. } => dims.iter_mut().for_each(|d| self.sensitive(d)),
                StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Free { .. }
                | StmtKind::RefIncr { .. }
                | StmtKind::RefDecr { .. } => {}
            }
        }
    }
}

fn has_gpu(stmts: &[Stmt]) -> bool {
    let mut gpu = false;
    crate::analysis::walk_stmts(stmts, &mut |s| {
        gpu |= crate::analysis::child_blocks(s).iter().any(|b| b.on_gpu);
    });
    gpu
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    if has_gpu(&f.body) {
        return Ok(());
    }
    let mut found = Vec::new();
    candidates(cx.module, f, &f.body, &mut found);
    if found.is_empty() {
        return Ok(());
    }
    let alias = AliasSets::compute(f, cx.options.params_never_alias);
    let written = written_vars(cx.module, f);
    let mut refused = BTreeSet::new();
    sliced_or_multi(cx.module, f, &mut refused);
    // Written storage (for X and V); sliced or multiply assigned views (for V only).
    let unsafe_class = |v: &str| written.iter().any(|w| alias.may_alias(v, w) || w == v);
    let unsafe_view =
        |v: &str| unsafe_class(v) || refused.iter().any(|w| alias.may_alias(v, w) || w == v);
    let local_array = |v: &str| {
        f.locals.iter().find_map(|l| match l.ty {
            Type::Array(t) if l.name == v && t.layout != Layout::Strided => Some(t),
            _ => None,
        })
    };
    // A view shares X's storage: V's whole class (its copies) and X's class must be
    // free of writes, and V a local the retyping may change. A variable's candidates
    // are all kept or all refused.
    let mut defs: BTreeSet<String> = BTreeSet::new();
    let mut bad: BTreeSet<String> = BTreeSet::new();
    for (v, x) in &found {
        if local_array(v).is_some() && !unsafe_view(v) && !unsafe_class(x) && v != x {
            defs.insert(v.clone());
        } else {
            bad.insert(v.clone());
        }
    }
    defs.retain(|v| !bad.contains(v));
    if defs.is_empty() {
        return Ok(());
    }
    // Retype V and the locals that receive it by plain copies, transitively.
    let mut views: BTreeMap<String, ArrayType> = defs
        .iter()
        .filter_map(|v| Some((v.clone(), local_array(v)?)))
        .collect();
    loop {
        let mut grew = false;
        crate::analysis::walk_stmts(&f.body, &mut |s| {
            if let StmtKind::Assign {
                targets,
                value: Expr::Var { name: u },
            } = &s.kind
            {
                if let [LValue::Var { name: w }] = targets.as_slice() {
                    if views.contains_key(u) && !views.contains_key(w) {
                        if let (Some(t), Some(ut)) = (local_array(w), views.get(u)) {
                            if t.elem == ut.elem && t.ndims == ut.ndims && !unsafe_view(w) {
                                views.insert(w.clone(), t);
                                grew = true;
                            }
                        }
                    }
                }
            }
        });
        if !grew {
            break;
        }
    }
    let orig = f.clone();
    let mut rw = Rewriter {
        m: cx.module,
        orig: &orig,
        views: &views,
        defs: &defs,
        viewed: 0,
        copies: 0,
    };
    let mut body = std::mem::take(&mut f.body);
    rw.stmts(&mut body);
    f.body = body;
    let (viewed, copies) = (rw.viewed, rw.copies);
    for l in &mut f.locals {
        if let (Some(t), Type::Array(a)) = (views.get(&l.name), &mut l.ty) {
            *a = ArrayType::new(t.elem, t.ndims, Layout::Strided);
        }
    }
    if viewed > 0 {
        *counters.entry("slices_viewed").or_default() += viewed;
    }
    if copies > 0 {
        *counters.entry("copies_kept").or_default() += copies;
    }
    Ok(())
}
