//! What the front end does to a whole Julia function before the engine sees it:
//!
//! - its value: a tuple in tail position returns several values, `nothing` none;
//! - argument annotations become checks (`#argtype`): a call whose types do not match
//!   is Julia's `MethodError`, at compile time; a declared result type (`f(x)::T`)
//!   converts every value returned (`#convert_to`);
//! - Julia's scopes: a variable first assigned inside a loop is local to that loop, so
//!   a read of it outside is Julia's `UndefVarError`; compiled code would read the last
//!   value, so such a read is refused, naming the variable;
//! - views: compiled `@view`s are copies, which give Julia's values only when neither
//!   the view nor its array is written while both exist (checked conservatively over
//!   the whole function; otherwise the `@view` is refused).

use super::desugar::{walk_mut, RESULTS};
use super::parser::{call, Function};
use crate::frontend::hir::{Expr, ExprKind, FunctionDef};
use std::collections::HashSet;

fn e(kind: ExprKind, line: u32) -> Expr {
    Expr::new(kind, line)
}

/// The definition the engine compiles for a parsed function; `functions` are the names
/// the source defines (calls of them may write their array arguments).
pub fn prepare(f: &Function, functions: &HashSet<String>) -> FunctionDef {
    let mut def = f.def.clone();
    let body = &mut *def.body;
    drop_dead_nothing(body);
    rewrite_tail(body);
    if let Some(t) = f.returns.as_deref().filter(|t| !is_any(t)) {
        convert_returns(body, t);
    }
    check_views(body, functions);
    let params: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
    check_scopes(body, &params);
    let checks: Vec<Expr> = def
        .params
        .iter()
        .zip(&f.annotations)
        .filter_map(|(p, a)| {
            let t = a.as_deref().filter(|t| !is_any(t))?;
            Some(call("#argtype", vec![e(ExprKind::Var(p.name.clone()), f.line), e(ExprKind::Str(t.into()), f.line)], f.line))
        })
        .collect();
    if !checks.is_empty() {
        if let ExprKind::Block(items) = &mut body.kind {
            items.splice(0..0, checks);
        }
    }
    def
}

fn is_any(t: &str) -> bool {
    matches!(t, "Any" | "")
}

/// `nothing` as a statement that is not the function's value does nothing.
fn drop_dead_nothing(body: &mut Expr) {
    walk_mut(body, &mut |x| {
        if let ExprKind::Block(items) = &mut x.kind {
            let n = items.len();
            let mut k = 0;
            items.retain(|i| {
                k += 1;
                k == n || i.kind != ExprKind::Null
            });
        }
    });
}

/// The function's value: a tuple in tail position is several results, `nothing` none.
fn rewrite_tail(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Block(items) => {
            if let Some(last) = items.last_mut() {
                rewrite_tail(last);
            }
        }
        ExprKind::If { then, els, .. } => {
            rewrite_tail(then);
            if let Some(x) = els {
                rewrite_tail(x);
            }
        }
        ExprKind::Tuple(items) => {
            let items = std::mem::take(items);
            *e = call(RESULTS, items, e.line);
        }
        ExprKind::Null => *e = call("return", vec![], e.line),
        _ => {}
    }
}

/// `function f(...)::T`: every value returned converted to `T`.
fn convert_returns(body: &mut Expr, t: &str) {
    let conv = |v: Expr| {
        let line = v.line;
        call("#convert_to", vec![e(ExprKind::Str(t.into()), line), v], line)
    };
    walk_mut(body, &mut |x| {
        if let ExprKind::Call { func, args } = &mut x.kind {
            if func == "return" && args.len() == 1 {
                let v = std::mem::replace(&mut args[0].value, e(ExprKind::Null, 0));
                args[0].value = conv(v);
            }
        }
    });
    fn tail(x: &mut Expr, conv: &dyn Fn(Expr) -> Expr) {
        match &mut x.kind {
            ExprKind::Block(items) => {
                if let Some(last) = items.last_mut() {
                    tail(last, conv);
                }
            }
            ExprKind::If { then, els: Some(els), .. } => {
                tail(then, conv);
                tail(els, conv);
            }
            ExprKind::Call { func, .. } if func == "return" || func == RESULTS || func == "error" => {}
            ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::If { .. } | ExprKind::Break | ExprKind::Next => {}
            ExprKind::Assign { target, value } if matches!(target.kind, ExprKind::Var(_)) => {
                let v = std::mem::replace(&mut **value, Expr::new(ExprKind::Null, 0));
                **value = conv(v);
            }
            _ => {
                let v = std::mem::replace(x, Expr::new(ExprKind::Null, 0));
                *x = conv(v);
            }
        }
    }
    tail(body, &conv);
}

/// Names assigned at this scope level: not inside a nested loop's body.
fn level_assigned(x: &Expr, out: &mut HashSet<String>) {
    match &x.kind {
        ExprKind::Assign { target, value } => {
            match &target.kind {
                ExprKind::Var(n) => {
                    out.insert(n.clone());
                }
                ExprKind::Tuple(items) => {
                    for i in items {
                        if let ExprKind::Var(n) = &i.kind {
                            out.insert(n.clone());
                        }
                    }
                }
                _ => {}
            }
            level_assigned(value, out);
        }
        ExprKind::Block(items) => items.iter().for_each(|i| level_assigned(i, out)),
        ExprKind::If { cond, then, els } => {
            level_assigned(cond, out);
            level_assigned(then, out);
            if let Some(x) = els {
                level_assigned(x, out);
            }
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| level_assigned(&a.value, out)),
        ExprKind::For { .. } | ExprKind::While { .. } => {}
        _ => {}
    }
}

/// Every name assigned anywhere (loop variables included).
fn all_assigned(x: &Expr, out: &mut HashSet<String>) {
    crate::frontend::growth::walk(x, &mut |y| match &y.kind {
        ExprKind::Assign { target, .. } => {
            for t in crate::frontend::tuples::targets(target) {
                if let ExprKind::Var(n) = &t.kind {
                    out.insert(n.clone());
                }
            }
        }
        ExprKind::For { var, .. } => {
            out.insert(var.clone());
        }
        _ => {}
    });
}

/// Refuse reads of loop-local variables outside their loop (Julia: UndefVarError).
fn check_scopes(body: &mut Expr, params: &[String]) {
    let mut visible: HashSet<String> = params.iter().cloned().collect();
    level_assigned(body, &mut visible);
    let mut locals = HashSet::new();
    all_assigned(body, &mut locals);
    // The front end's own names (`#g1_v`) are not Julia variables: no scope applies.
    let locals: HashSet<String> = locals.difference(&visible).filter(|n| !n.starts_with('#')).cloned().collect();
    if locals.is_empty() {
        return;
    }
    check_level(body, &visible, &locals);
}

fn check_level(x: &mut Expr, visible: &HashSet<String>, locals: &HashSet<String>) {
    match &mut x.kind {
        ExprKind::Var(n) if locals.contains(n.as_str()) && !visible.contains(n.as_str()) => {
            let what =
                format!("variable `{n}` read outside the loop that assigns it (in Julia it is local to that loop: UndefVarError; assign it before the loop)");
            x.kind = ExprKind::Unsupported(what);
        }
        ExprKind::For { var, seq, body } => {
            check_level(seq, visible, locals);
            let mut inner = visible.clone();
            inner.insert(var.clone());
            level_assigned(body, &mut inner);
            check_level(body, &inner, locals);
        }
        ExprKind::While { cond, body } => {
            check_level(cond, visible, locals);
            let mut inner = visible.clone();
            level_assigned(body, &mut inner);
            check_level(body, &inner, locals);
        }
        ExprKind::Assign { target, value } => {
            check_level(value, visible, locals);
            // A variable target declares; an indexed one reads the array and indices.
            match &mut target.kind {
                ExprKind::Var(_) => {}
                ExprKind::Tuple(items) => {
                    for i in items.iter_mut().filter(|i| !matches!(i.kind, ExprKind::Var(_))) {
                        check_level(i, visible, locals);
                    }
                }
                _ => check_level(target, visible, locals),
            }
        }
        ExprKind::Unary(_, a) => check_level(a, visible, locals),
        ExprKind::Binary(_, a, b) => {
            check_level(a, visible, locals);
            check_level(b, visible, locals);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(|a| check_level(&mut a.value, visible, locals)),
        ExprKind::CallExpr { callee, args } => {
            check_level(callee, visible, locals);
            args.iter_mut().for_each(|a| check_level(&mut a.value, visible, locals));
        }
        ExprKind::Index { target, indices, .. } => {
            check_level(target, visible, locals);
            indices.iter_mut().flatten().for_each(|i| check_level(i, visible, locals));
        }
        ExprKind::Block(items) | ExprKind::Tuple(items) => items.iter_mut().for_each(|i| check_level(i, visible, locals)),
        ExprKind::If { cond, then, els } => {
            check_level(cond, visible, locals);
            check_level(then, visible, locals);
            if let Some(x) = els {
                check_level(x, visible, locals);
            }
        }
        _ => {}
    }
}

/// The variable an expression names, if it is one.
fn var_name(x: &Expr) -> Option<&str> {
    match &x.kind {
        ExprKind::Var(n) => Some(n),
        _ => None,
    }
}

/// Refuse `@view`s whose copy could differ from Julia's view (see the module comment).
fn check_views(body: &mut Expr, functions: &HashSet<String>) {
    // Arrays the function may write: indexed stores, in-place broadcasts, arguments of
    // the source's own functions (they take arrays by reference).
    let mut written: HashSet<String> = HashSet::new();
    let mut copied_views: HashSet<String> = HashSet::new();
    let mut view_vars: HashSet<String> = HashSet::new();
    crate::frontend::growth::walk(body, &mut |x| match &x.kind {
        ExprKind::Assign { target, value } => {
            for t in crate::frontend::tuples::targets(target) {
                if let ExprKind::Index { target: a, .. } = &t.kind {
                    if let Some(n) = var_name(a) {
                        written.insert(n.to_string());
                    }
                }
            }
            if let (ExprKind::Var(v), ExprKind::Call { func, .. }) = (&target.kind, &value.kind) {
                if func == "#view" {
                    view_vars.insert(v.clone());
                }
            }
            if let Some(n) = var_name(value) {
                copied_views.insert(n.to_string());
            }
        }
        ExprKind::Call { func, args } if func == "#dotassign" => {
            if let Some(n) = args.first().and_then(|a| var_name(&a.value)) {
                written.insert(n.to_string());
            }
        }
        ExprKind::Call { func, args } if functions.contains(func) => {
            for a in args {
                if let Some(n) = var_name(&a.value) {
                    written.insert(n.to_string());
                }
            }
        }
        _ => {}
    });
    let refuse = |why: &str| ExprKind::Unsupported(format!("`@view` {why} (compiled views are copies, equal to Julia's view only when nothing writes either)"));
    walk_mut(body, &mut |x| {
        let line = x.line;
        match &mut x.kind {
            ExprKind::Assign { target, value } => {
                let ExprKind::Var(v) = &target.kind else { return };
                let ExprKind::Call { func, args } = &value.kind else { return };
                if func != "#view" {
                    return;
                }
                let array = args.first().and_then(|a| match &a.value.kind {
                    ExprKind::Index { target, .. } => var_name(target).map(str::to_string),
                    _ => None,
                });
                let bad = if written.contains(v) || copied_views.contains(v) {
                    Some(format!("`{v}` that is written or aliased"))
                } else if array.as_ref().is_none_or(|a| written.contains(a)) {
                    Some(format!("of `{}`, which the function writes", array.unwrap_or_else(|| "an expression".into())))
                } else {
                    None
                };
                if let Some(why) = bad {
                    **value = Expr::new(refuse(&why), line);
                }
            }
            ExprKind::Call { func, args } if functions.contains(func) => {
                for a in args.iter_mut() {
                    if matches!(&a.value.kind, ExprKind::Call { func, .. } if func == "#view") {
                        a.value = Expr::new(refuse(&format!("passed to `{func}`, which may write it")), line);
                    }
                }
            }
            _ => {}
        }
    });
    let _ = view_vars;
}
