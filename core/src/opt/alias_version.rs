//! `alias-version`: functions whose array parameters may share storage get a second
//! compiled version that assumes they do not, chosen at entry by testing the arguments'
//! address ranges. The VRIR is not changed: this pass decides which functions qualify
//! ([`overlap_pairs`]) and counts them (`functions_versioned`); the cpu backend emits the
//! no-alias version and the entry test (core/src/cpu/codegen/entry_versions.rs), with
//! the same decision, when the pass is on and the host has not already promised that
//! parameters never alias (`OptOptions::params_never_alias`).
//!
//! Why: without the promise, LLVM must assume a store through one parameter may change
//! what another parameter reads, which keeps loads in loops and blocks vectorization.
//! The no-alias version passes each array parameter's data pointer as an LLVM `noalias`
//! argument. That is only sound when every access of those arrays in the function is
//! through that pointer: LLVM's promise covers pointers derived from the argument, not
//! a data pointer reloaded from the array's descriptor (as a callee would, or a local
//! array that refers to the parameter). So a function qualifies only when each array
//! parameter appears solely as the array of an element read or write, or in `dim`, and
//! the function makes no calls (`call`, `map`) and, on the parallel backend, has no
//! `parfor` (outlined bodies reload pointers from an environment; the serial backend
//! compiles a parfor as a `for` loop). The counter is that of the serial backend.
//!
//! The entry test only needs the pairs where one side is written (reading the same
//! memory through two `noalias` pointers is allowed); a `:restrict` parameter is the
//! host's promise for that parameter and needs no test.

use super::{Counters, Pass, PassContext};
use crate::analysis::{stmt_exprs, sub_exprs, walk_stmts};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, Function, LValue, Module, StmtKind};
use crate::vrir::types::Type;
use crate::vrir::verify::expr_type;
use std::collections::BTreeSet;

pub const ALIAS_VERSION: Pass = Pass {
    name: "alias-version",
    summary: "compile a no-alias version of functions whose array parameters may overlap",
    run,
};

/// Whether every subscript is a scalar integer (an element access, not a slice).
fn element_subscripts(m: &Module, f: &Function, indices: &[Expr]) -> bool {
    indices
        .iter()
        .all(|i| matches!(expr_type(m, f, i), Ok(Type::Scalar { elem }) if elem.is_int()))
}

/// Checks that the array parameters in `params` occur in `e` only in the allowed places.
fn uses_ok(m: &Module, f: &Function, params: &BTreeSet<&str>, e: &Expr) -> bool {
    match e {
        Expr::Var { name } => !params.contains(name.as_str()),
        Expr::Call { .. } | Expr::Map { .. } => false,
        Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. }
            if params.contains(array.as_str()) =>
        {
            false
        }
        Expr::Dim { arg, .. } if matches!(&**arg, Expr::Var { .. }) => true,
        Expr::Index {
            array,
            indices,
            flags,
        } if matches!(&**array, Expr::Var { name } if params.contains(name.as_str())) => {
            !flags.view
                && element_subscripts(m, f, indices)
                && indices.iter().all(|i| uses_ok(m, f, params, i))
        }
        _ => sub_exprs(e).into_iter().all(|c| uses_ok(m, f, params, c)),
    }
}

/// The pairs of array parameters (indices into `f.params`) whose storage the entry must
/// test for overlap before running the no-alias version; `None` when `f` gets none.
/// `parallel`: for the parallel backend (`cpu-par`), where parfor bodies are outlined.
pub fn overlap_pairs(
    m: &Module,
    f: &Function,
    params_never_alias: bool,
    parallel: bool,
) -> Option<Vec<(usize, usize)>> {
    if params_never_alias {
        return None;
    }
    let arrays: Vec<usize> = (0..f.params.len())
        .filter(|&k| matches!(f.params[k].ty, Type::Array(_)))
        .collect();
    if arrays.len() < 2 {
        return None;
    }
    let names: BTreeSet<&str> = arrays.iter().map(|&k| f.params[k].name.as_str()).collect();
    let mut ok = true;
    let mut written: BTreeSet<&str> = BTreeSet::new();
    walk_stmts(&f.body, &mut |s| {
        if parallel && matches!(s.kind, StmtKind::Parfor { .. }) {
            ok = false;
        }
        if let StmtKind::Assign { targets, .. } = &s.kind {
            for t in targets {
                match t {
                    LValue::Index { array, indices, .. } if names.contains(array.as_str()) => {
                        if !element_subscripts(m, f, indices) {
                            ok = false;
                        }
                        written.insert(array.as_str());
                    }
                    LValue::Var { name } if names.contains(name.as_str()) => ok = false,
                    _ => {}
                }
            }
        }
        if matches!(&s.kind, StmtKind::Alloc { var, .. } | StmtKind::Free { var } if names.contains(var.as_str()))
        {
            ok = false;
        }
        if matches!(&s.kind, StmtKind::RefIncr { var } | StmtKind::RefDecr { var } if names.contains(var.as_str()))
        {
            ok = false;
        }
        if !stmt_exprs(s).into_iter().all(|e| uses_ok(m, f, &names, e)) {
            ok = false;
        }
    });
    if !ok {
        return None;
    }
    let mut pairs = Vec::new();
    for (x, &i) in arrays.iter().enumerate() {
        for &j in &arrays[x + 1..] {
            let (p, q) = (&f.params[i], &f.params[j]);
            let one_written =
                written.contains(p.name.as_str()) || written.contains(q.name.as_str());
            if one_written && !p.restrict && !q.restrict {
                pairs.push((i, j));
            }
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let versioned = overlap_pairs(cx.module, f, cx.options.params_never_alias, false).is_some();
    *counters.entry("functions_versioned").or_default() += versioned as u64;
    Ok(())
}
