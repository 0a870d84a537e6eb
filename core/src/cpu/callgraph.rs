//! Does a module recurse? Recursive modules may nest calls up to the interpreter's
//! limit, so the backend runs them on a thread with a large stack (like the interpreter);
//! all other modules run on the caller's thread at no extra cost. Also: which functions
//! no other function calls (`jit::inline_into_entries`).

use crate::vrir::ast::{AllocInit, Block, Expr, LValue, Module, Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

fn expr_calls(e: &Expr, out: &mut HashSet<String>) {
    let mut go = |x: &Expr| expr_calls(x, out);
    match e {
        Expr::Const { .. } | Expr::Var { .. } => {}
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Reduce { arg, .. }
        | Expr::Scan { arg, .. }
        | Expr::Dim { arg, .. }
        | Expr::TupleGet { arg, .. } => go(arg),
        Expr::Binary { lhs, rhs, .. } => {
            go(lhs);
            go(rhs);
        }
        Expr::Call { func, args } | Expr::Map { func, args } => {
            args.iter().for_each(&mut go);
            out.insert(func.clone());
        }
        Expr::Lib { args, .. } => args.iter().for_each(go),
        Expr::Alloc { init, dims, .. } => {
            if let AllocInit::Fill { value } = init {
                go(value);
            }
            dims.iter().for_each(go);
        }
        Expr::Range { start, stop, step } => [start, stop, step]
            .into_iter()
            .flatten()
            .for_each(|x| go(x)),
        Expr::Domain { ranges: items } | Expr::Tuple { items } => items.iter().for_each(go),
        Expr::Index { array, indices, .. } => {
            go(array);
            indices.iter().for_each(go);
        }
        Expr::AtomicAdd { indices, value, .. } => {
            indices.iter().for_each(&mut go);
            go(value);
        }
        Expr::AtomicCas {
            indices,
            expected,
            new,
            ..
        } => {
            indices.iter().for_each(&mut go);
            go(expected);
            go(new);
        }
    }
}

fn block_calls(b: &Block, out: &mut HashSet<String>) {
    b.stmts.iter().for_each(|s| stmt_calls(s, out));
}

fn stmt_calls(s: &Stmt, out: &mut HashSet<String>) {
    match &s.kind {
        StmtKind::Block(b) => block_calls(b, out),
        StmtKind::Assign { targets, value } => {
            expr_calls(value, out);
            for t in targets {
                if let LValue::Index { indices, .. } = t {
                    indices.iter().for_each(|i| expr_calls(i, out));
                }
            }
        }
        StmtKind::If { cond, then, els } => {
            expr_calls(cond, out);
            block_calls(then, out);
            if let Some(e) = els {
                block_calls(e, out);
            }
        }
        StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
            expr_calls(domain, out);
            block_calls(body, out);
        }
        StmtKind::While { cond, body } => {
            expr_calls(cond, out);
            block_calls(body, out);
        }
        StmtKind::Return { values } => values.iter().for_each(|v| expr_calls(v, out)),
        StmtKind::Expr { expr } => expr_calls(expr, out),
        StmtKind::Alloc { dims, .. } => dims.iter().for_each(|d| expr_calls(d, out)),
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Free { .. }
        | StmtKind::RefIncr { .. }
        | StmtKind::RefDecr { .. } => {}
    }
}

/// The functions some function of `m` calls (or maps): the others are reached only
/// through their entry wrappers.
pub fn called_functions(m: &Module) -> HashSet<String> {
    let mut out = HashSet::new();
    for f in &m.functions {
        f.body.iter().for_each(|s| stmt_calls(s, &mut out));
    }
    out
}

/// True when some function can reach itself through calls.
pub fn is_recursive(m: &Module) -> bool {
    let graph: HashMap<&str, HashSet<String>> = m
        .functions
        .iter()
        .map(|f| {
            let mut out = HashSet::new();
            f.body.iter().for_each(|s| stmt_calls(s, &mut out));
            (f.name.as_str(), out)
        })
        .collect();
    // Depth-first search with colours: grey = on the current path.
    fn visit<'a>(
        f: &'a str,
        g: &'a HashMap<&str, HashSet<String>>,
        grey: &mut HashSet<&'a str>,
        done: &mut HashSet<&'a str>,
    ) -> bool {
        if done.contains(f) {
            return false;
        }
        if !grey.insert(f) {
            return true;
        }
        let cyclic = g
            .get(f)
            .is_some_and(|callees| callees.iter().any(|c| visit(c.as_str(), g, grey, done)));
        grey.remove(f);
        done.insert(f);
        cyclic
    }
    let (mut grey, mut done) = (HashSet::new(), HashSet::new());
    m.functions
        .iter()
        .any(|f| visit(&f.name, &graph, &mut grey, &mut done))
}
