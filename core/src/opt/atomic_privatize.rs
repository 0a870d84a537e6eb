//! `atomic-privatize`: an integer `atomic-add` in a `parfor` body that only accumulates
//! becomes, on the cpu-par backend, a sum private to each chunk of iterations, added to
//! the element with one atomic when the chunk ends: a reduction. The VRIR is not
//! changed (chunks exist only in the backend): this pass decides which atomics qualify
//! ([`private_sums`]) and counts them (`atomics_privatized`); the cpu backend carries
//! it out with the same decision when the pass is on (core/src/cpu/codegen/par_atomics.rs,
//! `CpuOptions::privatize_atomics`), as `alias-version` does.
//!
//! Why: growcut counts its changes with one `atomic-add` per cell into one element.
//! Serially an atomic costs a locked instruction; with 16 threads every one of them
//! moves the cache line between cores, and the loop runs at the speed of that line
//! (1.6x on 16 cores where OpenMP's `reduction(+ : changes)` gets 4-17x).
//!
//! An atomic-add qualifies when:
//! - its element type is an integer (`i32`, `i64`): wrapping addition is associative and
//!   commutative, so partial sums added in any order give exactly the total of the
//!   atomics in any order. Float atomics are left alone: a partial sum rounds
//!   differently from any sequence of single additions to the element;
//! - its result is unused: the statement is `(expr (atomic-add ...))`, or
//!   `(set v (atomic-add ...))` with `v` dead afterwards (liveness);
//! - its indices are constants or variables the parfor never assigns, so every
//!   execution in the loop addresses the same element (sites with the same array and
//!   the same indices share one sum);
//! - it is directly in this parfor's body (not in a nested parfor, whose own body is
//!   decided when it is outlined);
//! - the body touches the array, and every array that may share its storage (alias
//!   classes), only through qualifying atomic-adds and `dim`: no reads, writes,
//!   other atomics, calls or assignments of it. So no iteration can observe a partial
//!   total, which is what makes the deferred additions invisible.
//!
//! Errors are kept: each site still evaluates its value and indices and checks the
//! bounds where it stands (the error the serial order meets first is unchanged), and the
//! chunk adds its sum on every exit, the error exits included, so the element holds
//! every addition of the iterations before the failing point as the atomics left it.

use super::{Counters, Pass, PassContext};
use crate::analysis::alias::AliasSets;
use crate::analysis::liveness::LiveVars;
use crate::analysis::preorder;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Block, Expr, Function, LValue, Literal, Stmt, StmtKind};
use crate::vrir::types::{ScalarType, Type};
use std::collections::{BTreeSet, HashMap};

pub const ATOMIC_PRIVATIZE: Pass = Pass {
    name: "atomic-privatize",
    summary: "accumulate integer atomic-adds of a parfor per chunk (cpu-par), one atomic per chunk",
    run,
};

fn run(f: &mut Function, _cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let mut sites = 0u64;
    for s in preorder(&f.body) {
        if let StmtKind::Parfor { body, .. } = &s.kind {
            sites += private_sums(f, body)
                .iter()
                .map(|p| p.sites.len() as u64)
                .sum::<u64>();
        }
    }
    if sites > 0 {
        *counters.entry("atomics_privatized").or_default() += sites;
    }
    Ok(())
}

/// One per-chunk sum: the qualifying atomic-adds of one element.
#[derive(Debug)]
pub struct PrivateSum<'a> {
    pub array: &'a str,
    pub indices: &'a [Expr],
    pub elem: ScalarType,
    /// The `:value` expression of each atomic-add the sum replaces (it names the site).
    pub sites: Vec<&'a Expr>,
}

/// The per-chunk sums of the parfor of `f` whose body is `body` (the very block, by
/// address); empty when there is none or `body` is no parfor body of `f`.
pub fn private_sums<'a>(f: &'a Function, body: &'a Block) -> Vec<PrivateSum<'a>> {
    let stmts = preorder(&f.body);
    let Some(parfor_vars) = stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Parfor { vars, body: b, .. } if std::ptr::eq(b, body) => Some(vars),
        _ => None,
    }) else {
        return Vec::new();
    };
    let ids: HashMap<*const Stmt, usize> = stmts
        .iter()
        .enumerate()
        .map(|(k, s)| (*s as *const Stmt, k))
        .collect();
    let live = LiveVars::compute(f);
    let mut assigned: BTreeSet<&str> = parfor_vars.iter().map(String::as_str).collect();
    assigned_vars(&body.stmts, &mut assigned);

    // Candidates: atomic-adds whose result is unused, directly in this body.
    let mut candidates: Vec<(&'a str, &'a [Expr], &'a Expr)> = Vec::new();
    let mut candidate_values: BTreeSet<*const Expr> = BTreeSet::new();
    collect_candidates(&body.stmts, &ids, &live, &mut candidates);
    candidates.retain(|(array, indices, _)| {
        element_type(f, array).is_some_and(|t| matches!(t, ScalarType::I32 | ScalarType::I64))
            && indices.iter().all(|i| invariant_index(i, &assigned))
    });
    for (_, _, v) in &candidates {
        candidate_values.insert(*v as *const Expr);
    }

    // Every other way the body touches an array.
    let mut touched: BTreeSet<&str> = BTreeSet::new();
    touches_in(&body.stmts, &candidate_values, &mut touched);
    let aliases = AliasSets::compute(f, false);
    let clean = |array: &str| {
        !touched
            .iter()
            .any(|t| *t == array || aliases.may_alias(t, array))
    };

    let mut sums: Vec<PrivateSum<'a>> = Vec::new();
    for (array, indices, value) in candidates {
        if !clean(array) {
            continue;
        }
        match sums
            .iter_mut()
            .find(|s| s.array == array && s.indices == indices)
        {
            Some(s) => s.sites.push(value),
            None => sums.push(PrivateSum {
                array,
                indices,
                elem: element_type(f, array).expect("checked above"),
                sites: vec![value],
            }),
        }
    }
    sums
}

/// The element type of array variable `name` of `f`.
fn element_type(f: &Function, name: &str) -> Option<ScalarType> {
    let ty = f
        .params
        .iter()
        .find(|p| p.name == name)
        .map(|p| &p.ty)
        .or_else(|| f.locals.iter().find(|l| l.name == name).map(|l| &l.ty))?;
    match ty {
        Type::Array(a) => Some(a.elem),
        _ => None,
    }
}

/// A subscript that has one value during the whole loop.
fn invariant_index(e: &Expr, assigned: &BTreeSet<&str>) -> bool {
    match e {
        Expr::Const {
            value: Literal::I64(_) | Literal::I32(_),
        } => true,
        Expr::Var { name } => !assigned.contains(name.as_str()),
        _ => false,
    }
}

/// Variables a statement list assigns (nested loops' variables included).
fn assigned_vars<'a>(stmts: &'a [Stmt], out: &mut BTreeSet<&'a str>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    if let LValue::Var { name } = t {
                        out.insert(name);
                    }
                }
            }
            StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
                out.extend(vars.iter().map(String::as_str));
            }
            StmtKind::Alloc { var, .. } | StmtKind::Free { var } => {
                out.insert(var);
            }
            _ => {}
        }
        for b in crate::analysis::child_blocks(s) {
            assigned_vars(&b.stmts, out);
        }
    }
}

/// Atomic-adds whose result nobody reads, in `stmts` and their nested blocks except
/// nested parfor bodies: (array, indices, value).
fn collect_candidates<'a>(
    stmts: &'a [Stmt],
    ids: &HashMap<*const Stmt, usize>,
    live: &LiveVars,
    out: &mut Vec<(&'a str, &'a [Expr], &'a Expr)>,
) {
    for s in stmts {
        let site = match &s.kind {
            StmtKind::Expr { expr } => Some(expr),
            StmtKind::Assign { targets, value } => match targets.as_slice() {
                [LValue::Var { name }]
                    if ids
                        .get(&(s as *const Stmt))
                        .is_some_and(|id| !live.is_live_after(*id, name)) =>
                {
                    Some(value)
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(Expr::AtomicAdd {
            array,
            indices,
            value,
        }) = site
        {
            out.push((array, indices, value));
        }
        if !matches!(s.kind, StmtKind::Parfor { .. }) {
            for b in crate::analysis::child_blocks(s) {
                collect_candidates(&b.stmts, ids, live, out);
            }
        }
    }
}

/// Arrays (and other variables) `stmts` use other than through the candidate sites
/// (named by their value expressions) and `dim`; nested parfor bodies included.
fn touches_in<'a>(stmts: &'a [Stmt], sites: &BTreeSet<*const Expr>, out: &mut BTreeSet<&'a str>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    match t {
                        LValue::Var { name } => {
                            out.insert(name);
                        }
                        LValue::Index { array, indices, .. } => {
                            out.insert(array);
                            indices.iter().for_each(|i| touches_expr(i, sites, out));
                        }
                    }
                }
                touches_expr(value, sites, out);
            }
            StmtKind::Alloc { var, dims } => {
                out.insert(var);
                dims.iter().for_each(|d| touches_expr(d, sites, out));
            }
            StmtKind::Free { var } | StmtKind::RefIncr { var } | StmtKind::RefDecr { var } => {
                out.insert(var);
            }
            _ => {
                for e in crate::analysis::stmt_exprs(s) {
                    touches_expr(e, sites, out);
                }
            }
        }
        for b in crate::analysis::child_blocks(s) {
            touches_in(&b.stmts, sites, out);
        }
    }
}

fn touches_expr<'a>(e: &'a Expr, sites: &BTreeSet<*const Expr>, out: &mut BTreeSet<&'a str>) {
    match e {
        Expr::Var { name } => {
            out.insert(name);
        }
        // The extent of an array never changes through its elements.
        Expr::Dim { arg, .. } if matches!(&**arg, Expr::Var { .. }) => {}
        Expr::AtomicAdd {
            array,
            indices,
            value,
        } => {
            if !sites.contains(&(&**value as *const Expr)) {
                out.insert(array);
            }
            indices.iter().for_each(|i| touches_expr(i, sites, out));
            touches_expr(value, sites, out);
        }
        Expr::AtomicCas { array, .. } => {
            out.insert(array);
            for c in crate::analysis::sub_exprs(e) {
                touches_expr(c, sites, out);
            }
        }
        _ => {
            for c in crate::analysis::sub_exprs(e) {
                touches_expr(c, sites, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::parse_module;

    /// (array, indices as text, site count) of each sum of the first parfor of `f`.
    fn sums(src: &str) -> Vec<(String, usize, usize)> {
        let m = parse_module(src).expect("parses");
        crate::vrir::verify::verify_module(&m).expect("verifies");
        let f = &m.functions[0];
        let body = preorder(&f.body)
            .into_iter()
            .find_map(|s| match &s.kind {
                StmtKind::Parfor { body, .. } => Some(body),
                _ => None,
            })
            .expect("a parfor");
        private_sums(f, body)
            .iter()
            .map(|s| (s.array.to_string(), s.indices.len(), s.sites.len()))
            .collect()
    }

    fn module(locals: &str, body: &str, tail: &str) -> String {
        format!(
            "(module m :index-base 0 (function f ((n i64) (a f64[1,row])) (i64)
               (locals (i i64) (k i64) (old i64) (c i64[1,row]) (e i64[1,row]) (x f64[1,row]) {locals})
               (set c (zeros i64[1,row] 2))
               (set e c)
               (set x (zeros f64[1,row] 1))
               (set k 1)
               (parfor (i) (range 0 n) (block {body}))
               (return {tail})))"
        )
    }

    #[test]
    fn a_counting_atomic_qualifies_and_sites_of_one_element_share_a_sum() {
        let src = module(
            "",
            "(set old (atomic-add c 0 :value i))
             (if (> i 3) (block (expr (atomic-add c 0 :value 1))))
             (expr (atomic-add c k :value 2))",
            "(index c 0)",
        );
        assert_eq!(sums(&src), vec![("c".into(), 1, 2), ("c".into(), 1, 1)]);
    }

    #[test]
    fn used_results_reads_varying_indices_and_floats_do_not() {
        // The old value is read after.
        let used = module(
            "",
            "(set old (atomic-add c 0 :value i)) (set (index a i) (cast f64 old))",
            "0",
        );
        assert!(sums(&used).is_empty());
        // The body reads the element.
        let read = module(
            "",
            "(expr (atomic-add c 0 :value i)) (set (index a i) (cast f64 (index c 1)))",
            "0",
        );
        assert!(sums(&read).is_empty());
        // ... or reads it through an alias.
        let alias = module(
            "",
            "(expr (atomic-add c 0 :value i)) (set (index a i) (cast f64 (index e 1)))",
            "0",
        );
        assert!(sums(&alias).is_empty());
        // The index varies with the iteration.
        let varying = module("", "(expr (atomic-add c (- i i) :value 1))", "0");
        assert!(sums(&varying).is_empty());
        let assigned = module("", "(set k i) (expr (atomic-add c k :value 1))", "0");
        assert!(sums(&assigned).is_empty());
        // Floats: a partial sum rounds differently.
        let float = module("", "(expr (atomic-add x 0 :value 1.0))", "0");
        assert!(sums(&float).is_empty());
        // `dim` is no use of the elements.
        let dim = module("", "(expr (atomic-add c 0 :value (dim c 0)))", "0");
        assert_eq!(sums(&dim), vec![("c".into(), 1, 1)]);
    }
}
