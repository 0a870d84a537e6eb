//! NDRange mapping of a parfor kernel (issue 19 item 1, passes `ndrange-loops` and
//! `coalesce`).
//!
//! **ndrange-loops**: a parfor whose whole body is one serial `for` loop (`parfor i (for
//! j ...)`, the loop nest of `matmul_loops` and `stencil5`) gets one work item per
//! iteration of the parfor only, each running the `for` serially: 300 work items for a
//! 300 x 300 product, too few for a GPU, each walking a whole row. When the `for`
//! loop's iterations are provably independent, it becomes one more NDRange dimension
//! (one work item per `(i, j)`). Independent means here:
//! - its domain is one range whose bounds the CPU may evaluate before the kernel (the
//!   rules of merged parfors: no call, nothing that can fail, not the outer loop
//!   variables) and whose step is absent or a non-zero literal; the engine declines the
//!   task when a variable the bounds read is unassigned, so the CPU raises that error;
//! - every array element it writes has the loop variable `j` (or `j + c`) as one index
//!   (no `:neg`, no `:flat`), so distinct iterations write distinct elements; a written
//!   array is read only at the very indices it is written at; no atomics, no `break`,
//!   `j` never assigned;
//! - every scalar it assigns is assigned before it is read in each iteration (so each
//!   work item's private copy holds what the serial loop would hold);
//! - written arrays do not share storage with the other arrays of the body: checked in
//!   the kernel (two arrays in different device buffers never overlap). Where they do,
//!   the work items `(i, 0)` run the original serial loop and the others stop, so
//!   aliased arguments still see the serial order's values.
//!
//! Errors keep the serial order: a work item's number is `i * n_j + j`, the order the
//! serial loops meet `(i, j)` in, and the error slot keeps the lowest.
//!
//! **coalesce**: work-item dimension 0 is the one neighbouring work items differ in
//! (a warp on NVIDIA). The loop dimension whose variable indexes the fastest-varying
//! storage position (the last index of `row` arrays, the first of `col` arrays) most
//! often is placed there; the others follow in loop order. The serial numbering of work
//! items is unchanged (it follows the loop order, not the work-item dimensions).
//!
//! Counted per kernel in [`super::Kernel::passes`]: the loop made a dimension, the
//! loop dimension put on work-item dimension 0.

use super::{assigned_vars, check_domain_expr, names_in_expr, Reject};
use crate::vrir::ast::{BinOp, Block, Expr, Function, LValue, Literal, Stmt, StmtKind};
use crate::vrir::types::{Layout, Type};
use std::collections::BTreeSet;

/// A serial `for` made an NDRange dimension.
pub(super) struct Promotion<'a> {
    /// The `for` statement (its serial code runs where arrays alias).
    pub stmt: &'a Stmt,
    pub var: String,
    pub range: &'a Expr,
    pub body: &'a Block,
    /// (written array, another array of the body): the kernel checks they lie in
    /// different buffers.
    pub alias_pairs: Vec<(String, String)>,
    /// Variables the promoted bounds read (they must be assigned before the kernel).
    pub needs_set: Vec<String>,
}

/// `body` (a parfor's, after merging nested parfors with variables `outer`) as a
/// promoted `for`, or why not.
pub(super) fn promote<'a>(
    f: &Function,
    outer: &[String],
    body: &'a Block,
) -> Result<Promotion<'a>, Reject> {
    let [stmt] = body.stmts.as_slice() else {
        return Err("the body is not one loop".into());
    };
    let StmtKind::For {
        vars,
        domain,
        body: fb,
    } = &stmt.kind
    else {
        return Err("the body is not a `for` loop".into());
    };
    if outer.len() >= 3 {
        return Err("three dimensions already".into());
    }
    let [var] = vars.as_slice() else {
        return Err("a loop over a domain of several ranges".into());
    };
    let Expr::Range {
        start: Some(a),
        stop: Some(b),
        step,
    } = domain
    else {
        return Err("a loop domain that is not a range with both ends".into());
    };
    check_domain_expr(a)?;
    check_domain_expr(b)?;
    if let Some(st) = step {
        match st.as_ref() {
            Expr::Const { value } if matches!(int_literal(value), Some(s) if s != 0) => {}
            _ => return Err("a step that is not a non-zero literal".into()),
        }
    }
    let mut bound_names = BTreeSet::new();
    names_in_expr(domain, &mut bound_names);
    if bound_names.contains(var) || outer.iter().any(|v| bound_names.contains(v)) {
        return Err("bounds that depend on the outer loop variables".into());
    }
    let private = assigned_vars(&fb.stmts);
    if private.contains(var) {
        return Err(format!("the loop variable `{var}` is assigned in the body"));
    }
    if top_level_break(&fb.stmts) {
        return Err("a break".into());
    }
    // Writes and reads of arrays.
    let mut writes: Vec<(&String, &Vec<Expr>)> = Vec::new();
    let mut arrays: BTreeSet<String> = BTreeSet::new();
    let mut atomics = false;
    for s in crate::analysis::preorder(&fb.stmts) {
        if let StmtKind::Assign { targets, .. } = &s.kind {
            for t in targets {
                if let LValue::Index {
                    array,
                    indices,
                    flags,
                } = t
                {
                    if flags.negative || flags.flatten {
                        return Err(format!("a store into `{array}` with :neg or :flat"));
                    }
                    if !indices.iter().any(|e| is_var_plus_const(e, var)) {
                        return Err(format!(
                            "a store into `{array}` whose indices do not separate the iterations"
                        ));
                    }
                    if writes.iter().any(|(w, ix)| *w == array && *ix != indices) {
                        return Err(format!("stores into `{array}` at different indices"));
                    }
                    writes.push((array, indices));
                    arrays.insert(array.clone());
                }
            }
        }
        for e in crate::analysis::stmt_exprs(s) {
            crate::analysis::walk_expr(e, &mut |x| match x {
                Expr::Index { array, .. } => {
                    if let Expr::Var { name } = array.as_ref() {
                        arrays.insert(name.clone());
                    }
                }
                Expr::AtomicAdd { .. } | Expr::AtomicCas { .. } => atomics = true,
                _ => {}
            });
        }
    }
    if atomics {
        return Err("atomics".into());
    }
    // A written array is read only where this iteration writes it.
    let mut bad_read = None;
    for s in crate::analysis::preorder(&fb.stmts) {
        for e in crate::analysis::stmt_exprs(s) {
            crate::analysis::walk_expr(e, &mut |x| {
                if let Expr::Index { array, indices, .. } = x {
                    if let Expr::Var { name } = array.as_ref() {
                        if let Some((_, ix)) = writes.iter().find(|(w, _)| *w == name) {
                            if *ix != indices {
                                bad_read = Some(name.clone());
                            }
                        }
                    }
                }
            });
        }
    }
    if let Some(name) = bad_read {
        return Err(format!(
            "`{name}` is read at other indices than those it is written at"
        ));
    }
    // Scalars assigned in an iteration are assigned before they are read.
    let private: BTreeSet<String> = private
        .into_iter()
        .filter(|n| matches!(f.var_type(n), Some(Type::Scalar { .. })))
        .collect();
    defined_before_use(&fb.stmts, &private, &mut BTreeSet::new())?;
    let written: BTreeSet<&String> = writes.iter().map(|(w, _)| *w).collect();
    let mut alias_pairs = Vec::new();
    for w in &written {
        for x in &arrays {
            if x != *w && matches!(f.var_type(x), Some(Type::Array(_))) {
                alias_pairs.push(((*w).clone(), x.clone()));
            }
        }
    }
    Ok(Promotion {
        stmt,
        var: var.clone(),
        range: domain,
        body: fb,
        alias_pairs,
        needs_set: bound_names.into_iter().collect(),
    })
}

fn int_literal(l: &Literal) -> Option<i64> {
    match *l {
        Literal::I32(v) => Some(v as i64),
        Literal::I64(v) => Some(v),
        _ => None,
    }
}

/// `v`, `v + c`, `c + v` or `v - c` with `c` an integer literal: distinct values of `v`
/// give distinct values (wrapping addition is a bijection).
fn is_var_plus_const(e: &Expr, v: &str) -> bool {
    let is_v = |e: &Expr| matches!(e, Expr::Var { name } if name == v);
    let is_c = |e: &Expr| matches!(e, Expr::Const { value } if int_literal(value).is_some());
    match e {
        Expr::Var { .. } => is_v(e),
        Expr::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => (is_v(lhs) && is_c(rhs)) || (is_c(lhs) && is_v(rhs)),
        Expr::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => is_v(lhs) && is_c(rhs),
        _ => false,
    }
}

fn top_level_break(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::Block(b) => top_level_break(&b.stmts),
        StmtKind::If { then, els, .. } => {
            top_level_break(&then.stmts) || els.as_ref().is_some_and(|e| top_level_break(&e.stmts))
        }
        _ => false,
    })
}

/// Every read of a scalar in `private` comes after an assignment to it on every path
/// from the start of the iteration (`defined`: those assigned so far).
fn defined_before_use(
    stmts: &[Stmt],
    private: &BTreeSet<String>,
    defined: &mut BTreeSet<String>,
) -> Result<(), Reject> {
    let uses = |e: &Expr, defined: &BTreeSet<String>| -> Result<(), Reject> {
        let mut names = BTreeSet::new();
        names_in_expr(e, &mut names);
        match names
            .iter()
            .find(|n| private.contains(*n) && !defined.contains(*n))
        {
            Some(n) => Err(format!(
                "`{n}` may be read before it is assigned in an iteration"
            )),
            None => Ok(()),
        }
    };
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                uses(value, defined)?;
                for t in targets {
                    if let LValue::Index { indices, .. } = t {
                        for ix in indices {
                            uses(ix, defined)?;
                        }
                    }
                }
                for t in targets {
                    if let LValue::Var { name } = t {
                        defined.insert(name.clone());
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                uses(cond, defined)?;
                let mut d1 = defined.clone();
                defined_before_use(&then.stmts, private, &mut d1)?;
                let mut d2 = defined.clone();
                if let Some(e) = els {
                    defined_before_use(&e.stmts, private, &mut d2)?;
                }
                *defined = d1.intersection(&d2).cloned().collect();
            }
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                uses(domain, defined)?;
                let mut d = defined.clone();
                d.extend(vars.iter().cloned());
                defined_before_use(&body.stmts, private, &mut d)?;
            }
            StmtKind::While { cond, body } => {
                uses(cond, defined)?;
                let mut d = defined.clone();
                defined_before_use(&body.stmts, private, &mut d)?;
            }
            StmtKind::Block(b) => defined_before_use(&b.stmts, private, defined)?,
            _ => {
                for e in crate::analysis::stmt_exprs(s) {
                    uses(e, defined)?;
                }
            }
        }
    }
    Ok(())
}

/// The work-item order: entry `w` is the loop dimension on work-item dimension `w`. The
/// loop dimension whose variable most often indexes an array's fastest-varying storage
/// position goes first (when it beats loop dimension 0), the others follow in loop order.
pub(super) fn coalesced_order(f: &Function, loop_vars: &[String], stmts: &[Stmt]) -> Vec<usize> {
    let mut score = vec![0usize; loop_vars.len()];
    let mut count = |array: &str, indices: &[Expr], flatten: bool| {
        let Some(Type::Array(at)) = f.var_type(array) else {
            return;
        };
        if flatten || indices.len() != at.ndims as usize || indices.is_empty() {
            return;
        }
        let pos = match at.layout {
            Layout::Row => indices.len() - 1,
            Layout::Col => 0,
            Layout::Strided => return,
        };
        let mut names = BTreeSet::new();
        names_in_expr(&indices[pos], &mut names);
        let dims: Vec<usize> = (0..loop_vars.len())
            .filter(|d| names.contains(&loop_vars[*d]))
            .collect();
        if let [d] = dims.as_slice() {
            score[*d] += 1;
        }
    };
    for s in crate::analysis::preorder(stmts) {
        if let StmtKind::Assign { targets, .. } = &s.kind {
            for t in targets {
                if let LValue::Index {
                    array,
                    indices,
                    flags,
                } = t
                {
                    count(array, indices, flags.flatten);
                }
            }
        }
        for e in crate::analysis::stmt_exprs(s) {
            crate::analysis::walk_expr(e, &mut |x| match x {
                Expr::Index {
                    array,
                    indices,
                    flags,
                } => {
                    if let Expr::Var { name } = array.as_ref() {
                        count(name, indices, flags.flatten);
                    }
                }
                Expr::AtomicAdd { array, indices, .. } | Expr::AtomicCas { array, indices, .. } => {
                    count(array, indices, false)
                }
                _ => {}
            });
        }
    }
    let mut best = 0;
    for d in 1..score.len() {
        if score[d] > score[best] {
            best = d;
        }
    }
    let mut order = vec![best];
    order.extend((0..loop_vars.len()).filter(|d| *d != best));
    order
}
