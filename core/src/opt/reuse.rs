//! `reuse`: memory reuse for library calls (the seeds' CPU optimization). `C = A + B`,
//! and any element-wise result (arithmetic, comparisons, unary math, casts; a fused
//! chain from `fusion` too, a loop nest or its cpu-par form `(if (>= COUNT N) (parfor L)
//! (for L))`), is written into the buffer C already holds instead of a fresh one, when
//! that cannot be observed:
//!
//! - C is a local (never a parameter: by-value hosts decide which arguments to copy
//!   from the function as written) of exactly the result's type, not `strided`;
//! - C is certainly assigned there (it holds a buffer), and no other variable whose
//!   value is still read may share its storage (`analysis::alias`, with the host's
//!   `params_never_alias`): the others in C's alias class are locals dead at the
//!   statement (liveness), or a fused loop's own destination moved into C; functions
//!   with tuple variables, `refincr`/`refdecr` of C, or C inside a `parfor` body (iterations share the old buffer) or a GPU section are left alone;
//! - every element of the result reads the operands at its own index only, so element
//!   k of C is read before it is overwritten and never after;
//! - whether C has the right size is decided at run time: `(if (dims equal) IN-PLACE
//!   AS-WRITTEN)`; the written code also runs when operand shapes differ, so shape
//!   errors are raised as before. An element that fails (integer division by zero)
//!   stops the call with C partly written; C is a local no one else sees, so only the
//!   error is visible, as before.
//!
//! Counter: `buffers_reused` (assignments that may now write in place).

use super::elementwise::{
    all_of, dim, element, loop_nest, mentions, parallel_when_large, recognise, same_shape_test,
    storage_is_logical,
    store,
};
use super::{Counters, Pass, PassContext};
use crate::analysis::alias::AliasSets;
use crate::analysis::liveness::LiveVars;
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{stmt_count, walk_expr, walk_stmts};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{
    AllocInit, BinOp, Block, Expr, Function, LValue, Module, Stmt, StmtKind, UnOp,
};
use crate::vrir::types::{Layout, Type};

pub const REUSE: Pass = Pass {
    name: "reuse",
    summary: "write element-wise results into the target's own buffer when it is unaliased and the right size",
    run,
};

struct Reuser<'a> {
    m: &'a Module,
    /// In-place loops over many elements become `parfor` (cpu-par).
    parallel: bool,
    f: &'a Function,
    alias: AliasSets,
    reach: DefiniteAssignment,
    live: LiveVars,
    reused: u64,
}

/// `d` is a fused loop's destination moved into `c`: assigned one fresh allocation,
/// written element by element, then read once, by `(set c d)`.
fn is_moved_destination(f: &Function, d: &str, c: &str) -> bool {
    let (mut allocs, mut stores, mut moves) = (0, 0, 0);
    walk_stmts(&f.body, &mut |s| {
        if let StmtKind::Assign { targets, value } = &s.kind {
            match (targets.as_slice(), value) {
                ([LValue::Var { name }], Expr::Alloc { .. }) if name == d => allocs += 1,
                ([LValue::Var { name }], Expr::Var { name: src }) if name == c && src == d => {
                    moves += 1
                }
                ([LValue::Index { array, .. }], _) if array == d => stores += 1,
                _ => {}
            }
        }
    });
    allocs == 1 && moves == 1 && mentions(&f.body, d) == 2 + stores
}

/// Whether every read of `c` in `e` is the element at exactly `idx`.
fn reads_only_at(e: &Expr, c: &str, idx: &[Expr]) -> bool {
    let mut total = 0;
    let mut at_idx = 0;
    walk_expr(e, &mut |x| match x {
        Expr::Var { name } if name == c => total += 1,
        Expr::Index {
            array,
            indices,
            flags,
        } if matches!(&**array, Expr::Var { name } if name == c)
            && indices.as_slice() == idx
            && !flags.negative
            && !flags.flatten =>
        {
            at_idx += 1
        }
        _ => {}
    });
    total == at_idx
}

/// Whether an extent expression can be evaluated again with no effect and no failure.
fn pure_extent(e: &Expr) -> bool {
    match e {
        Expr::Const { .. } | Expr::Var { .. } => true,
        Expr::Dim { arg, .. } => matches!(&**arg, Expr::Var { .. }),
        _ => false,
    }
}

impl Reuser<'_> {
    /// Whether `c`'s buffer may be overwritten at statement `id`.
    fn may_reuse(&self, c: &str, ty: &Type, id: usize) -> bool {
        let local = self.f.locals.iter().any(|l| l.name == c && &l.ty == ty);
        let Type::Array(at) = ty else { return false };
        // Every other variable that may share c's storage is a local whose value nobody
        // reads from here on (liveness: dead before this statement), or a fused loop's
        // destination moved into c. (`(set _t4 d)`, R's recycling copies, put d and _t4
        // in one class for the whole function; in the next iteration _t4 is dead when d
        // is computed again.)
        let alone = self
            .alias
            .classes
            .iter()
            .find(|class| class.iter().any(|v| v == c))
            .is_some_and(|class| {
                class.iter().all(|v| {
                    v == c
                        || is_moved_destination(self.f, v, c)
                        || (self.f.locals.iter().any(|l| &l.name == v) && !self.live.is_live(id, v))
                })
            });
        local && at.layout != Layout::Strided && alone && self.reach.certainly_assigned(id, c)
    }

    /// `(dim c k) == extent_k` for every axis where the extent is not `(dim c k)`
    /// itself; None when nothing is left to test.
    fn size_test(c: &str, extents: &[Expr]) -> Option<Expr> {
        let terms = extents
            .iter()
            .enumerate()
            .filter(|(k, n)| **n != dim(c, *k as u32))
            .map(|(k, n)| Expr::binary(BinOp::Eq, dim(c, k as u32), n.clone()))
            .collect();
        all_of(terms)
    }

    fn index_vars(&mut self, table: &mut Function, n: u32) -> Vec<String> {
        (0..n)
            .map(|_| super::elementwise::fresh_local(table, "_r", Type::I64))
            .collect()
    }

    /// `c = tree` written into c's buffer, or None.
    fn assignment(&mut self, table: &mut Function, s: &Stmt, id: usize) -> Option<Stmt> {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return None;
        };
        let [LValue::Var { name: c }] = targets.as_slice() else {
            return None;
        };
        let info = recognise(self.m, self.f, value)?;
        let ty = Type::Array(info.ty);
        if !self.may_reuse(c, &ty, id)
            || !info
                .arrays
                .iter()
                .chain(&info.scalars)
                .all(|v| self.reach.certainly_assigned(id, v))
        {
            return None;
        }
        let idx = self.index_vars(table, info.ty.ndims);
        let extents: Vec<Expr> = (0..info.ty.ndims)
            .map(|k| dim(&info.arrays[0], k))
            .collect();
        let mut test: Vec<Expr> = Self::size_test(c, &extents).into_iter().collect();
        test.extend(same_shape_test(&info.arrays, info.ty.ndims));
        let col = info.fallible == 0 && !storage_is_logical(&info.ty);
        let body = vec![store(c, &idx, element(value, &idx, &info.arrays), s.line)];
        let nest = loop_nest(self.m.index_base, &idx, extents.clone(), col, body, s.line);
        let in_place = if self.parallel && info.fallible == 0 { parallel_when_large(nest, &extents) } else { nest };
        self.reused += 1;
        let Some(cond) = all_of(test) else {
            return Some(in_place);
        };
        Some(Stmt {
            kind: StmtKind::If {
                cond,
                then: Block {
                    on_gpu: false,
                    stmts: vec![in_place],
                },
                els: Some(Block {
                    on_gpu: false,
                    stmts: vec![s.clone()],
                }),
            },
            line: s.line,
        })
    }

    /// A fused loop (`fusion`'s form) at `stmts[j..]`: `(set d (empty T dims))`, one loop
    /// nest over exactly `dims` storing each element of d, then `(set c d)` unless d is
    /// c. Returns how many statements it spans and what replaces them.
    fn fused(&mut self, stmts: &[Stmt], j: usize, id: usize) -> Option<(usize, Vec<Stmt>)> {
        let StmtKind::Assign { targets, value } = &stmts[j].kind else {
            return None;
        };
        let [LValue::Var { name: d }] = targets.as_slice() else {
            return None;
        };
        let Expr::Alloc {
            init: AllocInit::Empty,
            ty,
            dims,
        } = value
        else {
            return None;
        };
        if !dims.iter().all(pure_extent) {
            return None;
        }
        let nest = stmts.get(j + 1)?;
        let serial = serial_nest(nest)?;
        let StmtKind::For { body, .. } = &serial.kind else {
            return None;
        };
        let [Stmt {
            kind:
                StmtKind::Assign {
                    targets: store_targets,
                    value: elem,
                },
            ..
        }] = body.stmts.as_slice()
        else {
            return None;
        };
        let [LValue::Index {
            array,
            indices,
            flags,
        }] = store_targets.as_slice()
        else {
            return None;
        };
        let idx: Vec<String> = indices
            .iter()
            .map(|i| match i {
                Expr::Var { name } => Some(name.clone()),
                _ => None,
            })
            .collect::<Option<_>>()?;
        // The nest must visit every element of d, in either order.
        let covers = [false, true].iter().any(|&col| {
            let expected = loop_nest(self.m.index_base, &idx, dims.clone(), col, vec![], None);
            match (&expected.kind, &serial.kind) {
                (
                    StmtKind::For {
                        vars: ev,
                        domain: ed,
                        ..
                    },
                    StmtKind::For { vars, domain, .. },
                ) => ev == vars && ed == domain,
                _ => false,
            }
        });
        if array != d || flags.negative || flags.flatten || !covers || idx.len() != dims.len() {
            return None;
        }
        let moved = match stmts.get(j + 2).map(|s| &s.kind) {
            Some(StmtKind::Assign {
                targets,
                value: Expr::Var { name },
            }) if name == d
                && matches!(targets.as_slice(), [LValue::Var { name: c }] if c != d) =>
            {
                match targets.as_slice() {
                    [LValue::Var { name: c }] => Some(c.clone()),
                    _ => None,
                }
            }
            _ => None,
        };
        let c = moved.clone().unwrap_or_else(|| d.clone());
        let ty = Type::Array(*ty);
        if !self.may_reuse(&c, &ty, id) || !reads_only_at(elem, &c, indices) || reads_any(elem, d) {
            return None;
        }
        self.reused += 1;
        let test = Self::size_test(&c, dims);
        let replacement = match (moved, test) {
            // c's size is the extents by construction.
            (None, None) => vec![nest.clone()],
            (Some(_), None) => vec![in_place_of(nest, &c)],
            // d is c: allocate only when c's buffer has the wrong size.
            (None, Some(test)) => vec![
                Stmt {
                    kind: StmtKind::If {
                        cond: Expr::Unary {
                            op: UnOp::Not,
                            arg: Box::new(test),
                        },
                        then: Block {
                            on_gpu: false,
                            stmts: vec![stmts[j].clone()],
                        },
                        els: None,
                    },
                    line: stmts[j].line,
                },
                nest.clone(),
            ],
            (Some(_), Some(test)) => {
                vec![Stmt {
                    kind: StmtKind::If {
                        cond: test,
                        then: Block {
                            on_gpu: false,
                            stmts: vec![in_place_of(nest, &c)],
                        },
                        els: Some(Block {
                            on_gpu: false,
                            stmts: stmts[j..j + 3].to_vec(),
                        }),
                    },
                    line: stmts[j].line,
                }]
            }
        };
        let span = if c == *d { 2 } else { 3 };
        Some((span, replacement))
    }

    fn stmts(&mut self, table: &mut Function, stmts: Vec<Stmt>, first: usize) -> Vec<Stmt> {
        let written = stmts.clone();
        let ids = crate::analysis::stmt_ids(&stmts, first);
        let mut out = Vec::with_capacity(stmts.len());
        let mut skip = 0;
        for (j, mut s) in stmts.into_iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sid = ids[j];
            if let Some((span, replacement)) = self.fused(&written, j, sid) {
                out.extend(replacement);
                skip = span - 1;
                continue;
            }
            match &mut s.kind {
                StmtKind::Block(b) if !b.on_gpu => {
                    b.stmts = self.stmts(table, std::mem::take(&mut b.stmts), sid + 1)
                }
                StmtKind::If { then, els, .. } => {
                    let else_first = sid + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                    // The statements as written behind a fused loop's shape test run only
                    // to raise the shape error: nothing to gain there.
                    let behind_fusion = starts_fused(&then.stmts);
                    if !then.on_gpu {
                        then.stmts = self.stmts(table, std::mem::take(&mut then.stmts), sid + 1);
                    }
                    if let Some(e) = els.as_mut().filter(|e| !e.on_gpu && !behind_fusion) {
                        e.stmts = self.stmts(table, std::mem::take(&mut e.stmts), else_first);
                    }
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } if !body.on_gpu => {
                    body.stmts = self.stmts(table, std::mem::take(&mut body.stmts), sid + 1)
                }
                _ => {}
            }
            match self.assignment(table, &s, sid) {
                Some(r) => out.push(r),
                None => out.push(s),
            }
        }
        out
    }
}

/// The serial loop of a fused nest: the nest itself, or the `for` of the form
/// `parallel_when_large` gives it on cpu-par, `(if (>= COUNT N) (parfor L) (for L))`.
fn serial_nest(nest: &Stmt) -> Option<&Stmt> {
    match &nest.kind {
        StmtKind::For { .. } => Some(nest),
        StmtKind::If {
            then,
            els: Some(e),
            ..
        } => match (then.stmts.as_slice(), e.stmts.as_slice()) {
            (
                [Stmt {
                    kind:
                        StmtKind::Parfor {
                            vars: pv,
                            domain: pd,
                            body: pb,
                        },
                    ..
                }],
                [s @ Stmt {
                    kind: StmtKind::For { vars, domain, body },
                    ..
                }],
            ) if pv == vars && pd == domain && pb == body => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// The fused loop `nest` (either form of [`serial_nest`]) storing into `c` instead of
/// its own destination.
fn in_place_of(nest: &Stmt, c: &str) -> Stmt {
    fn retarget(s: &mut Stmt, c: &str) {
        match &mut s.kind {
            StmtKind::For { body, .. } | StmtKind::Parfor { body, .. } => {
                if let StmtKind::Assign { targets, .. } = &mut body.stmts[0].kind {
                    if let [LValue::Index { array, .. }] = targets.as_mut_slice() {
                        *array = c.to_string();
                    }
                }
            }
            StmtKind::If { then, els, .. } => {
                then.stmts.iter_mut().for_each(|s| retarget(s, c));
                if let Some(e) = els {
                    e.stmts.iter_mut().for_each(|s| retarget(s, c));
                }
            }
            _ => {}
        }
    }
    let mut in_place = nest.clone();
    retarget(&mut in_place, c);
    in_place
}

/// Whether `stmts` start like a fused loop: a fresh `empty` array, then a loop.
fn starts_fused(stmts: &[Stmt]) -> bool {
    matches!(
        stmts.first().map(|s| &s.kind),
        Some(StmtKind::Assign {
            value: Expr::Alloc {
                init: AllocInit::Empty,
                ..
            },
            ..
        })
    ) && stmts.get(1).and_then(serial_nest).is_some()
}

/// Whether `e` reads variable `v` at all.
fn reads_any(e: &Expr, v: &str) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| {
        if matches!(x, Expr::Var { name } if name == v) {
            found = true;
        }
    });
    found
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let has_tuples = f
        .params
        .iter()
        .map(|p| &p.ty)
        .chain(f.locals.iter().map(|l| &l.ty))
        .any(|t| matches!(t, Type::Tuple { .. }));
    let mut counted = false;
    walk_stmts(&f.body, &mut |s| {
        if matches!(s.kind, StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. }) {
            counted = true;
        }
    });
    if has_tuples || counted {
        return Ok(());
    }
    let orig = f.clone();
    let mut table = f.clone();
    table.body = Vec::new();
    let mut r = Reuser {
        m: cx.module,
        parallel: cx.options.parallel_loops,
        f: &orig,
        alias: AliasSets::compute(&orig, cx.options.params_never_alias),
        reach: DefiniteAssignment::compute(&orig),
        live: LiveVars::compute(&orig),
        reused: 0,
    };
    let body = r.stmts(&mut table, std::mem::take(&mut f.body), 0);
    *counters.entry("buffers_reused").or_default() += r.reused;
    f.locals = table.locals;
    f.body = body;
    Ok(())
}
