//! The functions a function reaches through calls (`call` and `map`), itself included:
//! what a compiled function needs from its module, and what its cache key must cover
//! (a change in a called function must change the key — Numba's cache misses that).

use super::walk_body_exprs;
use crate::vrir::ast::{Expr, Function, Module};
use std::collections::BTreeSet;

/// Names of the module functions `f` calls directly.
pub fn direct_callees(f: &Function) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    walk_body_exprs(&f.body, &mut |e| {
        if let Expr::Call { func, .. } | Expr::Map { func, .. } = e {
            out.insert(func.as_str());
        }
    });
    out
}

/// `root` and every function it reaches, in the module's order; None when `root` is not
/// in `m`. Names of missing callees are ignored (the verifier rejects them).
pub fn reachable<'m>(m: &'m Module, root: &str) -> Option<Vec<&'m Function>> {
    m.function(root)?;
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut todo = vec![root];
    while let Some(name) = todo.pop() {
        if let Some(f) = m.function(name) {
            if seen.insert(f.name.as_str()) {
                todo.extend(direct_callees(f));
            }
        }
    }
    Some(m.functions.iter().filter(|f| seen.contains(f.name.as_str())).collect())
}

/// The module restricted to what `root` reaches (same name and index base).
pub fn submodule(m: &Module, root: &str) -> Option<Module> {
    Some(Module {
        name: m.name.clone(),
        index_base: m.index_base,
        functions: reachable(m, root)?.into_iter().cloned().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaches_callees_transitively_and_nothing_else() {
        let m = crate::vrir::text::parse_module(
            "(module m :index-base 0
               (function a ((x f64)) (f64) (locals) (return (call b x)))
               (function b ((x f64)) (f64) (locals) (return (call c x)))
               (function c ((x f64)) (f64) (locals) (return x))
               (function d ((x f64)) (f64) (locals) (return (call a x))))",
        )
        .expect("parses");
        let names: Vec<&str> = reachable(&m, "a").unwrap().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let names: Vec<&str> = reachable(&m, "c").unwrap().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["c"]);
        assert!(reachable(&m, "zz").is_none());
    }
}
