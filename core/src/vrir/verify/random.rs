//! Which functions draw random numbers, directly or through the functions they call or
//! map: the verifier keeps such draws out of code whose iterations have no order
//! (parfor bodies, on_gpu blocks, map functions), since the host's generator is one
//! serial stream consumed in program order.

use crate::vrir::ast::{AllocInit, Block, Expr, LValue, LibFn, Module, Stmt, StmtKind};
use std::collections::HashSet;

/// The first draw `func` makes, directly or through its callees (in statement order),
/// as (the function that draws, the draw); None when it never draws.
pub fn first_draw(m: &Module, func: &str) -> Option<(String, LibFn)> {
    let mut seen = HashSet::new();
    search(m, func, &mut seen)
}

fn search(m: &Module, func: &str, seen: &mut HashSet<String>) -> Option<(String, LibFn)> {
    if !seen.insert(func.to_string()) {
        return None;
    }
    let f = m.function(func)?;
    let mut found = None;
    let mut callees = Vec::new();
    stmts(&f.body, &mut |e| {
        if found.is_some() {
            return;
        }
        match e {
            Expr::Lib { func: lib, .. } if lib.random_draw().is_some() => {
                found = Some((f.name.clone(), *lib))
            }
            Expr::Call { func, .. } | Expr::Map { func, .. } => callees.push(func.clone()),
            _ => {}
        }
    });
    if found.is_some() {
        return found;
    }
    callees.iter().find_map(|c| search(m, c, seen))
}

fn stmts(body: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in body {
        match &s.kind {
            StmtKind::Block(b) => block(b, f),
            StmtKind::Assign { targets, value } => {
                expr(value, f);
                for t in targets {
                    if let LValue::Index { indices, .. } = t {
                        indices.iter().for_each(|i| expr(i, f));
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                expr(cond, f);
                block(then, f);
                if let Some(e) = els {
                    block(e, f);
                }
            }
            StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                expr(domain, f);
                block(body, f);
            }
            StmtKind::While { cond, body } => {
                expr(cond, f);
                block(body, f);
            }
            StmtKind::Return { values } => values.iter().for_each(|v| expr(v, f)),
            StmtKind::Expr { expr: e } => expr(e, f),
            StmtKind::Alloc { dims, .. } => dims.iter().for_each(|d| expr(d, f)),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Free { .. }
            | StmtKind::RefIncr { .. }
            | StmtKind::RefDecr { .. } => {}
        }
    }
}

fn block(b: &Block, f: &mut dyn FnMut(&Expr)) {
    stmts(&b.stmts, f)
}

/// `f` on `e` and every expression inside it, in evaluation order. Iterative: a callee
/// searched here may not have been checked against the nesting limit yet.
fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        f(e);
        match e {
            Expr::Const { .. } | Expr::Var { .. } => {}
            Expr::Unary { arg, .. }
            | Expr::Cast { arg, .. }
            | Expr::Reduce { arg, .. }
            | Expr::Scan { arg, .. }
            | Expr::Dim { arg, .. }
            | Expr::TupleGet { arg, .. } => stack.push(arg),
            Expr::Binary { lhs, rhs, .. } => {
                stack.push(rhs);
                stack.push(lhs);
            }
            Expr::Call { args, .. } | Expr::Map { args, .. } | Expr::Lib { args, .. } => {
                stack.extend(args.iter().rev())
            }
            Expr::Alloc { init, dims, .. } => {
                stack.extend(dims.iter().rev());
                if let AllocInit::Fill { value } = init {
                    stack.push(value);
                }
            }
            Expr::Range { start, stop, step } => {
                stack.extend([step, stop, start].into_iter().flatten().map(|b| &**b))
            }
            Expr::Domain { ranges: items } | Expr::Tuple { items } => {
                stack.extend(items.iter().rev())
            }
            Expr::Index { array, indices, .. } => {
                stack.extend(indices.iter().rev());
                stack.push(array);
            }
            Expr::AtomicAdd { indices, value, .. } => {
                stack.push(value);
                stack.extend(indices.iter().rev());
            }
            Expr::AtomicCas {
                indices,
                expected,
                new,
                ..
            } => {
                stack.push(new);
                stack.push(expected);
                stack.extend(indices.iter().rev());
            }
        }
    }
}
