//! Analyses over VRIR functions, read-only: they describe a function and never change
//! it, so that every optimizing pass (core/src/opt) can ask the same questions the same
//! way.
//!
//! - [`liveness`]: live variables before each statement (backward, structured).
//! - [`reaching`]: reaching definitions before each statement (forward, structured), and
//!   from them whether a variable is certainly assigned at a point.
//! - [`definite`]: that last question alone (definite assignment, bit sets), which is
//!   what the passes and the cpu code generator ask: much cheaper to compute.
//! - [`alias`]: flow-insensitive alias classes over array variables and allocation
//!   sites (connected components).
//! - [`affine`]: affine forms of integer expressions in loop indices and invariants.
//! - [`calls`]: which functions a function reaches through calls (cache keys).
//! - [`param_writes`]: which array parameters a function may write (by-value hosts
//!   copy only those).
//! - [`work`]: the operations and bytes a loop or a function body will take, evaluated
//!   with the values known when it is reached (GPU placement, the CPU's tier choice).
//!
//! Each analysis is conservative: when it cannot tell, it answers the safe way.
//!
//! Statements are named by their *preorder number*: the body's statements in order, each
//! followed by the statements of its nested blocks (then before else), numbered from 0.
//! [`preorder`] lists them in that order.

pub mod affine;
pub mod alias;
mod bits;
pub mod calls;
pub mod definite;
pub mod liveness;
pub mod param_writes;
pub mod reaching;
pub mod work;
mod walk;

pub use walk::{stmt_exprs, walk_body_exprs, walk_expr, walk_stmts};

use crate::vrir::ast::{Block, Expr, Function, LValue, Stmt, StmtKind};
use std::collections::BTreeSet;

/// The statements of `body` (nested ones included) in preorder.
pub fn preorder(body: &[Stmt]) -> Vec<&Stmt> {
    fn walk<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
        for s in stmts {
            out.push(s);
            for b in child_blocks(s) {
                walk(&b.stmts, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// How many statements `s` counts in preorder numbering: itself and all nested ones.
pub fn stmt_count(s: &Stmt) -> usize {
    1 + child_blocks(s)
        .iter()
        .map(|b| b.stmts.iter().map(stmt_count).sum::<usize>())
        .sum::<usize>()
}

/// The preorder numbers of the statements of one list whose first statement is numbered
/// `first` (each statement counts itself and everything nested in it).
pub fn stmt_ids(stmts: &[Stmt], first: usize) -> Vec<usize> {
    let mut ids = Vec::with_capacity(stmts.len());
    let mut id = first;
    for s in stmts {
        ids.push(id);
        id += stmt_count(s);
    }
    ids
}

/// The blocks nested directly in a statement, in preorder order (then before else).
pub fn child_blocks(s: &Stmt) -> Vec<&Block> {
    match &s.kind {
        StmtKind::Block(b) => vec![b],
        StmtKind::If { then, els, .. } => {
            let mut v = vec![then];
            if let Some(e) = els {
                v.push(e);
            }
            v
        }
        StmtKind::For { body, .. }
        | StmtKind::Parfor { body, .. }
        | StmtKind::While { body, .. } => {
            vec![body]
        }
        _ => vec![],
    }
}

/// Every variable that statements in `stmts` may change the value of: assignment
/// targets that are plain variables, `alloc`/`free` targets and loop variables. Writes
/// into an array's elements are not in the set: they change neither the variable's
/// binding nor the array's extents.
pub fn assigned_vars(stmts: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in preorder(stmts) {
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    if let LValue::Var { name } = t {
                        out.insert(name.clone());
                    }
                }
            }
            StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
                out.extend(vars.iter().cloned())
            }
            StmtKind::Alloc { var, .. } | StmtKind::Free { var } => {
                out.insert(var.clone());
            }
            _ => {}
        }
    }
    out
}

/// The direct subexpressions of `e`, in evaluation order.
pub fn sub_exprs(e: &Expr) -> Vec<&Expr> {
    use crate::vrir::ast::AllocInit;
    match e {
        Expr::Const { .. } | Expr::Var { .. } => vec![],
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Reduce { arg, .. }
        | Expr::Scan { arg, .. }
        | Expr::Dim { arg, .. }
        | Expr::TupleGet { arg, .. } => vec![arg],
        Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        Expr::Call { args, .. } | Expr::Lib { args, .. } | Expr::Map { args, .. } => {
            args.iter().collect()
        }
        Expr::Alloc { init, dims, .. } => {
            let mut v: Vec<&Expr> = Vec::new();
            if let AllocInit::Fill { value } = init {
                v.push(value);
            }
            v.extend(dims.iter());
            v
        }
        Expr::Range { start, stop, step } => [start, stop, step]
            .into_iter()
            .flatten()
            .map(|b| &**b)
            .collect(),
        Expr::Domain { ranges } => ranges.iter().collect(),
        Expr::Tuple { items } => items.iter().collect(),
        Expr::Index { array, indices, .. } => {
            let mut v: Vec<&Expr> = vec![array];
            v.extend(indices.iter());
            v
        }
        Expr::AtomicAdd { indices, value, .. } => {
            let mut v: Vec<&Expr> = indices.iter().collect();
            v.push(value);
            v
        }
        Expr::AtomicCas {
            indices,
            expected,
            new,
            ..
        } => {
            let mut v: Vec<&Expr> = indices.iter().collect();
            v.push(expected);
            v.push(new);
            v
        }
    }
}

/// Every variable `e` reads (array names of atomics included).
pub fn expr_vars(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Var { name } => {
            out.insert(name.clone());
        }
        Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
            out.insert(array.clone());
        }
        _ => {}
    }
    for s in sub_exprs(e) {
        expr_vars(s, out);
    }
}

/// Every variable a statement reads by itself, not counting nested blocks: its
/// expressions, the arrays and indices of element-write targets, and the variable of
/// `refincr`/`refdecr`.
pub fn stmt_uses(s: &Stmt) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    match &s.kind {
        StmtKind::Assign { targets, value } => {
            expr_vars(value, &mut out);
            for t in targets {
                if let LValue::Index { array, indices, .. } = t {
                    out.insert(array.clone());
                    indices.iter().for_each(|i| expr_vars(i, &mut out));
                }
            }
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => expr_vars(cond, &mut out),
        StmtKind::For { domain, .. } | StmtKind::Parfor { domain, .. } => {
            expr_vars(domain, &mut out)
        }
        StmtKind::Return { values } => values.iter().for_each(|v| expr_vars(v, &mut out)),
        StmtKind::Expr { expr } => expr_vars(expr, &mut out),
        StmtKind::Alloc { dims, .. } => dims.iter().for_each(|d| expr_vars(d, &mut out)),
        StmtKind::RefIncr { var } | StmtKind::RefDecr { var } => {
            out.insert(var.clone());
        }
        StmtKind::Block(_) | StmtKind::Break | StmtKind::Continue | StmtKind::Free { .. } => {}
    }
    out
}

/// The variables a statement by itself sets (not counting nested blocks); loop
/// variables are set by their loop's body entry, not listed here.
pub fn stmt_defs(s: &Stmt) -> Vec<String> {
    match &s.kind {
        StmtKind::Assign { targets, .. } => targets
            .iter()
            .filter_map(|t| match t {
                LValue::Var { name } => Some(name.clone()),
                LValue::Index { .. } => None,
            })
            .collect(),
        StmtKind::Alloc { var, .. } => vec![var.clone()],
        _ => vec![],
    }
}

/// How many times statement `s` by itself (nested blocks not counted) assigns `x`,
/// loop variables and `free` included.
pub fn assignments_of(s: &Stmt, x: &str) -> usize {
    match &s.kind {
        StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
            vars.iter().filter(|v| *v == x).count()
        }
        StmtKind::Free { var } => (var == x) as usize,
        _ => stmt_defs(s).iter().filter(|v| *v == x).count(),
    }
}

/// All variables a function declares: parameters then locals.
pub fn declared_vars(f: &Function) -> Vec<String> {
    f.params
        .iter()
        .map(|p| p.name.clone())
        .chain(f.locals.iter().map(|l| l.name.clone()))
        .collect()
}
