//! Which array parameters may a function write? Hosts that pass arguments by value (R,
//! MATLAB) need the callee to work on a copy of exactly those; every other argument is
//! read in place, with no copy. Also used to refuse a read-only host array for a
//! parameter the function writes.
//!
//! Flow-insensitive and conservative: a name that is ever assigned something that may
//! share storage with a parameter (the parameter itself, a slice or view of it, a cast of
//! it, a call's result, a transpose) is taken to alias that parameter for the whole
//! function; a write through any alias, or through a callee that may write the
//! parameter it was passed, counts as a write of the parameter. Recursive functions are
//! taken to write every array parameter.

use super::{walk_body_exprs, walk_stmts};
use crate::vrir::ast::{Expr, LValue, LibFn, Module, StmtKind};
use std::collections::{BTreeSet, HashMap};

/// For each parameter of `func` in `m`, whether a call may change the array passed for
/// it (false for scalars). None when `func` is not in `m`.
pub fn params_possibly_written(m: &Module, func: &str) -> Option<Vec<bool>> {
    let mut memo = HashMap::new();
    analyse(m, func, &mut memo)
}

/// `memo` holds finished answers, and `None` for functions whose analysis is under way
/// (a recursive call: answered "every parameter").
fn analyse(
    m: &Module,
    func: &str,
    memo: &mut HashMap<String, Option<Vec<bool>>>,
) -> Option<Vec<bool>> {
    let f = m.function(func)?;
    match memo.get(func) {
        Some(Some(done)) => return Some(done.clone()),
        Some(None) => return Some(f.params.iter().map(|p| p.ty.as_array().is_some()).collect()),
        None => {}
    }
    memo.insert(func.to_string(), None);

    // name -> parameters whose storage it may share.
    let mut origins: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for (i, p) in f.params.iter().enumerate() {
        if p.ty.as_array().is_some() {
            origins.entry(p.name.as_str()).or_default().insert(i);
        }
    }
    // Propagate through assignments until nothing changes (the sets only grow).
    loop {
        let mut changed = false;
        walk_stmts(&f.body, &mut |s| {
            if let StmtKind::Assign { targets, value } = &s.kind {
                let from = expr_origins(value, &origins);
                if from.is_empty() {
                    return;
                }
                for t in targets {
                    if let LValue::Var { name } = t {
                        let set = origins.entry(name.as_str()).or_default();
                        let before = set.len();
                        set.extend(&from);
                        changed |= set.len() != before;
                    }
                }
            }
        });
        if !changed {
            break;
        }
    }

    let mut written: BTreeSet<usize> = BTreeSet::new();
    walk_stmts(&f.body, &mut |s| {
        if let StmtKind::Assign { targets, .. } = &s.kind {
            for t in targets {
                if let LValue::Index { array, .. } = t {
                    written.extend(origins.get(array.as_str()).into_iter().flatten());
                }
            }
        }
    });
    let mut calls: Vec<(&str, &Vec<Expr>)> = Vec::new();
    walk_body_exprs(&f.body, &mut |e| match e {
        Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
            written.extend(origins.get(array.as_str()).into_iter().flatten());
        }
        Expr::Call { func, args } => calls.push((func.as_str(), args)),
        _ => {}
    });
    for (callee, args) in calls {
        let Some(callee_writes) = analyse(m, callee, memo) else {
            // Not in the module (the verifier rejects this): assume the worst.
            for a in args {
                written.extend(expr_origins(a, &origins));
            }
            continue;
        };
        for (a, w) in args.iter().zip(callee_writes) {
            if w {
                written.extend(expr_origins(a, &origins));
            }
        }
    }
    let answer: Vec<bool> = (0..f.params.len()).map(|i| written.contains(&i)).collect();
    memo.insert(func.to_string(), Some(answer.clone()));
    Some(answer)
}

/// Parameters whose storage the value of `e` may share.
fn expr_origins(e: &Expr, origins: &HashMap<&str, BTreeSet<usize>>) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let all_vars = |x: &Expr, out: &mut BTreeSet<usize>| {
        crate::analysis::walk_expr(x, &mut |y| {
            if let Expr::Var { name } = y {
                out.extend(origins.get(name.as_str()).into_iter().flatten());
            }
        })
    };
    match e {
        Expr::Var { name } => out.extend(origins.get(name.as_str()).into_iter().flatten()),
        // Views and slices of an array, casts that may keep it, tuples holding it,
        // call results that may be views of arguments, transposes.
        Expr::Index { .. }
        | Expr::Cast { .. }
        | Expr::Tuple { .. }
        | Expr::TupleGet { .. }
        | Expr::Call { .. }
        | Expr::Lib {
            func: LibFn::Transpose,
            ..
        } => all_vars(e, &mut out),
        // Everything else is a scalar or a fresh array.
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes(src: &str, f: &str) -> Vec<bool> {
        let m = crate::vrir::text::parse_module(src).expect("parses");
        crate::vrir::verify::verify_module(&m).expect("verifies");
        params_possibly_written(&m, f).expect("function exists")
    }

    #[test]
    fn direct_write_and_pure_read() {
        let src = "(module m :index-base 0
          (function f ((a f64[1,row]) (b f64[1,row]) (n i64)) ()
            (locals)
            (set (index a 0) (index b 0))))";
        assert_eq!(writes(src, "f"), [true, false, false]);
    }

    #[test]
    fn write_through_a_view_and_through_a_callee() {
        let src = "(module m :index-base 0
          (function g ((x f64[1,strided])) ()
            (locals)
            (set (index x 0) 1.0))
          (function f ((a f64[1,row]) (b f64[1,row]) (c f64[1,row])) ()
            (locals (v f64[1,strided]) (w f64[1,row]))
            (set v (index a (range 0 _ 2) :view))
            (set (index v 0) 2.0)
            (expr (call g (index b : :view)))
            (set w (copy c))
            (set (index w 0) 3.0)))";
        assert_eq!(writes(src, "f"), [true, true, false]);
        assert_eq!(writes(src, "g"), [true]);
    }

    #[test]
    fn fresh_arrays_do_not_alias() {
        let src = "(module m :index-base 0
          (function f ((a f64[1,row])) (f64[1,row])
            (locals (o f64[1,row]))
            (set o (+ a 1.0))
            (set (index o 0) 0.0)
            (return o)))";
        assert_eq!(writes(src, "f"), [false]);
    }
}
