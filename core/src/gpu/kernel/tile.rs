//! Local-memory tiling of a serial loop inside a 2-D kernel (issue 19 item 1, pass
//! `tile-local`; the jit4opencl thesis' tiling of regular affine accesses).
//!
//! What: in a kernel of two NDRange dimensions (`i`, `j`, after `ndrange-loops`) whose
//! body is `pre; (for k lo..hi) body_k; post`, every read `X[..., k, ...]` of `body_k`
//! whose other indices depend on one loop dimension only (`a[i, k]`, `b[k, j]`) is read
//! from a 16 x 16 tile in local memory: the work group loads the tile once per 16 values
//! of `k`, each work item one element (neighbouring work items neighbouring elements),
//! and every work item of the row (or column) reads it from there. The matrix product as
//! a loop nest (`matmul_loops`) reads each element of `a` and `b` from global memory 16
//! times less.
//!
//! Why it keeps the results: each work item still runs `k` from `lo` to `hi` in order and
//! computes the same operations (`s = s + a[i,k] * b[k,j]` adds in the serial order), only
//! the place a value is read from changes; a tile element is the element the work item
//! would have read, loaded by a work item with the same `i` (or `j`).
//!
//! Errors: every check of the original body stays, made by the work item that reads
//! (bounds of its own indices, unassigned variables); loads are guarded by bounds, so a
//! failing read never touches memory. Barriers must be reached by every work item of a
//! group, so inside the tiled part a failing check records the error (the work item's
//! first, in its serial order) and marks the work item dead instead of returning; dead
//! work items (and the ones padding the NDRange to whole groups) keep loading tiles and
//! reach every barrier, compute nothing that is kept, and stop after the loop. So that
//! continuing after a failed check cannot trap or store, `pre` is scalar assignments
//! and `body_k` scalar assignments of `+ - *`, float `/`, negation, constants,
//! variables and tiled reads; `post` runs as usual.
//!
//! Counted per kernel in [`super::Kernel::passes`]: the loop tiled and its tiled arrays.

use super::{
    assigned_vars, c_type, check_domain_expr, literal, mem_type, names_in_expr, Gen, Reject,
};
use crate::vrir::ast::{BinOp, Expr, Function, LValue, Literal, Module, Stmt, StmtKind, UnOp};
use crate::vrir::types::{ScalarType, Type};
use std::collections::BTreeSet;

/// Work-group extent in each of the two dimensions.
pub(super) const TILE: usize = 16;

/// A read served from a tile.
pub(super) struct TiledRead<'a> {
    pub array: String,
    pub indices: &'a [Expr],
    /// The index position holding the tiled loop's variable.
    pub kpos: usize,
    /// The loop dimension the other indices depend on (None: on none).
    pub dim: Option<usize>,
}

pub(super) struct TilePlan<'a> {
    pre: &'a [Stmt],
    kvar: String,
    lo: &'a Expr,
    hi: &'a Expr,
    kbody: &'a [Stmt],
    post: &'a [Stmt],
    reads: Vec<TiledRead<'a>>,
}

impl TilePlan<'_> {
    /// What fired, for `explain`.
    pub fn describe(&self) -> String {
        let names: BTreeSet<&str> = self.reads.iter().map(|r| r.array.as_str()).collect();
        format!(
            "loop over `{}` tiled {TILE}x{TILE} in local memory ({} read(s) of {})",
            self.kvar,
            self.reads.len(),
            names.into_iter().collect::<Vec<_>>().join(", ")
        )
    }
}

fn int_var(f: &Function, n: &str) -> bool {
    matches!(
        f.var_type(n),
        Some(Type::Scalar {
            elem: ScalarType::I64
        })
    )
}

/// `body` (the kernel's, over `loop_vars`) as a tiled loop, or why not.
pub(super) fn plan<'a>(
    m: &Module,
    f: &Function,
    loop_vars: &[String],
    body: &'a [Stmt],
) -> Result<TilePlan<'a>, Reject> {
    if loop_vars.len() != 2 {
        return Err("not a 2-D kernel".into());
    }
    let Some(p) = body
        .iter()
        .position(|s| matches!(s.kind, StmtKind::For { .. }))
    else {
        return Err("no serial loop".into());
    };
    let (pre, rest) = body.split_at(p);
    let (lp, post) = (&rest[0], &rest[1..]);
    let StmtKind::For {
        vars,
        domain,
        body: kb,
    } = &lp.kind
    else {
        unreachable!("found above")
    };
    let [kvar] = vars.as_slice() else {
        return Err("a loop over several ranges".into());
    };
    let Expr::Range {
        start: Some(lo),
        stop: Some(hi),
        step,
    } = domain
    else {
        return Err("a loop domain that is not a range".into());
    };
    if let Some(st) = step {
        if !matches!(
            st.as_ref(),
            Expr::Const {
                value: Literal::I64(1) | Literal::I32(1)
            }
        ) {
            return Err("a step other than 1".into());
        }
    }
    check_domain_expr(lo)?;
    check_domain_expr(hi)?;
    let assigned = assigned_vars(body);
    let mut bound_names = BTreeSet::new();
    names_in_expr(domain, &mut bound_names);
    if bound_names
        .iter()
        .any(|n| assigned.contains(n) || loop_vars.contains(n))
    {
        return Err("loop bounds that differ between work items".into());
    }
    if !int_var(f, kvar) {
        return Err("a loop variable that is not i64".into());
    }
    // pre: scalar assignments of simple values without reads.
    for s in pre {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return Err("statements before the loop other than scalar assignments".into());
        };
        let [LValue::Var { .. }] = targets.as_slice() else {
            return Err("a store before the loop".into());
        };
        simple(m, f, value, None, &mut Vec::new())?;
    }
    let mut reads = Vec::new();
    for s in &kb.stmts {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return Err("a loop body other than scalar assignments".into());
        };
        let [LValue::Var { name }] = targets.as_slice() else {
            return Err("a store in the loop".into());
        };
        if name == kvar || !matches!(f.var_type(name), Some(Type::Scalar { .. })) {
            return Err(format!("an assignment to `{name}` in the loop"));
        }
        let tiled = Tiled {
            kvar,
            loop_vars,
            assigned: &assigned,
        };
        simple(m, f, value, Some(&tiled), &mut reads)?;
    }
    if reads.is_empty() {
        return Err("no read to tile".into());
    }
    Ok(TilePlan {
        pre,
        kvar: kvar.clone(),
        lo,
        hi,
        kbody: &kb.stmts,
        post,
        reads,
    })
}

struct Tiled<'x> {
    kvar: &'x str,
    loop_vars: &'x [String],
    assigned: &'x BTreeSet<String>,
}

/// Whether `e` is made of what continuing after a failed check cannot make trap (see the
/// module's doc), collecting its tiled reads (reads allowed only with `tiled`).
fn simple<'a>(
    m: &Module,
    f: &Function,
    e: &'a Expr,
    tiled: Option<&Tiled>,
    reads: &mut Vec<TiledRead<'a>>,
) -> Result<(), Reject> {
    match e {
        Expr::Const { .. } => Ok(()),
        Expr::Var { name } => match f.var_type(name) {
            Some(Type::Scalar { .. }) => Ok(()),
            _ => Err(format!("`{name}` is not a scalar")),
        },
        Expr::Unary { op: UnOp::Neg, arg } => simple(m, f, arg, tiled, reads),
        Expr::Binary { op, lhs, rhs } => {
            let ok = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => true,
                BinOp::Div => matches!(
                    crate::vrir::verify::expr_type(m, f, lhs).ok(),
                    Some(Type::Scalar { elem }) if elem.is_float()
                ),
                _ => false,
            };
            if !ok {
                return Err(format!("operator {} in the loop", op.symbol()));
            }
            simple(m, f, lhs, tiled, reads)?;
            simple(m, f, rhs, tiled, reads)
        }
        Expr::Index {
            array,
            indices,
            flags,
        } => {
            let Some(t) = tiled else {
                return Err("an array read outside the loop".into());
            };
            let Expr::Var { name } = array.as_ref() else {
                return Err("indexing an expression".into());
            };
            let Some(Type::Array(at)) = f.var_type(name) else {
                return Err(format!("`{name}` is not an array"));
            };
            if flags.negative
                || flags.flatten
                || indices.len() != at.ndims as usize
                || at.elem == ScalarType::Bool
                || c_type(at.elem).is_err()
            {
                return Err(format!("a read of `{name}` that is not a plain element"));
            }
            let kpos: Vec<usize> = (0..indices.len())
                .filter(|p| matches!(&indices[*p], Expr::Var { name } if name == t.kvar))
                .collect();
            let [kpos] = kpos.as_slice() else {
                return Err(format!(
                    "a read of `{name}` without the loop variable as one index"
                ));
            };
            let mut dims = BTreeSet::new();
            for (p, ix) in indices.iter().enumerate() {
                if p != *kpos {
                    pure_index(f, ix, t, &mut dims)?;
                }
            }
            if dims.len() > 1 {
                return Err(format!("a read of `{name}` depending on both dimensions"));
            }
            if !reads
                .iter()
                .any(|r: &TiledRead| r.array == *name && r.indices == indices.as_slice())
            {
                reads.push(TiledRead {
                    array: name.clone(),
                    indices,
                    kpos: *kpos,
                    dim: dims.into_iter().next(),
                });
            }
            Ok(())
        }
        _ => Err("an expression the tiled loop does not take".into()),
    }
}

/// An i64 index of `+ - *`, literals, the loop variables and variables no work item
/// assigns (so every work item of a row computes the same value); `dims`: the loop
/// dimensions it reads.
fn pure_index(f: &Function, e: &Expr, t: &Tiled, dims: &mut BTreeSet<usize>) -> Result<(), Reject> {
    match e {
        Expr::Const {
            value: Literal::I64(_),
        } => Ok(()),
        Expr::Var { name } if int_var(f, name) => {
            if let Some(d) = t.loop_vars.iter().position(|v| v == name) {
                dims.insert(d);
                Ok(())
            } else if name == t.kvar || t.assigned.contains(name) {
                Err(format!("an index reading `{name}`"))
            } else {
                Ok(())
            }
        }
        Expr::Binary {
            op: BinOp::Add | BinOp::Sub | BinOp::Mul,
            lhs,
            rhs,
        } => {
            pure_index(f, lhs, t, dims)?;
            pure_index(f, rhs, t, dims)
        }
        _ => Err("an index the tile loader cannot compute".into()),
    }
}

impl Gen<'_> {
    /// A pure i64 index (checked by [`pure_index`]) as C, wrapping as the checked code does.
    fn pure_c(&self, e: &Expr) -> Result<String, Reject> {
        Ok(match e {
            Expr::Const { value } => literal(value)?.0,
            Expr::Var { name } => self.var(name)?.c,
            Expr::Binary { op, lhs, rhs } => format!(
                "((long)((ulong)({}) {} (ulong)({})))",
                self.pure_c(lhs)?,
                op.symbol(),
                self.pure_c(rhs)?
            ),
            _ => return Err("an index the tile loader cannot compute".into()),
        })
    }

    /// The kernel body of `plan`; `work_dims[w]`: the loop dimension on work-item
    /// dimension `w`. The prologue defines `vr_dead` (1 for padding work items).
    pub(super) fn tiled(&mut self, plan: &TilePlan, work_dims: &[usize]) -> Result<(), Reject> {
        let wi = |d: usize| work_dims.iter().position(|x| *x == d).unwrap_or(d);
        for (n, r) in plan.reads.iter().enumerate() {
            let Type::Array(at) = self.var(&r.array)?.ty else {
                return Err("not an array".into());
            };
            self.line(&format!(
                "__local {} vr_tile{n}[{TILE}][{}];",
                mem_type(at.elem)?,
                TILE + 1
            ));
        }
        self.dead_mode = true;
        self.block(plan.pre)?;
        let lo = self.int64(plan.lo)?;
        let hi = self.int64(plan.hi)?;
        self.line("{");
        self.indent += 1;
        self.line(&format!("long vr_tlo = {lo}, vr_thi = {hi};"));
        self.line("ulong vr_tcnt = vr_thi >= vr_tlo ? (ulong)vr_thi - (ulong)vr_tlo + 1 : 0;");
        self.line(&format!(
            "for (ulong vr_tc = 0; vr_tc < vr_tcnt; vr_tc += {TILE}) {{"
        ));
        self.indent += 1;
        let base = self.m.index_base as i64;
        let mut reads_c = Vec::new();
        for (n, r) in plan.reads.iter().enumerate() {
            // The work item at (own, other) loads element `other` of the tile's row `own`.
            let own = r.dim.map(wi).unwrap_or(0);
            let other = 1 - own;
            let kv = self.var(&r.array)?;
            let mut idx = Vec::new();
            for (p, ix) in r.indices.iter().enumerate() {
                idx.push(if p == r.kpos {
                    format!("(long)((ulong)vr_tlo + vr_tc + get_local_id({other}))")
                } else {
                    self.pure_c(ix)?
                });
            }
            let mut guard = vec![format!("{}_set", kv.c)];
            let mut offset = format!("{}_off", kv.c);
            for (p, i) in idx.iter().enumerate() {
                self.line(&format!("long vr_x{n}_{p} = {i} - {base}L;"));
                guard.push(format!("(ulong)vr_x{n}_{p} < (ulong){}_d{p}", kv.c));
                offset = format!("{offset} + vr_x{n}_{p} * {}_s{p}", kv.c);
            }
            self.line(&format!(
                "if ({}) vr_tile{n}[get_local_id({own})][get_local_id({other})] = {}_p[{offset}];",
                guard.join(" && "),
                kv.c
            ));
            reads_c.push((
                r.array.clone(),
                r.indices.to_vec(),
                format!("vr_tile{n}[get_local_id({own})][vr_tk]"),
            ));
        }
        self.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.line(&format!(
            "ulong vr_tend = vr_tcnt - vr_tc < {TILE} ? vr_tcnt - vr_tc : {TILE};"
        ));
        self.line("for (ulong vr_tk = 0; vr_tk < vr_tend; vr_tk++) {");
        self.indent += 1;
        let kv = self.var(&plan.kvar)?;
        self.line(&format!(
            "{c} = (long)((ulong)vr_tlo + vr_tc + vr_tk); {c}_set = 1;",
            c = kv.c
        ));
        self.tiles = reads_c;
        let r = self.block(plan.kbody);
        self.tiles.clear();
        r?;
        self.indent -= 1;
        self.line("}");
        self.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.indent -= 1;
        self.line("}");
        self.indent -= 1;
        self.line("}");
        self.dead_mode = false;
        self.line("if (vr_dead) return;");
        self.block(plan.post)
    }
}
