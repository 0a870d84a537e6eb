//! `parfor` on the `cpu-par` backend: the body is outlined into an LLVM function of its
//! own, `i32 body(ptr env, ptr ctx, i64 lo, i64 hi, i32 last)`, which runs the
//! iterations `lo..hi` of the flattened domain; the enclosing function evaluates the
//! domain, fills an environment and calls `vr_cpu_parfor` (see `cpu::parallel`), which
//! spreads chunks of iterations over rayon's pool. On `cpu` (serial) a parfor compiles
//! as a `for` loop, one of the orders the semantics allow. A chunk runs row by row: the
//! innermost range as a plain counted loop (to the end of the row or of the chunk), the
//! outer counters stepping between rows, so that LLVM vectorizes the row.
//!
//! The environment is an array of 8-byte slots: the start, step and iteration count of
//! each range, then per variable of the enclosing function:
//! - variables the body only reads (or writes element-wise, for arrays): scalars by
//!   value (with their "assigned" flag), array variables as copies of their descriptor
//!   (and flag) made at the launch; nobody writes them while the loop runs, so these are
//!   what the body would read from the variables themselves, and the enclosing
//!   function's variables do not escape into the environment (an escaped variable stays
//!   in memory for the whole function, reloaded after every store through a pointer);
//!   the body copies scalars into slots of its own once per chunk (registers, after
//!   optimization);
//! - variables the body assigns (the loop variables included) are private to each
//!   iteration (docs/vrir-semantics.md): each chunk starts from a snapshot of their
//!   values taken before the loop (never from the live slot, which the last chunk may be
//!   writing), and the chunk that holds the last iteration stores them back when it
//!   ends. So after the loop they hold what the serial loop leaves whenever the last
//!   iteration assigns them (loop variables always: the last point), which the
//!   semantics leave unspecified anyway.
//!
//! Nested parfors: an inner parfor in an outlined body is outlined again and calls the
//! helper from the worker; rayon runs it on the same pool (work stealing), see
//! `cpu::parallel`. A body that captures a variable kind this file does not know (added
//! by a later increment) falls back to the serial loop rather than failing.

use super::parfor_facts::{parfor_facts, ParforFacts};
use super::stmt::LoopRange;
use super::{internal_name, unsupported, CodeGen, FnGen, Slot, Val};
use crate::runtime::error::{ErrorKind, VrResult};
use crate::vrir::ast::{Block, Expr, LValue, Literal, Stmt, StmtKind};
use crate::vrir::types::{ArrayType, ScalarType};
use inkwell::module::Linkage;
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::{BTreeSet, HashMap};

/// Name of the Rust helper that runs an outlined parfor body (see `cpu::parallel`).
pub const PARFOR: &str = "vr_cpu_parfor";

/// Name of the Rust helper that runs an outlined parfor body on the calling thread
/// (`cpu::parallel::vr_cpu_parfor_serial`): the small branch of the optimizer's
/// `(if (>= COUNT MIN) (parfor L) (for L))`, see [`CodeGen::parfor_when_large`].
pub const PARFOR_SERIAL: &str = "vr_cpu_parfor_serial";

/// How one variable of the enclosing function reaches the outlined body; `at` is its
/// first environment slot.
#[derive(Clone, Copy)]
enum Capture {
    /// Slots: the scalar's value, then its flag's value when it has one (a scalar that
    /// does not fit a slot, `c128`: their addresses). Values, so that the enclosing
    /// function's variables do not escape into the environment: an escaped variable
    /// lives in memory for the whole function, which costs its other loops (a store
    /// through any pointer may change it, so LLVM reloads it at every use).
    SharedScalar {
        ty: ScalarType,
        flagged: bool,
        at: u32,
    },
    /// Slots: value before the loop, flag before the loop, the scalar's address, its
    /// flag's address (when it has one; the addresses filled only when `store_back`).
    /// `store_back`: the variable is live after the loop (else nobody reads what the
    /// last chunk would store). `assigned_before`:
    /// certainly assigned before the loop, so each chunk starts with it assigned.
    PrivateScalar {
        ty: ScalarType,
        flagged: bool,
        at: u32,
        store_back: bool,
        assigned_before: bool,
    },
    /// An array local the body does not assign that may be unassigned before the loop.
    /// Slots: the address of a copy of the descriptor, of a copy of the flag (made at the
    /// launch).
    SharedArrayVar { ty: ArrayType, at: u32 },
    /// Slots: a copy of the descriptor made before the loop, the flag before the loop,
    /// the descriptor's address, the flag's address (the addresses filled only when
    /// `store_back`).
    PrivateArrayVar {
        ty: ArrayType,
        at: u32,
        store_back: bool,
    },
    /// An array parameter, or an array local the body does not assign and that is
    /// certainly assigned before the loop (its descriptor cannot change while the loop
    /// runs: loaded once per chunk, like a parameter's). Slot: its descriptor's address
    /// (a parameter's), or the address of a copy made at the launch (a local's).
    Array { ty: ArrayType, at: u32 },
}

/// Names of the variables a statement list assigns (not element writes): the
/// variables a parfor body makes private.
fn assigned_in(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Block(b) => assigned_in(&b.stmts, out),
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    if let LValue::Var { name } = t {
                        out.insert(name.clone());
                    }
                }
            }
            StmtKind::If { then, els, .. } => {
                assigned_in(&then.stmts, out);
                if let Some(e) = els {
                    assigned_in(&e.stmts, out);
                }
            }
            StmtKind::For { vars, body, .. } | StmtKind::Parfor { vars, body, .. } => {
                out.extend(vars.iter().cloned());
                assigned_in(&body.stmts, out);
            }
            StmtKind::While { body, .. } => assigned_in(&body.stmts, out),
            StmtKind::Alloc { var, .. } | StmtKind::Free { var } => {
                out.insert(var.clone());
            }
            _ => {}
        }
    }
}

/// Every variable a parfor body reads or assigns (nested statements included), and its
/// loop variables.
fn mentioned_in(stmts: &[Stmt], vars: &[String]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = vars.iter().cloned().collect();
    assigned_in(stmts, &mut out);
    for s in crate::analysis::preorder(stmts) {
        out.extend(crate::analysis::stmt_uses(s));
        out.extend(crate::analysis::stmt_defs(s));
        if let StmtKind::Free { var } = &s.kind {
            out.insert(var.clone());
        }
    }
    out
}

/// The parameters of a chunk function being built ([`CodeGen::begin_chunk_fn`]).
pub(crate) struct ChunkParams<'ctx> {
    pub(crate) env: PointerValue<'ctx>,
    pub(crate) ctx: PointerValue<'ctx>,
    /// First and one-past-last iteration of the chunk.
    pub(crate) lo: IntValue<'ctx>,
    pub(crate) hi: IntValue<'ctx>,
    /// Whether the chunk holds the last iteration.
    pub(crate) last: IntValue<'ctx>,
    /// Positioned in the entry block, before its branch: allocas go there.
    pub(crate) alloca_builder: inkwell::builder::Builder<'ctx>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    pub(crate) fn declare_parallel_runtime(&self) {
        self.declare_parfor_helper(PARFOR);
        self.declare_parfor_helper(PARFOR_SERIAL);
    }

    fn declare_parfor_helper(&self, name: &str) {
        let ptr = self.ptr_type();
        let f = self.module.add_function(
            name,
            self.cx.i32_type().fn_type(
                &[
                    ptr.into(),
                    ptr.into(),
                    ptr.into(),
                    ptr.into(),
                    self.cx.i64_type().into(),
                ],
                false,
            ),
            Some(Linkage::External),
        );
        f.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("nounwind"),
        );
    }

    /// A parfor: outlined and run on the pool on `cpu-par`, a serial loop on `cpu`.
    pub(crate) fn parfor(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        vars: &'m [String],
        domain: &'m Expr,
        body: &'m Block,
    ) -> VrResult<()> {
        self.parfor_sized(g, vars, domain, body, None)
    }

    /// The optimizer's `(if COND (parfor L) (for L))` (`opt::elementwise::
    /// parallel_when_large`: COND is `(>= COUNT MIN)`, both loops the same nest) on
    /// `cpu-par`, when `s` is one: L is outlined once, and COND picks between running it
    /// on the pool (`vr_cpu_parfor`) and on this thread (`vr_cpu_parfor_serial`, what
    /// `vr_cpu_parfor` does with one thread), instead of a second, inline copy of L for
    /// the serial branch. The same code computes every element either way, so results
    /// are those of the two loops. Why: the inline copy doubled every fused loop of
    /// array-style code in the entry, which LLVM then vectorized twice (compile latency,
    /// issue 18; docs/cpu-backend.md). Returns false when `s` is not such a statement.
    pub(crate) fn parfor_when_large(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        s: &'m StmtKind,
    ) -> VrResult<bool> {
        if !self.parallel {
            return Ok(false);
        }
        let StmtKind::If { cond, then, els: Some(els) } = s else {
            return Ok(false);
        };
        let (
            [Stmt { kind: StmtKind::Parfor { vars, domain, body }, .. }],
            [Stmt { kind: StmtKind::For { vars: v2, domain: d2, body: b2 }, .. }],
        ) = (then.stmts.as_slice(), els.stmts.as_slice())
        else {
            return Ok(false);
        };
        if then.on_gpu || els.on_gpu || vars != v2 || domain != d2 || body != b2 {
            return Ok(false);
        }
        let c = self.expr(g, cond)?;
        if c.ty != ScalarType::Bool {
            return Err(self.type_err(g, format!("if condition of type {}", c.ty)));
        }
        self.parfor_sized(g, vars, domain, body, Some(c.int()))?;
        Ok(true)
    }

    /// A parfor; with `parallel_when`, run on the pool only where it is true, else on
    /// this thread (see [`Self::parfor_when_large`]).
    fn parfor_sized(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        vars: &'m [String],
        domain: &'m Expr,
        body: &'m Block,
        parallel_when: Option<IntValue<'ctx>>,
    ) -> VrResult<()> {
        if !self.parallel {
            return self.for_loop(g, vars, domain, body);
        }
        let range_exprs: Vec<&'m Expr> = match domain {
            Expr::Domain { ranges } => ranges.iter().collect(),
            r @ Expr::Range { .. } => vec![r],
            _ => {
                return Err(unsupported(
                    "loop over a domain that is not a literal `range`/`domain`",
                    &g.f.name,
                ))
            }
        };
        if range_exprs.len() != vars.len() {
            return Err(self.type_err(
                g,
                format!(
                    "{} loop variables for a domain of {}",
                    vars.len(),
                    range_exprs.len()
                ),
            ));
        }
        for v in vars {
            match g.vars.get(v) {
                Some(Slot::Scalar { ty, .. }) if ty.is_int() => {}
                _ => {
                    return Err(
                        self.type_err(g, format!("loop variable `{v}` is not an integer scalar"))
                    )
                }
            }
        }
        let d = vars.len() as u32;
        let facts = self.facts_of(g, body);
        let (plan, slots) = self.capture_plan(g, vars, body, facts.as_ref());
        // Starts and steps written as constants are used as constants in the body (a
        // step of 1 lets LLVM see unit-stride accesses and vectorize them).
        let consts: Vec<(Option<i64>, Option<i64>)> = range_exprs
            .iter()
            .map(|r| match r {
                Expr::Range { start, step, .. } => (
                    start.as_deref().and_then(int_const),
                    match step {
                        None => Some(1),
                        Some(st) => int_const(st),
                    },
                ),
                _ => (None, None),
            })
            .collect();
        // Outline first: a body this file cannot outline runs serially instead.
        let parent_block = self.builder.get_insert_block().expect("positioned");
        let outlined = self.outline(g, vars, body, &plan, d, &consts);
        self.builder.position_at_end(parent_block);
        let outlined = match outlined {
            Ok(f) => f,
            Err((e, f)) => {
                if let Some(f) = f {
                    // SAFETY: nothing refers to the half-built function.
                    unsafe { f.delete() };
                }
                if e.kind == ErrorKind::Unsupported {
                    return self.for_loop(g, vars, domain, body);
                }
                return Err(e);
            }
        };
        // The domain is evaluated once, before the first iteration, as in `for`.
        let mut ranges: Vec<LoopRange<'ctx>> = Vec::new();
        for r in range_exprs {
            ranges.push(self.loop_range(g, r)?);
        }
        let mut all = self.cx.bool_type().const_all_ones();
        for r in &ranges {
            all = self.builder.build_and(all, r.nonempty, "")?;
        }
        let run_bb = self.cx.append_basic_block(g.llfn, "parfor.run");
        let done_bb = self.cx.append_basic_block(g.llfn, "parfor.done");
        let err_bb = self.cx.append_basic_block(g.llfn, "parfor.err");
        self.builder.build_conditional_branch(all, run_bb, done_bb)?;
        self.builder.position_at_end(run_bb);
        let env = self.new_env(g, slots, "parfor.env")?;
        for (k, r) in ranges.iter().enumerate() {
            let k = k as u32;
            self.builder.build_store(self.env_slot(env, k)?, r.start)?;
            self.builder.build_store(self.env_slot(env, d + k)?, r.step)?;
            let count = self.builder.build_int_add(r.last, self.i64c(1), "count")?;
            self.builder.build_store(self.env_slot(env, 2 * d + k)?, count)?;
        }
        for (name, cap) in &plan {
            self.fill_capture(g, env, name, *cap)?;
        }
        let counts = self.env_slot(env, 2 * d)?;
        match parallel_when {
            None => self.run_chunks(g, outlined, env, counts, d as i64, done_bb, err_bb)?,
            Some(big) => {
                let serial = self.module.get_function(PARFOR_SERIAL).expect("declared");
                let helper = self.module.get_function(PARFOR).expect("declared");
                let par_bb = self.cx.append_basic_block(g.llfn, "parfor.pool");
                let ser_bb = self.cx.append_basic_block(g.llfn, "parfor.here");
                let ran_bb = self.cx.append_basic_block(g.llfn, "parfor.ran");
                self.builder.build_conditional_branch(big, par_bb, ser_bb)?;
                let mut statuses = Vec::new();
                for (bb, f) in [(par_bb, helper), (ser_bb, serial)] {
                    self.builder.position_at_end(bb);
                    let status = self.call_chunks(g, f, outlined, env, counts, d as i64)?;
                    self.builder.build_unconditional_branch(ran_bb)?;
                    statuses.push((status, bb));
                }
                self.builder.position_at_end(ran_bb);
                let phi = self.builder.build_phi(self.cx.i32_type(), "parfor.status")?;
                for (v, bb) in &statuses {
                    phi.add_incoming(&[(v, *bb)]);
                }
                self.branch_on_status(phi.as_basic_value().into_int_value(), done_bb, err_bb)?;
            }
        }
        Ok(())
    }

    /// Address of environment slot `k`.
    pub(crate) fn env_slot(&self, env: PointerValue<'ctx>, k: u32) -> VrResult<PointerValue<'ctx>> {
        let i64t = self.cx.i64_type();
        // SAFETY (LLVM): k is below the environment's slot count.
        Ok(unsafe {
            self.builder
                .build_in_bounds_gep(i64t, env, &[i64t.const_int(k as u64, false)], "")?
        })
    }

    /// Environment slot `k` read as `ty` (inside a chunk function).
    pub(crate) fn env_load(
        &self,
        env: PointerValue<'ctx>,
        k: u32,
        ty: inkwell::types::BasicTypeEnum<'ctx>,
    ) -> VrResult<inkwell::values::BasicValueEnum<'ctx>> {
        Ok(self.builder.build_load(ty, self.env_slot(env, k)?, "")?)
    }

    /// A fresh environment of `slots` i64-sized slots in the calling function's frame.
    pub(crate) fn new_env(
        &self,
        g: &FnGen<'ctx, 'm>,
        slots: u32,
        name: &str,
    ) -> VrResult<PointerValue<'ctx>> {
        let i64t = self.cx.i64_type();
        Ok(g.alloca_builder
            .build_alloca(i64t.array_type(slots.max(1)), name)?)
    }

    /// Start building chunk function `llfn` (see [`Self::declare_chunk_fn`]): an entry
    /// block that holds the allocas and branches to the code block, where the builder is
    /// left; its parameters, named.
    pub(crate) fn begin_chunk_fn(&self, llfn: FunctionValue<'ctx>) -> VrResult<ChunkParams<'ctx>> {
        let param = |k: u32| llfn.get_nth_param(k).expect("declared parameter");
        let (env, ctx) = (param(0).into_pointer_value(), param(1).into_pointer_value());
        let (lo, hi, last) = (
            param(2).into_int_value(),
            param(3).into_int_value(),
            param(4).into_int_value(),
        );
        env.set_name("env");
        ctx.set_name("ctx");
        lo.set_name("lo");
        hi.set_name("hi");
        last.set_name("last");
        let entry = self.cx.append_basic_block(llfn, "entry");
        let code = self.cx.append_basic_block(llfn, "init");
        self.builder.position_at_end(entry);
        let to_code = self.builder.build_unconditional_branch(code)?;
        let alloca_builder = self.cx.create_builder();
        alloca_builder.position_before(&to_code);
        self.builder.position_at_end(code);
        Ok(ChunkParams {
            env,
            ctx,
            lo,
            hi,
            last,
            alloca_builder,
        })
    }

    /// The function state for code of chunk function `llfn` that uses none of `g`'s
    /// variables (parallel element-wise loops and reductions).
    pub(crate) fn chunk_fngen(
        &self,
        g: &FnGen<'ctx, 'm>,
        llfn: FunctionValue<'ctx>,
        ctx: PointerValue<'ctx>,
        alloca_builder: inkwell::builder::Builder<'ctx>,
    ) -> FnGen<'ctx, 'm> {
        FnGen {
            f: g.f,
            llfn,
            ctx_ptr: ctx,
            outs: Vec::new(),
            vars: Default::default(),
            loops: Vec::new(),
            line: g.line,
            alloca_builder,
            depth_in: self.i64c(0),
        }
    }

    /// How each variable of the enclosing function is captured, and the slot count.
    /// The facts of the enclosing function about the parfor with this body (computed
    /// once per body).
    fn facts_of(&mut self, g: &FnGen<'ctx, 'm>, body: &'m Block) -> Option<ParforFacts> {
        let key = body as *const Block;
        if let Some(f) = self.parfor_facts.get(&key) {
            return Some(f.clone());
        }
        let f = parfor_facts(g.f, body)?;
        self.parfor_facts.insert(key, f.clone());
        Some(f)
    }

    fn capture_plan(
        &self,
        g: &FnGen<'ctx, 'm>,
        vars: &[String],
        body: &Block,
        facts: Option<&ParforFacts>,
    ) -> (Vec<(String, Capture)>, u32) {
        // Without facts: every variable may be read after the loop and unassigned before.
        let live_after = |name: &str| facts.is_none_or(|f| f.live_after.contains(name));
        let assigned_before = |name: &str| facts.is_some_and(|f| f.assigned_before.contains(name));
        let mut private = BTreeSet::new();
        private.extend(vars.iter().cloned());
        assigned_in(&body.stmts, &mut private);
        // Only the variables the body mentions: the others would be copied into every
        // launch's environment and loaded by every chunk for nothing (a function of 70
        // array locals gave each parfor a 136-slot environment, descriptor copies the
        // LLVM pipeline then spent time removing: compile latency, issue 18). A
        // variable left out is `Slot::Unsupported` in the body, so a use this walk
        // missed runs the loop serially, never wrongly.
        let mentioned = mentioned_in(&body.stmts, vars);
        let mut names: Vec<&String> = g.vars.keys().filter(|n| mentioned.contains(*n)).collect();
        names.sort();
        let mut at = 3 * vars.len() as u32;
        let mut plan = Vec::new();
        for name in names {
            let is_private = private.contains(name);
            let (cap, n) = match (&g.vars[name], is_private) {
                (Slot::Scalar { ty, assigned, .. }, false) => {
                    let flagged = assigned.is_some() && !assigned_before(name);
                    let cap = Capture::SharedScalar {
                        ty: *ty,
                        flagged,
                        at,
                    };
                    (cap, 1 + flagged as u32)
                }
                (Slot::Scalar { ty, assigned, .. }, true) => {
                    let flagged = assigned.is_some();
                    let cap = Capture::PrivateScalar {
                        ty: *ty,
                        flagged,
                        at,
                        store_back: live_after(name),
                        assigned_before: assigned_before(name),
                    };
                    (cap, 3 + flagged as u32)
                }
                (Slot::ArrayVar { ty, .. }, false) if assigned_before(name) => {
                    (Capture::Array { ty: *ty, at }, 1)
                }
                (Slot::ArrayVar { ty, .. }, false) => (Capture::SharedArrayVar { ty: *ty, at }, 2),
                (Slot::ArrayVar { ty, .. }, true) => {
                    let cap = Capture::PrivateArrayVar {
                        ty: *ty,
                        at,
                        store_back: live_after(name),
                    };
                    (cap, 4)
                }
                (Slot::Array(view), _) => (Capture::Array { ty: view.ty, at }, 1),
                // Not captured: the body sees it as unsupported (and runs serially).
                #[allow(unreachable_patterns)]
                _ => continue,
            };
            plan.push((name.clone(), cap));
            at += n;
        }
        (plan, at)
    }

    /// Store one variable's capture into the environment (in the enclosing function).
    fn fill_capture(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        env: PointerValue<'ctx>,
        name: &str,
        cap: Capture,
    ) -> VrResult<()> {
        let slot = g.vars[name].clone();
        let bool_t = self.cx.bool_type();
        match (cap, slot) {
            (Capture::SharedScalar { ty, at, flagged }, Slot::Scalar { ptr, assigned, .. }) => {
                if fits_slot(ty) {
                    let mem = self.mem_type(ty, &g.f.name)?;
                    let v = self.builder.build_load(mem, ptr, "")?;
                    self.builder.build_store(self.env_slot(env, at)?, v)?;
                    if let (true, Some(f)) = (flagged, assigned) {
                        let fv = self.builder.build_load(bool_t, f, "")?;
                        self.builder.build_store(self.env_slot(env, at + 1)?, fv)?;
                    }
                } else {
                    self.builder.build_store(self.env_slot(env, at)?, ptr)?;
                    if let (true, Some(f)) = (flagged, assigned) {
                        self.builder.build_store(self.env_slot(env, at + 1)?, f)?;
                    }
                }
            }
            (
                Capture::PrivateScalar {
                    ty, at, store_back, ..
                },
                Slot::Scalar { ptr, assigned, .. },
            ) => {
                let mem = self.mem_type(ty, &g.f.name)?;
                let v = self.builder.build_load(mem, ptr, "")?;
                self.builder.build_store(self.env_slot(env, at)?, v)?;
                let flag = match assigned {
                    Some(f) => self.builder.build_load(bool_t, f, "")?.into_int_value(),
                    None => bool_t.const_all_ones(),
                };
                self.builder.build_store(self.env_slot(env, at + 1)?, flag)?;
                // The addresses only where the last chunk stores the values back.
                if store_back {
                    self.builder.build_store(self.env_slot(env, at + 2)?, ptr)?;
                    if let Some(f) = assigned {
                        self.builder.build_store(self.env_slot(env, at + 3)?, f)?;
                    }
                }
            }
            (Capture::SharedArrayVar { ty, at }, Slot::ArrayVar { ptr, assigned, .. }) => {
                // Copies of the descriptor and the flag (the body does not assign the
                // variable): the variable's own do not escape.
                let snap = self.desc_buffer(&g.alloca_builder, &self.builder, ty.ndims, name)?;
                let view = self.load_desc(ptr, ty, name)?;
                self.store_desc(snap, &view)?;
                let flag = g
                    .alloca_builder
                    .build_alloca(bool_t, &format!("{name}.assigned.snap"))?;
                let fv = self.builder.build_load(bool_t, assigned, "")?;
                self.builder.build_store(flag, fv)?;
                self.builder.build_store(self.env_slot(env, at)?, snap)?;
                self.builder.build_store(self.env_slot(env, at + 1)?, flag)?;
            }
            (
                Capture::PrivateArrayVar {
                    ty, at, store_back, ..
                },
                Slot::ArrayVar { ptr, assigned, .. },
            ) => {
                let snap = self.desc_buffer(&g.alloca_builder, &self.builder, ty.ndims, name)?;
                let view = self.load_desc(ptr, ty, name)?;
                self.store_desc(snap, &view)?;
                self.builder.build_store(self.env_slot(env, at)?, snap)?;
                let flag = self.builder.build_load(bool_t, assigned, "")?;
                self.builder.build_store(self.env_slot(env, at + 1)?, flag)?;
                if store_back {
                    self.builder.build_store(self.env_slot(env, at + 2)?, ptr)?;
                    self.builder.build_store(self.env_slot(env, at + 3)?, assigned)?;
                }
            }
            (Capture::Array { at, .. }, Slot::Array(view)) => {
                self.builder.build_store(self.env_slot(env, at)?, view.desc)?;
            }
            (Capture::Array { ty, at }, Slot::ArrayVar { ptr, .. }) => {
                // A copy of the descriptor (the body does not assign the variable): the
                // variable's own does not escape.
                let snap = self.desc_buffer(&g.alloca_builder, &self.builder, ty.ndims, name)?;
                let view = self.load_desc(ptr, ty, name)?;
                self.store_desc(snap, &view)?;
                self.builder.build_store(self.env_slot(env, at)?, snap)?;
            }
            _ => unreachable!("the plan was made from these slots"),
        }
        Ok(())
    }

    /// Call the parallel runtime (`vr_cpu_parfor`) on the outlined chunk function `body`
    /// with its environment and `ndims` iteration counts at `counts`; a non-zero status
    /// returns from the current function through `err_bb`, otherwise code goes on at
    /// `cont`. Shared by parfor loops and parallel element-wise operators.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_chunks(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        body: FunctionValue<'ctx>,
        env: PointerValue<'ctx>,
        counts: PointerValue<'ctx>,
        ndims: i64,
        cont: inkwell::basic_block::BasicBlock<'ctx>,
        err_bb: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> VrResult<()> {
        let helper = self.module.get_function(PARFOR).expect("declared");
        let status = self.call_chunks(g, helper, body, env, counts, ndims)?;
        self.branch_on_status(status, cont, err_bb)
    }

    /// `helper(ctx, body, env, counts, ndims)` (`vr_cpu_parfor` or `vr_cpu_parfor_serial`):
    /// its status.
    fn call_chunks(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        helper: FunctionValue<'ctx>,
        body: FunctionValue<'ctx>,
        env: PointerValue<'ctx>,
        counts: PointerValue<'ctx>,
        ndims: i64,
    ) -> VrResult<IntValue<'ctx>> {
        self.call_status(
            g,
            helper,
            &[
                g.ctx_ptr.into(),
                body.as_global_value().as_pointer_value().into(),
                env.into(),
                counts.into(),
                self.i64c(ndims).into(),
            ],
        )
    }

    /// Call a function that returns an i32 status.
    pub(crate) fn call_status(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        f: FunctionValue<'ctx>,
        args: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
    ) -> VrResult<IntValue<'ctx>> {
        match self
            .builder
            .build_call(f, args, "parallel.status")?
            .try_as_basic_value()
        {
            inkwell::values::ValueKind::Basic(v) => Ok(v.into_int_value()),
            _ => Err(self.type_err(g, "parallel runtime helper without status".into())),
        }
    }

    /// Go on at `cont` when `status` is 0, else return it from the current function
    /// through `err_bb`.
    pub(crate) fn branch_on_status(
        &mut self,
        status: IntValue<'ctx>,
        cont: inkwell::basic_block::BasicBlock<'ctx>,
        err_bb: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> VrResult<()> {
        let ok = self.builder.build_int_compare(
            IntPredicate::EQ,
            status,
            self.cx.i32_type().const_zero(),
            "",
        )?;
        self.builder.build_conditional_branch(ok, cont, err_bb)?;
        self.builder.position_at_end(err_bb);
        self.builder.build_return(Some(&status))?;
        self.builder.position_at_end(cont);
        Ok(())
    }

    /// Declare `i32 NAME.SUFFIX(env, ctx, lo, hi, last)`: the outlined chunk function the
    /// parallel runtime calls for iterations (or rows) `lo..hi`; parfor bodies and
    /// parallel element-wise operators share this shape.
    pub(crate) fn declare_chunk_fn(&self, g: &FnGen<'ctx, 'm>, suffix: &str) -> FunctionValue<'ctx> {
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let i32t = self.cx.i32_type();
        let params = [ptr.into(), ptr.into(), i64t.into(), i64t.into(), i32t.into()];
        let llfn = self.module.add_function(
            &format!("{}.{suffix}", internal_name(&g.f.name)),
            i32t.fn_type(&params, false),
            Some(Linkage::Internal),
        );
        llfn.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("nounwind"),
        );
        llfn
    }

    /// Build the outlined body. On failure, the error and the half-built function (to
    /// delete). The builder is left anywhere: the caller repositions it.
    #[allow(clippy::type_complexity)]
    fn outline(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        vars: &'m [String],
        body: &'m Block,
        plan: &[(String, Capture)],
        d: u32,
        consts: &[(Option<i64>, Option<i64>)],
    ) -> Result<FunctionValue<'ctx>, (crate::runtime::error::VrError, Option<FunctionValue<'ctx>>)>
    {
        let llfn = self.declare_chunk_fn(g, "parfor");
        let registered: BTreeSet<*const Expr> = self.chunk_sum_sites.keys().copied().collect();
        let built = self.outline_body(g, llfn, vars, body, plan, d, consts);
        if built.is_err() {
            // Forget the sums' sites of this body: it is not built (it may run serially).
            self.chunk_sum_sites.retain(|k, _| registered.contains(k));
        }
        built.map_err(|e| (e, Some(llfn)))?;
        Ok(llfn)
    }

    // The loop's parts as `parfor` and `outline` hold them; a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    fn outline_body(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        llfn: FunctionValue<'ctx>,
        vars: &'m [String],
        body: &'m Block,
        plan: &[(String, Capture)],
        d: u32,
        consts: &[(Option<i64>, Option<i64>)],
    ) -> VrResult<()> {
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let bool_t = self.cx.bool_type();
        let ChunkParams {
            env,
            ctx,
            lo,
            hi,
            last,
            alloca_builder,
        } = self.begin_chunk_fn(llfn)?;
        let chunk_sums = self.begin_chunk_sums(g, &alloca_builder, body)?;
        let load_slot = |s: &Self, k: u32, ty: inkwell::types::BasicTypeEnum<'ctx>| s.env_load(env, k, ty);
        let mut starts = Vec::new();
        let mut steps = Vec::new();
        let mut counts = Vec::new();
        for k in 0..d {
            let (start, step) = consts.get(k as usize).copied().unwrap_or((None, None));
            starts.push(match start {
                Some(c) => self.i64c(c),
                None => load_slot(self, k, i64t.into())?.into_int_value(),
            });
            steps.push(match step {
                Some(c) => self.i64c(c),
                None => load_slot(self, d + k, i64t.into())?.into_int_value(),
            });
            counts.push(load_slot(self, 2 * d + k, i64t.into())?.into_int_value());
        }
        // Variables as the body sees them.
        let mut slots: HashMap<String, Slot<'ctx>> = g
            .vars
            .keys()
            .map(|k| (k.clone(), Slot::Unsupported))
            .collect();
        // Private copies to store back at the end: (copy, enclosing slot).
        let mut private: Vec<(Capture, Slot<'ctx>, PointerValue<'ctx>, Option<PointerValue<'ctx>>)> =
            Vec::new();
        for (name, cap) in plan {
            let slot = match *cap {
                Capture::SharedScalar { ty, flagged, at } => {
                    // Read-only in the body and written by nobody while the loop runs:
                    // a copy the optimizer keeps in a register (not a load per use).
                    let mem = self.mem_type(ty, &g.f.name)?;
                    let copy = alloca_builder.build_alloca(mem, name)?;
                    let v = if fits_slot(ty) {
                        load_slot(self, at, mem)?
                    } else {
                        let home = load_slot(self, at, ptr.into())?.into_pointer_value();
                        self.builder.build_load(mem, home, "")?
                    };
                    self.builder.build_store(copy, v)?;
                    let assigned = if flagged {
                        let f = if fits_slot(ty) {
                            load_slot(self, at + 1, bool_t.into())?
                        } else {
                            let home_flag =
                                load_slot(self, at + 1, ptr.into())?.into_pointer_value();
                            self.builder.build_load(bool_t, home_flag, "")?
                        };
                        let flag =
                            alloca_builder.build_alloca(bool_t, &format!("{name}.assigned"))?;
                        self.builder.build_store(flag, f)?;
                        Some(flag)
                    } else {
                        None
                    };
                    Slot::Scalar {
                        ty,
                        ptr: copy,
                        assigned,
                    }
                }
                Capture::PrivateScalar {
                    ty,
                    flagged,
                    at,
                    store_back,
                    assigned_before,
                } => {
                    let mem = self.mem_type(ty, &g.f.name)?;
                    let copy = alloca_builder.build_alloca(mem, name)?;
                    let flag = alloca_builder.build_alloca(bool_t, &format!("{name}.assigned"))?;
                    let v = load_slot(self, at, mem)?;
                    self.builder.build_store(copy, v)?;
                    let f = if assigned_before {
                        bool_t.const_all_ones().into()
                    } else {
                        load_slot(self, at + 1, bool_t.into())?
                    };
                    self.builder.build_store(flag, f)?;
                    let s = Slot::Scalar {
                        ty,
                        ptr: copy,
                        assigned: Some(flag),
                    };
                    if store_back {
                        let home = load_slot(self, at + 2, ptr.into())?.into_pointer_value();
                        let home_flag = if flagged {
                            Some(load_slot(self, at + 3, ptr.into())?.into_pointer_value())
                        } else {
                            None
                        };
                        private.push((*cap, s.clone(), home, home_flag));
                    }
                    s
                }
                Capture::SharedArrayVar { ty, at } => Slot::ArrayVar {
                    ty,
                    ptr: load_slot(self, at, ptr.into())?.into_pointer_value(),
                    assigned: load_slot(self, at + 1, ptr.into())?.into_pointer_value(),
                },
                Capture::PrivateArrayVar { ty, at, store_back } => {
                    let copy = self.desc_buffer(&alloca_builder, &self.builder, ty.ndims, name)?;
                    let snap = load_slot(self, at, ptr.into())?.into_pointer_value();
                    let view = self.load_desc(snap, ty, name)?;
                    self.store_desc(copy, &view)?;
                    let flag = alloca_builder.build_alloca(bool_t, &format!("{name}.assigned"))?;
                    let f = load_slot(self, at + 1, bool_t.into())?;
                    self.builder.build_store(flag, f)?;
                    let s = Slot::ArrayVar {
                        ty,
                        ptr: copy,
                        assigned: flag,
                    };
                    if store_back {
                        let home = load_slot(self, at + 2, ptr.into())?.into_pointer_value();
                        let home_flag = load_slot(self, at + 3, ptr.into())?.into_pointer_value();
                        private.push((*cap, s.clone(), home, Some(home_flag)));
                    }
                    s
                }
                Capture::Array { ty, at } => {
                    let desc = load_slot(self, at, ptr.into())?.into_pointer_value();
                    Slot::Array(self.load_desc(desc, ty, name)?)
                }
            };
            slots.insert(name.clone(), slot);
        }
        let mut g2 = FnGen {
            f: g.f,
            llfn,
            ctx_ptr: ctx,
            outs: Vec::new(),
            vars: slots,
            loops: Vec::new(),
            line: g.line,
            alloca_builder,
            depth_in: self.i64c(0),
        };
        // Counters of the chunk's first point: lo split over the counts, last range fastest.
        let mut counters = Vec::new();
        for _ in 0..d {
            counters.push(g2.alloca_builder.build_alloca(i64t, "parfor.k")?);
        }
        let lin = g2.alloca_builder.build_alloca(i64t, "parfor.i")?;
        let mut rest = lo;
        for k in (0..d as usize).rev() {
            if k == 0 {
                // The outermost counter is what is left (lo < the product of the counts).
                self.builder.build_store(counters[k], rest)?;
                break;
            }
            let kk = self.builder.build_int_unsigned_rem(rest, counts[k], "")?;
            rest = self.builder.build_int_unsigned_div(rest, counts[k], "")?;
            self.builder.build_store(counters[k], kk)?;
        }
        self.builder.build_store(lin, lo)?;
        // The chunk runs as rows: the innermost range from its counter to the end of the
        // row or of the chunk, whichever is first, as a plain counted loop (LLVM
        // vectorizes it, speculating unit strides: one flattened loop whose counters
        // wrap by `select` it could not, and R's `b[I, J] <- a[I, J - 1] + ...` ran
        // 2.5x its serial loops), then the outer counters step as an odometer.
        let last_dim = d as usize - 1;
        let row = self.cx.append_basic_block(llfn, "parfor.row");
        let head = self.cx.append_basic_block(llfn, "parfor.head");
        let body_bb = self.cx.append_basic_block(llfn, "parfor.body");
        let latch = self.cx.append_basic_block(llfn, "parfor.latch");
        let row_done = self.cx.append_basic_block(llfn, "parfor.row_done");
        let exit = self.cx.append_basic_block(llfn, "parfor.exit");
        self.builder.build_unconditional_branch(row)?;
        self.builder.position_at_end(row);
        let k_first = self
            .builder
            .build_load(i64t, counters[last_dim], "")?
            .into_int_value();
        let i_first = self.builder.build_load(i64t, lin, "")?.into_int_value();
        let in_row = self.builder.build_int_sub(counts[last_dim], k_first, "")?;
        let in_chunk = self.builder.build_int_sub(hi, i_first, "")?;
        let fewer = self
            .builder
            .build_int_compare(IntPredicate::ULT, in_row, in_chunk, "")?;
        let span = self
            .builder
            .build_select(fewer, in_row, in_chunk, "parfor.span")?
            .into_int_value();
        let row_end = self.builder.build_int_add(k_first, span, "parfor.row_end")?;
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(head);
        for (k, v) in vars.iter().enumerate() {
            let cnt = self
                .builder
                .build_load(i64t, counters[k], "")?
                .into_int_value();
            let off = self.builder.build_int_mul(cnt, steps[k], "")?;
            let x = self.builder.build_int_add(starts[k], off, "")?;
            let ty = match g2.vars.get(v) {
                Some(Slot::Scalar { ty, .. }) => *ty,
                _ => return Err(unsupported(&format!("loop variable `{v}`"), &g.f.name)),
            };
            let x: IntValue = if ty == ScalarType::I32 {
                self.builder.build_int_truncate(x, self.cx.i32_type(), "")?
            } else {
                x
            };
            self.store_var(&g2, v, Val { v: x.into(), ty })?;
        }
        self.builder.build_unconditional_branch(body_bb)?;
        self.builder.position_at_end(body_bb);
        // `break` and `return` are not allowed in a parfor body; `continue` ends the
        // iteration.
        g2.loops.push((latch, exit));
        self.block(&mut g2, &body.stmts)?;
        g2.loops.pop();
        if !self.terminated() {
            self.builder.build_unconditional_branch(latch)?;
        }
        // Latch: next point of the row, or the row's end. A body holding a loop polls the
        // interrupt here, as a serial `for` does at its back edge (interrupt.rs): without
        // it a parallel loop over inner loops could not be stopped.
        self.builder.position_at_end(latch);
        if super::interrupt::holds_loop(body) {
            self.poll_interrupt(&mut g2)?;
        }
        let c = self
            .builder
            .build_load(i64t, counters[last_dim], "")?
            .into_int_value();
        let c1 = self.builder.build_int_add(c, self.i64c(1), "")?;
        self.builder.build_store(counters[last_dim], c1)?;
        let row_over = self
            .builder
            .build_int_compare(IntPredicate::EQ, c1, row_end, "")?;
        self.builder
            .build_conditional_branch(row_over, row_done, head)?;
        // Row done: the end of the chunk, or the next row (the outer counters step, the
        // innermost starts again at 0).
        self.builder.position_at_end(row_done);
        let next = self.builder.build_int_add(i_first, span, "")?;
        self.builder.build_store(lin, next)?;
        if last_dim == 0 {
            self.builder.build_unconditional_branch(exit)?;
        } else {
            let done = self
                .builder
                .build_int_compare(IntPredicate::EQ, next, hi, "")?;
            let incs: Vec<_> = (0..last_dim)
                .map(|_| self.cx.append_basic_block(llfn, "parfor.inc"))
                .collect();
            self.builder
                .build_conditional_branch(done, exit, incs[last_dim - 1])?;
            for k in (0..last_dim).rev() {
                self.builder.position_at_end(incs[k]);
                if k == last_dim - 1 {
                    self.builder.build_store(counters[last_dim], self.i64c(0))?;
                }
                let c = self
                    .builder
                    .build_load(i64t, counters[k], "")?
                    .into_int_value();
                let c1 = self.builder.build_int_add(c, self.i64c(1), "")?;
                if k == 0 {
                    self.builder.build_store(counters[k], c1)?;
                    self.builder.build_unconditional_branch(row)?;
                } else {
                    let wrap = self
                        .builder
                        .build_int_compare(IntPredicate::EQ, c1, counts[k], "")?;
                    let v = self
                        .builder
                        .build_select(wrap, self.i64c(0), c1, "")?
                        .into_int_value();
                    self.builder.build_store(counters[k], v)?;
                    self.builder
                        .build_conditional_branch(wrap, incs[k - 1], row)?;
                }
            }
        }
        // Exit: the chunk with the last iteration stores the private variables back.
        self.builder.position_at_end(exit);
        let store_back = self.cx.append_basic_block(llfn, "parfor.store_back");
        let ret = self.cx.append_basic_block(llfn, "parfor.ret");
        let is_last = self.builder.build_int_compare(
            IntPredicate::NE,
            last,
            self.cx.i32_type().const_zero(),
            "",
        )?;
        self.builder
            .build_conditional_branch(is_last, store_back, ret)?;
        self.builder.position_at_end(store_back);
        for (cap, copy, home, home_flag) in &private {
            match (cap, copy) {
                (Capture::PrivateScalar { ty, .. }, Slot::Scalar { ptr, assigned, .. }) => {
                    let mem = self.mem_type(*ty, &g.f.name)?;
                    let v = self.builder.build_load(mem, *ptr, "")?;
                    self.builder.build_store(*home, v)?;
                    if let (Some(hf), Some(f)) = (home_flag, assigned) {
                        let fv = self.builder.build_load(bool_t, *f, "")?;
                        self.builder.build_store(*hf, fv)?;
                    }
                }
                (Capture::PrivateArrayVar { ty, .. }, Slot::ArrayVar { ptr, assigned, .. }) => {
                    let view = self.load_desc(*ptr, *ty, "")?;
                    self.store_desc(*home, &view)?;
                    if let Some(hf) = home_flag {
                        let fv = self.builder.build_load(bool_t, *assigned, "")?;
                        self.builder.build_store(*hf, fv)?;
                    }
                }
                _ => {}
            }
        }
        self.builder.build_unconditional_branch(ret)?;
        self.builder.position_at_end(ret);
        self.builder
            .build_return(Some(&self.cx.i32_type().const_zero()))?;
        self.finish_chunk_sums(llfn, chunk_sums)?;
        Ok(())
    }
}

/// Whether a scalar of type `ty` travels in one environment slot (8 bytes) by value.
pub(crate) fn fits_slot(ty: ScalarType) -> bool {
    ty != ScalarType::C128
}

/// The value of an integer constant expression written as a literal.
fn int_const(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const {
            value: Literal::I64(v),
        } => Some(*v),
        Expr::Const {
            value: Literal::I32(v),
        } => Some(*v as i64),
        _ => None,
    }
}
