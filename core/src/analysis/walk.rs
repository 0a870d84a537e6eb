//! Whole-tree walkers used by the call-graph and parameter-write analyses (and by the
//! C API's specialization cache through them): every expression of a tree, every
//! statement of a body, outermost first.

use crate::vrir::ast::{AllocInit, Block, Expr, LValue, Stmt, StmtKind};

/// Visit `e` and every expression inside it, outermost first.
pub fn walk_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    match e {
        Expr::Const { .. } | Expr::Var { .. } => {}
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Reduce { arg, .. }
        | Expr::Scan { arg, .. }
        | Expr::Dim { arg, .. }
        | Expr::TupleGet { arg, .. } => walk_expr(arg, f),
        Expr::Binary { lhs, rhs, .. } => {
            walk_expr(lhs, f);
            walk_expr(rhs, f);
        }
        Expr::Call { args, .. } | Expr::Map { args, .. } | Expr::Lib { args, .. } => {
            args.iter().for_each(|a| walk_expr(a, f))
        }
        Expr::Alloc { init, dims, .. } => {
            if let AllocInit::Fill { value } = init {
                walk_expr(value, f);
            }
            dims.iter().for_each(|d| walk_expr(d, f));
        }
        Expr::Range { start, stop, step } => {
            for x in [start, stop, step].into_iter().flatten() {
                walk_expr(x, f);
            }
        }
        Expr::Domain { ranges: items } | Expr::Tuple { items } => {
            items.iter().for_each(|x| walk_expr(x, f))
        }
        Expr::Index { array, indices, .. } => {
            walk_expr(array, f);
            indices.iter().for_each(|x| walk_expr(x, f));
        }
        Expr::AtomicAdd { indices, value, .. } => {
            indices.iter().for_each(|x| walk_expr(x, f));
            walk_expr(value, f);
        }
        Expr::AtomicCas { indices, expected, new, .. } => {
            indices.iter().for_each(|x| walk_expr(x, f));
            walk_expr(expected, f);
            walk_expr(new, f);
        }
    }
}

/// Visit every statement of `stmts`, nested ones included, outermost first.
pub fn walk_stmts<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::Block(b) => walk_stmts(&b.stmts, f),
            StmtKind::If { then, els, .. } => {
                walk_stmts(&then.stmts, f);
                if let Some(Block { stmts, .. }) = els {
                    walk_stmts(stmts, f);
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::Parfor { body, .. }
            | StmtKind::While { body, .. } => walk_stmts(&body.stmts, f),
            _ => {}
        }
    }
}

/// The expressions a statement holds directly (not those of nested statements).
pub fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Assign { targets, value } => {
            let mut v = vec![value];
            for t in targets {
                if let LValue::Index { indices, .. } = t {
                    v.extend(indices);
                }
            }
            v
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => vec![cond],
        StmtKind::For { domain, .. } | StmtKind::Parfor { domain, .. } => vec![domain],
        StmtKind::Return { values } => values.iter().collect(),
        StmtKind::Expr { expr } => vec![expr],
        StmtKind::Alloc { dims, .. } => dims.iter().collect(),
        StmtKind::Block(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Free { .. }
        | StmtKind::RefIncr { .. }
        | StmtKind::RefDecr { .. } => vec![],
    }
}

/// Visit every expression of a function body, nested ones included.
pub fn walk_body_exprs<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Expr)) {
    walk_stmts(stmts, &mut |s| {
        for e in stmt_exprs(s) {
            walk_expr(e, f);
        }
    });
}
