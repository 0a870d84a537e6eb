//! NDRange mapping of a parfor kernel (issue 19 item 1, passes `ndrange-loops` and
//! `coalesce`).
//!
//! **ndrange-loops**: a parfor whose body is one serial `for` loop (`parfor i (for
//! j ...)`, the loop nest of `matmul_loops`, `stencil5`, `julia_set`, R's `for (i in
//! prange(n)) for (j in 1:m)`), after scalar assignments that cannot fail (each work item
//! makes them; the bounds see them substituted), gets one work item per
//! iteration of the parfor only, each running the `for` serially: 300 work items for a
//! 300 x 300 product, too few for a GPU, each walking a whole row. When the `for`
//! loop's iterations are provably independent, it becomes one more NDRange dimension
//! (one work item per `(i, j)`). Independent means here:
//! - its domain is one range whose bounds the CPU may evaluate before the kernel (the
//!   rules of merged parfors: no call, nothing that can fail, not the outer loop
//!   variables) and whose step is absent or a non-zero literal; the engine declines the
//!   task when a variable the bounds read is unassigned, so the CPU raises that error;
//! - its step is absent, a non-zero literal or R's direction `2 * (a <= b) - 1`;
//! - a loop `bce-version` split into `if (test) unchecked-copy else checked-copy` counts
//!   when both copies qualify over the same domain (the test stays in every work item);
//! - every array element it writes has the loop variable `j` (or `j + c`, or a copy
//!   `(set jj (cast i32 j))` made once at the top of the body) as one index
//!   (no `:neg`, no `:flat`), so distinct iterations write distinct elements; stores of
//!   one array at several indices share one such index at one position (growcut's
//!   `state_next[i, j, 0]` and `[i, j, 1]`); a written array is read only at the very
//!   indices of one of its stores; no `break`, `j` never
//!   assigned; the only atomics are atomic-adds into integer arrays that nothing else
//!   in the body touches, whose results nothing reads (growcut's count of changes:
//!   integer sums are the same in any order);
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
use crate::vrir::ast::{BinOp, Block, Expr, Function, LValue, Literal, Module, Stmt, StmtKind};
use crate::vrir::types::{Layout, Type};
use std::collections::BTreeSet;

/// A serial `for` made an NDRange dimension.
pub(super) struct Promotion<'a> {
    /// The parfor body's statements: the scalar assignments before the loop, then the
    /// `for` (their serial code runs where arrays alias).
    pub original: &'a [Stmt],
    pub var: String,
    /// The loop's range with the assignments before it substituted (the CPU evaluates it).
    pub range: Expr,
    /// The kernel body: the assignments before the loop (each work item makes them), then
    /// the loop's body.
    pub body: Block,
    /// Variables that hold the loop variables (`(set i (cast i32 _i3))`, as R's front
    /// end writes), with the loop variable each copies.
    pub copies: Vec<(String, String)>,
    /// (written array, another array of the body): the kernel checks they lie in
    /// different buffers.
    pub alias_pairs: Vec<(String, String)>,
    /// Variables the promoted bounds read (they must be assigned before the kernel).
    pub needs_set: Vec<String>,
}

/// `body` (a parfor's, after merging nested parfors with variables `outer`) as a
/// promoted `for`, or why not.
pub(super) fn promote<'a>(
    m: &Module,
    f: &Function,
    outer: &[String],
    body: &'a Block,
) -> Result<Promotion<'a>, Reject> {
    let Some((stmt, pre)) = body.stmts.split_last() else {
        return Err("an empty body".into());
    };
    // Scalar assignments before the loop (`x = f(i)`): every work item makes them; they
    // cannot fail (so a loop of no iterations loses no error) and what they read must be
    // assigned before the kernel (the engine checks).
    let mut defs: Vec<(String, Expr)> = Vec::new();
    let mut pre_reads = BTreeSet::new();
    let mut copies = Vec::new();
    for p in pre {
        let StmtKind::Assign { targets, value } = &p.kind else {
            return Err("statements before the loop other than assignments".into());
        };
        let [LValue::Var { name }] = targets.as_slice() else {
            return Err("a store before the loop".into());
        };
        if outer.contains(name) || !matches!(f.var_type(name), Some(Type::Scalar { .. })) {
            return Err(format!("an assignment to `{name}` before the loop"));
        }
        cannot_fail(m, f, value)?;
        let mut names = BTreeSet::new();
        names_in_expr(value, &mut names);
        for n in names {
            if !outer.contains(&n) && !defs.iter().any(|(d, _)| *d == n) {
                pre_reads.insert(n);
            }
        }
        if let Some(v) = copy_of(value) {
            if outer.iter().any(|o| o == v) {
                copies.push((name.clone(), v.to_string()));
            }
        }
        let mut e = value.clone();
        for (d, de) in defs.iter().rev() {
            substitute(&mut e, d, de);
        }
        defs.retain(|(d, _)| d != name);
        defs.push((name.clone(), e));
    }
    if outer.len() >= 3 {
        return Err("three dimensions already".into());
    }
    let mut needs_set: BTreeSet<String> = pre_reads;
    let mut stmts: Vec<Stmt> = pre.to_vec();
    let info = match &stmt.kind {
        StmtKind::For { .. } => {
            let info = analyse_for(m, f, outer, &defs, stmt)?;
            stmts.extend(info.body.stmts.iter().cloned());
            info
        }
        // A loop the optimizer versioned (`bce-version`: an unchecked copy where a test
        // before the loop shows every access in bounds): both copies are analysed, the
        // test (the same in every work item of a row) stays in the kernel.
        StmtKind::If {
            cond,
            then,
            els: Some(els),
        } => {
            let ([a], [b]) = (then.stmts.as_slice(), els.stmts.as_slice()) else {
                return Err("the body does not end in a loop".into());
            };
            cannot_fail(m, f, cond)?;
            let mut names = BTreeSet::new();
            names_in_expr(cond, &mut names);
            needs_set.extend(
                names
                    .into_iter()
                    .filter(|n| !outer.contains(n) && !defs.iter().any(|(d, _)| d == n)),
            );
            let ia = analyse_for(m, f, outer, &defs, a)?;
            let ib = analyse_for(m, f, outer, &defs, b)?;
            // The ranges have the assignments before the loop substituted: so must the test.
            let mut test = cond.clone();
            for (d, de) in defs.iter().rev() {
                substitute(&mut test, d, de);
            }
            if ia.var != ib.var || !same_domain(&ia.range, &ib.range, &test) {
                return Err("two versions of the loop over different domains".into());
            }
            stmts.push(Stmt {
                kind: StmtKind::If {
                    cond: cond.clone(),
                    then: ia.body.clone(),
                    els: Some(ib.body.clone()),
                },
                ..stmt.clone()
            });
            // The checked copy's domain as written: where the test holds, its step is
            // the unchecked copy's 1.
            let mut info = ForInfo { range: ib.range.clone(), ..ia };
            info.alias_pairs.extend(ib.alias_pairs);
            info.copies.retain(|c| ib.copies.contains(c));
            info
        }
        _ => return Err("the body does not end in a `for` loop".into()),
    };
    // The kernel sets the loop variable before the statements before the loop run: they
    // (and a version test) must neither read nor assign it.
    if needs_set.contains(&info.var) || defs.iter().any(|(d, _)| *d == info.var) {
        return Err(format!(
            "`{}` is read or assigned before the loop",
            info.var
        ));
    }
    needs_set.extend(info.bound_names);
    copies.extend(info.copies);
    Ok(Promotion {
        original: &body.stmts,
        var: info.var,
        range: info.range,
        body: Block {
            on_gpu: body.on_gpu,
            stmts,
        },
        copies,
        alias_pairs: info.alias_pairs,
        needs_set: needs_set.into_iter().collect(),
    })
}

/// The two copies of a versioned loop run over one domain: equal ranges, or the
/// unchecked copy `fast` stepping by 1 where the checked copy `checked` steps by an
/// expression the version test `cond` finds equal to 1 (`bce-version` on R's `a:b`).
fn same_domain(fast: &Expr, checked: &Expr, cond: &Expr) -> bool {
    if fast == checked {
        return true;
    }
    let (
        Expr::Range { start: a, stop: b, step: None },
        Expr::Range { start: c, stop: d, step: Some(step) },
    ) = (fast, checked)
    else {
        return false;
    };
    fn asserts_unit(cond: &Expr, step: &Expr) -> bool {
        match cond {
            Expr::Binary { op: BinOp::And, lhs, rhs } => {
                asserts_unit(lhs, step) || asserts_unit(rhs, step)
            }
            Expr::Binary { op: BinOp::Eq, lhs, rhs } => {
                lhs.as_ref() == step && **rhs == Expr::i64(1)
            }
            _ => false,
        }
    }
    a == c && b == d && asserts_unit(cond, step)
}

/// What makes one `for` loop's iterations independent (see the module's doc).
struct ForInfo<'a> {
    var: String,
    range: Expr,
    body: &'a Block,
    copies: Vec<(String, String)>,
    alias_pairs: Vec<(String, String)>,
    bound_names: BTreeSet<String>,
}

fn analyse_for<'a>(
    m: &Module,
    f: &Function,
    outer: &[String],
    defs: &[(String, Expr)],
    stmt: &'a Stmt,
) -> Result<ForInfo<'a>, Reject> {
    let _ = m;
    let mut copies = Vec::new();
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
    let mut range = domain.clone();
    for (d, de) in defs.iter().rev() {
        substitute(&mut range, d, de);
    }
    let Expr::Range {
        start: Some(a),
        stop: Some(b),
        step,
    } = &range
    else {
        return Err("a loop domain that is not a range with both ends".into());
    };
    check_domain_expr(a)?;
    check_domain_expr(b)?;
    if let Some(st) = step {
        if !nonzero_step(st) {
            return Err("a step that may be zero".into());
        }
    }
    let mut bound_names = BTreeSet::new();
    names_in_expr(&range, &mut bound_names);
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
    // Copies of the loop variable made at the top of the body and never assigned again
    // (`(set j (cast i32 _i4))`): distinct iterations give them distinct values (fewer
    // than 2^31 iterations, so even a cast to i32 keeps them apart).
    let mut loopish = vec![var.clone()];
    for s in &fb.stmts {
        if let StmtKind::Assign { targets, value } = &s.kind {
            if let ([LValue::Var { name }], Some(v)) = (targets.as_slice(), copy_of(value)) {
                let assignments = crate::analysis::preorder(&fb.stmts)
                    .iter()
                    .filter(|s| {
                        matches!(&s.kind, StmtKind::Assign { targets, .. }
                            if targets.iter().any(|t| matches!(t, LValue::Var { name: n } if n == name)))
                    })
                    .count();
                if v == var && assignments == 1 && int_var(f, name) {
                    loopish.push(name.clone());
                    copies.push((name.clone(), var.clone()));
                }
            }
        }
    }
    // Writes and reads of arrays.
    let mut writes: Vec<(&String, &Vec<Expr>)> = Vec::new();
    let mut arrays: BTreeSet<String> = BTreeSet::new();
    // Integer atomic-adds whose result nothing reads: (array, the atomic-add itself).
    let mut sums: Vec<(String, *const Expr)> = Vec::new();
    let mut atomics = None;
    for s in crate::analysis::preorder(&fb.stmts) {
        if let Some((array, site)) = unread_integer_sum(f, s) {
            sums.push((array, site as *const Expr));
        }
    }
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
                    if !indices
                        .iter()
                        .any(|e| loopish.iter().any(|v| is_var_plus_const(e, v)))
                    {
                        return Err(format!(
                            "a store into `{array}` whose indices do not separate the iterations"
                        ));
                    }
                    // Stores of one array at several indices (growcut's
                    // `state_next[i, j, 0]` and `[i, j, 1]`) keep iterations apart when
                    // one position holds the same iteration-separating index in all.
                    let separated = |ix: &Vec<Expr>| {
                        indices.iter().zip(ix).any(|(a, b)| {
                            a == b && loopish.iter().any(|v| is_var_plus_const(a, v))
                        })
                    };
                    if writes
                        .iter()
                        .any(|(w, ix)| *w == array && *ix != indices && !separated(ix))
                    {
                        return Err(format!(
                            "stores into `{array}` at indices that do not separate the iterations alike"
                        ));
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
                Expr::AtomicAdd { .. } if sums.iter().any(|(_, e)| std::ptr::eq(*e, x)) => {}
                Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
                    atomics = Some(array.clone())
                }
                _ => {}
            });
        }
    }
    if let Some(a) = atomics {
        return Err(format!(
            "an atomic into `{a}` other than an integer atomic-add whose result is unread"
        ));
    }
    // The sums' arrays are touched by nothing else in the body: the total is the same
    // in any order of the iterations (integer addition), and no iteration sees another's
    // part.
    for (a, _) in &sums {
        if arrays.contains(a) {
            return Err(format!("`{a}` is read or written besides its atomic-add"));
        }
    }
    // A written array is read only where this iteration writes it.
    let mut bad_read = None;
    for s in crate::analysis::preorder(&fb.stmts) {
        for e in crate::analysis::stmt_exprs(s) {
            crate::analysis::walk_expr(e, &mut |x| {
                if let Expr::Index { array, indices, .. } = x {
                    if let Expr::Var { name } = array.as_ref() {
                        let mut stored = writes.iter().filter(|(w, _)| *w == name).peekable();
                        if stored.peek().is_some() && !stored.any(|(_, ix)| *ix == indices) {
                            bad_read = Some(name.clone());
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
    let written: BTreeSet<&String> = writes
        .iter()
        .map(|(w, _)| *w)
        .chain(sums.iter().map(|(a, _)| a))
        .collect();
    let mut alias_pairs = Vec::new();
    for w in &written {
        for x in &arrays {
            if x != *w && matches!(f.var_type(x), Some(Type::Array(_))) {
                alias_pairs.push(((*w).clone(), x.clone()));
            }
        }
    }
    Ok(ForInfo {
        var: var.clone(),
        range,
        body: fb,
        copies,
        alias_pairs,
        bound_names,
    })
}

/// `s` as an atomic-add into an integer array whose result is unread: `(expr
/// (atomic-add A ...))`, or `(set v (atomic-add A ...))` with `v` a scalar the function
/// reads nowhere (growcut's `(set old (atomic-add changes 0 :value c))`). Its value
/// operand and indices may be anything the rest of the analysis accepts. Gives the
/// array and the atomic-add itself (another atomic into the same array is judged on
/// its own).
fn unread_integer_sum<'s>(f: &Function, s: &'s Stmt) -> Option<(String, &'s Expr)> {
    let (target, value) = match &s.kind {
        StmtKind::Expr { expr } => (None, expr),
        StmtKind::Assign { targets, value } => match targets.as_slice() {
            [LValue::Var { name }] => (Some(name.clone()), value),
            _ => return None,
        },
        _ => return None,
    };
    let Expr::AtomicAdd { array, .. } = value else {
        return None;
    };
    let integer = matches!(
        f.var_type(array),
        Some(Type::Array(a)) if matches!(
            a.elem,
            crate::vrir::types::ScalarType::I32 | crate::vrir::types::ScalarType::I64
        )
    );
    if !integer {
        return None;
    }
    if let Some(v) = &target {
        let mut read = false;
        for st in crate::analysis::preorder(&f.body) {
            for e in crate::analysis::stmt_exprs(st) {
                crate::analysis::walk_expr(e, &mut |x| {
                    read |= matches!(x, Expr::Var { name } if name == v);
                });
            }
        }
        if read {
            return None;
        }
    }
    Some((array.clone(), value))
}

fn int_var(f: &Function, n: &str) -> bool {
    matches!(
        f.var_type(n),
        Some(Type::Scalar {
            elem: crate::vrir::types::ScalarType::I32 | crate::vrir::types::ScalarType::I64
        })
    )
}

/// `v` or `(cast T v)` of a variable `v`: the variable.
fn copy_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Var { name } => Some(name),
        Expr::Cast {
            to:
                Type::Scalar {
                    elem: crate::vrir::types::ScalarType::I32 | crate::vrir::types::ScalarType::I64,
                },
            arg,
        } => match arg.as_ref() {
            Expr::Var { name } => Some(name),
            _ => None,
        },
        _ => None,
    }
}

fn substitute(e: &mut Expr, name: &str, value: &Expr) {
    if matches!(e, Expr::Var { name: n } if n == name) {
        *e = value.clone();
        return;
    }
    for c in crate::opt::sub_exprs_mut(e) {
        substitute(c, name, value);
    }
}

/// A step that cannot be zero: a non-zero literal, or R's `1:n` direction
/// `2 * (cast (<= a b)) - 1` (1 or -1) of bounds the CPU may evaluate.
fn nonzero_step(e: &Expr) -> bool {
    match e {
        Expr::Const { value } => matches!(int_literal(value), Some(s) if s != 0),
        Expr::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => {
            let one =
                matches!(rhs.as_ref(), Expr::Const { value } if int_literal(value) == Some(1));
            let twice_bool = match lhs.as_ref() {
                Expr::Binary {
                    op: BinOp::Mul,
                    lhs: two,
                    rhs: c,
                } => {
                    matches!(two.as_ref(), Expr::Const { value } if int_literal(value) == Some(2))
                        && match c.as_ref() {
                            Expr::Cast { arg, .. } => match arg.as_ref() {
                                Expr::Binary { op, lhs, rhs } if op.is_comparison() => {
                                    check_domain_expr(lhs).is_ok() && check_domain_expr(rhs).is_ok()
                                }
                                _ => false,
                            },
                            _ => false,
                        }
                }
                _ => false,
            };
            one && twice_bool
        }
        _ => false,
    }
}

/// Scalar code that cannot fail once the variables it reads are assigned: constants,
/// variables, `+ - *`, float `/`, comparisons, negation, `not`, and casts that cannot
/// fail (to floats or bool, between integers, from bool).
fn cannot_fail(m: &Module, f: &Function, e: &Expr) -> Result<(), Reject> {
    use crate::vrir::types::ScalarType;
    let float = |x: &Expr| {
        crate::vrir::verify::expr_type(m, f, x)
            .ok()
            .is_some_and(|t| matches!(t, Type::Scalar { elem } if elem.is_float()))
    };
    match e {
        Expr::Const { .. } => Ok(()),
        Expr::Var { name } => match f.var_type(name) {
            Some(Type::Scalar { .. }) => Ok(()),
            _ => Err(format!("`{name}` is not a scalar")),
        },
        Expr::Unary { arg, .. } => cannot_fail(m, f, arg),
        Expr::Binary { op, lhs, rhs } => {
            let ok = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                || op.is_comparison()
                || op.is_logical()
                || (*op == BinOp::Div && float(lhs));
            if !ok {
                return Err(format!("operator {} before the loop", op.symbol()));
            }
            cannot_fail(m, f, lhs)?;
            cannot_fail(m, f, rhs)
        }
        Expr::Cast {
            to: Type::Scalar { elem: to },
            arg,
        } => {
            let from_float = float(arg);
            if to.is_int() && from_float {
                return Err("a cast from float to integer before the loop".into());
            }
            if matches!(to, ScalarType::C64 | ScalarType::C128) {
                return Err("complex numbers".into());
            }
            cannot_fail(m, f, arg)
        }
        _ => Err("an expression before the loop that may fail".into()),
    }
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
pub(super) fn coalesced_order(
    f: &Function,
    loop_vars: &[String],
    stmts: &[Stmt],
    copies: &[(String, String)],
) -> Vec<usize> {
    let mut score = vec![0usize; loop_vars.len()];
    let dim_of = |n: &str| {
        let n = copies
            .iter()
            .find(|(c, _)| c == n)
            .map_or(n, |(_, v)| v.as_str());
        loop_vars.iter().position(|v| v == n)
    };
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
        let dims: BTreeSet<usize> = names.iter().filter_map(|n| dim_of(n)).collect();
        let dims: Vec<usize> = dims.into_iter().collect();
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
