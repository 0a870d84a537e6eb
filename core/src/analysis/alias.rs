//! Flow-insensitive alias analysis: which array variables may share storage. Nodes are
//! the function's array variables, its allocation sites and one node standing for
//! "storage the caller handed in"; every assignment that may make two of them share
//! storage joins their connected components (union-find). Two variables may alias when
//! they end in the same component.
//!
//! Parameters: an array parameter is joined to the caller's storage unless it is
//! declared `:restrict` or the host declares that parameters never alias (R and MATLAB
//! pass values), in which case each parameter is its own component.
//!
//! Memory reuse (`C = A + B` into C's buffer) needs C unaliased; `vr explain` prints the
//! classes.

use crate::vrir::ast::{Expr, Function, LValue, LibFn, Stmt, StmtKind};
use crate::vrir::types::Type;
use std::collections::BTreeMap;

/// The alias classes of one function's array variables.
#[derive(Clone, Debug, PartialEq)]
pub struct AliasSets {
    /// Each class: its array variables (sorted); classes ordered by their first variable.
    pub classes: Vec<Vec<String>>,
    class_of: BTreeMap<String, usize>,
}

impl AliasSets {
    pub fn compute(f: &Function, params_never_alias: bool) -> AliasSets {
        let mut b = Builder {
            f,
            parent: Vec::new(),
            node_of: BTreeMap::new(),
        };
        let caller = b.new_node();
        for p in &f.params {
            if matches!(p.ty, Type::Array(_)) {
                let n = b.var(&p.name);
                if !(p.restrict || params_never_alias) {
                    b.union(n, caller);
                }
            }
        }
        for l in &f.locals {
            if matches!(l.ty, Type::Array(_)) {
                b.var(&l.name);
            }
        }
        for s in super::preorder(&f.body) {
            b.stmt(s);
        }
        let mut groups: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let vars: Vec<(String, usize)> = b.node_of.iter().map(|(k, v)| (k.clone(), *v)).collect();
        for (name, node) in vars {
            let root = b.find(node);
            groups.entry(root).or_default().push(name);
        }
        let mut classes: Vec<Vec<String>> = groups.into_values().collect();
        for c in &mut classes {
            c.sort();
        }
        classes.sort();
        let class_of = classes
            .iter()
            .enumerate()
            .flat_map(|(i, c)| c.iter().map(move |v| (v.clone(), i)))
            .collect();
        AliasSets { classes, class_of }
    }

    /// Whether the array variables `a` and `b` may share storage (a variable aliases
    /// itself; a name that is not an array variable aliases nothing).
    pub fn may_alias(&self, a: &str, b: &str) -> bool {
        match (self.class_of.get(a), self.class_of.get(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// Whether no other array variable may share `a`'s storage.
    pub fn is_unaliased(&self, a: &str) -> bool {
        self.class_of
            .get(a)
            .is_some_and(|&c| self.classes[c].len() == 1)
    }
}

struct Builder<'f> {
    f: &'f Function,
    parent: Vec<usize>,
    node_of: BTreeMap<String, usize>,
}

impl Builder<'_> {
    fn new_node(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }
    fn var(&mut self, name: &str) -> usize {
        if let Some(&n) = self.node_of.get(name) {
            return n;
        }
        let n = self.new_node();
        self.node_of.insert(name.to_string(), n);
        n
    }
    fn find(&mut self, mut n: usize) -> usize {
        while self.parent[n] != n {
            self.parent[n] = self.parent[self.parent[n]];
            n = self.parent[n];
        }
        n
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra] = rb;
        }
    }
    fn is_array_var(&self, name: &str) -> bool {
        matches!(self.f.var_type(name), Some(Type::Array(_)))
    }

    /// The nodes whose storage the value of `e` may share: array variables it may pass
    /// through, or a fresh allocation site when it certainly builds a new array.
    fn sources(&mut self, e: &Expr) -> Vec<usize> {
        match e {
            Expr::Var { name } if self.is_array_var(name) => vec![self.var(name)],
            Expr::Var { .. } | Expr::Const { .. } => vec![],
            Expr::Index { array, flags, .. } if flags.view => self.sources(array),
            // A copying slice, an element, arithmetic, reductions, maps and allocations
            // build new storage (or a scalar).
            Expr::Index { .. }
            | Expr::Alloc { .. }
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Reduce { .. }
            | Expr::Scan { .. }
            | Expr::Map { .. } => vec![self.new_node()],
            Expr::Lib { func, args } if !matches!(func, LibFn::Transpose) => {
                let _ = args;
                vec![self.new_node()]
            }
            // Anything else (calls, tuples, casts, transposes) may pass any array it
            // mentions through.
            other => {
                let mut vars = std::collections::BTreeSet::new();
                super::expr_vars(other, &mut vars);
                let arrays: Vec<String> =
                    vars.into_iter().filter(|v| self.is_array_var(v)).collect();
                arrays.iter().map(|v| self.var(v)).collect()
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                let array_targets: Vec<usize> = targets
                    .iter()
                    .filter_map(|t| match t {
                        LValue::Var { name } if self.is_array_var(name) => Some(name.clone()),
                        _ => None,
                    })
                    .collect::<Vec<String>>()
                    .iter()
                    .map(|n| self.var(n))
                    .collect();
                if array_targets.is_empty() {
                    return;
                }
                let sources = match (value, targets.len()) {
                    (Expr::Tuple { items }, n) if n > 1 && items.len() == n => {
                        // Item k goes to target k only.
                        for (t, item) in targets.iter().zip(items) {
                            if let LValue::Var { name } = t {
                                if self.is_array_var(name) {
                                    let tn = self.var(name);
                                    for src in self.sources(item) {
                                        self.union(tn, src);
                                    }
                                }
                            }
                        }
                        return;
                    }
                    _ => self.sources(value),
                };
                for &t in &array_targets {
                    for &src in &sources {
                        self.union(t, src);
                    }
                }
                // Several results of one call may share storage with each other.
                for w in array_targets.windows(2) {
                    if targets.len() > 1 {
                        self.union(w[0], w[1]);
                    }
                }
            }
            StmtKind::Alloc { var, .. } => {
                self.var(var);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::parse_module;

    fn sets(src: &str, never: bool) -> AliasSets {
        let m = parse_module(src).unwrap();
        AliasSets::compute(&m.functions[0], never)
    }

    const SRC: &str = "(module m :index-base 0
      (function f ((a f64[1,row]) (b f64[1,row]) (r f64[1,row] :restrict)) ()
        (locals (c f64[1,row]) (d f64[1,row]) (e f64[1,strided]) (g f64[1,row]))
        (set c (+ a b))
        (set d c)
        (set e (index r (range 0 1) :view))
        (set g (copy a))))";

    #[test]
    fn assignments_and_views_join_classes_and_fresh_arrays_do_not() {
        let s = sets(SRC, false);
        assert!(
            s.may_alias("a", "b"),
            "unrestricted parameters may alias each other"
        );
        assert!(
            !s.may_alias("a", "r"),
            "a :restrict parameter aliases no other parameter"
        );
        assert!(s.may_alias("c", "d"));
        assert!(!s.may_alias("c", "a"), "c = a + b is a new array");
        assert!(s.may_alias("e", "r"), "a view shares its source's storage");
        assert!(s.is_unaliased("g"));
        assert_eq!(
            s.classes,
            vec![vec!["a", "b"], vec!["c", "d"], vec!["e", "r"], vec!["g"]]
        );
    }

    #[test]
    fn hosts_may_declare_that_parameters_never_alias() {
        let s = sets(SRC, true);
        assert!(!s.may_alias("a", "b"));
        assert!(s.is_unaliased("a"));
    }

    #[test]
    fn results_of_a_call_may_alias_its_array_arguments() {
        let s = sets(
            "(module m :index-base 0
              (function f ((a f64[1,row])) (f64[1,row] f64[1,row])
                (locals (x f64[1,row]) (y f64[1,row]) (z f64[1,row]))
                (mset (x y) (call f a))
                (set z (zeros f64[1,row] 3))
                (return x y)))",
            true,
        );
        assert!(s.may_alias("x", "a"));
        assert!(s.may_alias("x", "y"));
        assert!(!s.may_alias("z", "a"));
    }
}
