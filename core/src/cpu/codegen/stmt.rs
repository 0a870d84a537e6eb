//! Statements and control flow: assignment, if, loops over ranges and domains, while,
//! break/continue, return, and calls between module functions (status propagated).

use super::tuple::{is_compound, AnyVal, RangeParts};
use super::{internal_name, unsupported, CodeGen, FnGen, Slot, Val};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Block, Expr, LValue, Stmt, StmtKind};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};
use inkwell::values::{BasicMetadataValueEnum, IntValue, PointerValue, ValueKind};
use inkwell::IntPredicate;

/// One result of a call.
pub(crate) enum CallOut<'ctx> {
    Scalar(Val<'ctx>),
    Array(super::ArrayView<'ctx>),
    /// A range, domain or tuple (`tuple.rs`).
    Value(AnyVal<'ctx>),
}

/// What a call's result slot holds.
enum OutKind {
    Scalar(ScalarType),
    Array(ArrayType),
    Value(Type),
}

/// One evaluated loop range: first value, step, and index of the last iteration.
pub(crate) struct LoopRange<'ctx> {
    pub start: IntValue<'ctx>,
    pub step: IntValue<'ctx>,
    pub last: IntValue<'ctx>,
    pub nonempty: IntValue<'ctx>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    pub(crate) fn block(&mut self, g: &mut FnGen<'ctx, 'm>, b: &'m [Stmt]) -> VrResult<()> {
        for s in b {
            if self.terminated() {
                self.start_dead_block(g);
            }
            self.stmt(g, s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, g: &mut FnGen<'ctx, 'm>, s: &'m Stmt) -> VrResult<()> {
        let saved_line = g.line;
        if s.line.is_some() {
            g.line = s.line;
        }
        let r = match self.stmt_plan(g, s) {
            None => self.stmt_kind(g, &s.kind),
            Some(plan) => self.planned_stmt(g, s, plan),
        };
        g.line = saved_line;
        r
    }

    /// A statement with offload actions (`offload.rs`): the sync before it, the task
    /// that may replace its code, the sync at a `while`'s condition, the one after it.
    fn planned_stmt(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        s: &'m Stmt,
        plan: &'m crate::runtime::offload::StmtPlan,
    ) -> VrResult<()> {
        if let Some(a) = &plan.before {
            self.sync_action(g, a)?;
        }
        self.pending_cond = plan.cond.as_ref();
        let r = match &plan.task {
            Some(a) => self.with_task(g, a, |cg, g| cg.stmt_kind(g, &s.kind)),
            None => self.stmt_kind(g, &s.kind),
        };
        self.pending_cond = None;
        r?;
        if let Some(a) = &plan.after {
            if !self.terminated() {
                self.sync_action(g, a)?;
            }
        }
        Ok(())
    }

    fn stmt_kind(&mut self, g: &mut FnGen<'ctx, 'm>, s: &'m StmtKind) -> VrResult<()> {
        match s {
            StmtKind::Block(Block { stmts, .. }) => self.block(g, stmts),
            StmtKind::Assign { targets, value } => self.assign(g, targets, value),
            StmtKind::If { .. } if self.parfor_when_large(g, s)? => Ok(()),
            StmtKind::If { cond, then, els } => {
                let c = self.expr(g, cond)?;
                if c.ty != ScalarType::Bool {
                    return Err(self.type_err(g, format!("if condition of type {}", c.ty)));
                }
                let then_bb = self.cx.append_basic_block(g.llfn, "then");
                let else_bb = self.cx.append_basic_block(g.llfn, "else");
                let join = self.cx.append_basic_block(g.llfn, "endif");
                self.builder
                    .build_conditional_branch(c.int(), then_bb, else_bb)?;
                self.builder.position_at_end(then_bb);
                self.block(g, &then.stmts)?;
                if !self.terminated() {
                    self.builder.build_unconditional_branch(join)?;
                }
                self.builder.position_at_end(else_bb);
                if let Some(e) = els {
                    self.block(g, &e.stmts)?;
                }
                if !self.terminated() {
                    self.builder.build_unconditional_branch(join)?;
                }
                self.builder.position_at_end(join);
                Ok(())
            }
            StmtKind::For { vars, domain, body } => self.for_loop(g, vars, domain, body),
            // Outlined and run on the thread pool on cpu-par, serially on cpu (parfor.rs).
            StmtKind::Parfor { vars, domain, body } => self.parfor(g, vars, domain, body),
            StmtKind::While { cond, body } => {
                let cond_action = self.pending_cond.take();
                let head = self.cx.append_basic_block(g.llfn, "while.head");
                let body_bb = self.cx.append_basic_block(g.llfn, "while.body");
                let exit = self.cx.append_basic_block(g.llfn, "while.exit");
                self.builder.build_unconditional_branch(head)?;
                self.builder.position_at_end(head);
                self.poll_interrupt(g)?;
                if let Some(a) = cond_action {
                    self.sync_action(g, a)?;
                }
                let c = self.expr(g, cond)?;
                if c.ty != ScalarType::Bool {
                    return Err(self.type_err(g, format!("while condition of type {}", c.ty)));
                }
                self.builder
                    .build_conditional_branch(c.int(), body_bb, exit)?;
                self.builder.position_at_end(body_bb);
                g.loops.push((head, exit));
                self.block(g, &body.stmts)?;
                g.loops.pop();
                if !self.terminated() {
                    self.builder.build_unconditional_branch(head)?;
                }
                self.builder.position_at_end(exit);
                Ok(())
            }
            StmtKind::Break | StmtKind::Continue => {
                let Some(&(cont, brk)) = g.loops.last() else {
                    return Err(self.type_err(g, "break/continue outside a loop".into()));
                };
                let target = if matches!(s, StmtKind::Break) {
                    brk
                } else {
                    cont
                };
                self.builder.build_unconditional_branch(target)?;
                Ok(())
            }
            StmtKind::Return { values } => {
                if values.len() != g.f.results.len() {
                    return Err(self.type_err(
                        g,
                        format!(
                            "return of {} values from a function of {}",
                            values.len(),
                            g.f.results.len()
                        ),
                    ));
                }
                // Evaluate every value (left to right) before storing any.
                enum Out<'ctx> {
                    Scalar(inkwell::values::BasicValueEnum<'ctx>),
                    Array(super::ArrayView<'ctx>),
                    Value(Type, AnyVal<'ctx>),
                }
                let mut stores: Vec<Out> = Vec::new();
                for (k, v) in values.iter().enumerate() {
                    match &g.f.results[k] {
                        Type::Array(rt) => {
                            let (view, name) = self.array_arg(g, v)?;
                            let fits = view.ty.elem == rt.elem
                                && view.ty.ndims == rt.ndims
                                && (rt.layout == Layout::Strided || view.ty.layout == rt.layout);
                            if !fits {
                                return Err(self.type_err(
                                    g,
                                    format!("return of `{name}` ({}) as {rt}", view.ty),
                                ));
                            }
                            stores.push(Out::Array(view));
                        }
                        rt if is_compound(rt) => {
                            let rt = rt.clone();
                            let val = self.any_value(g, v)?;
                            stores.push(Out::Value(rt, val));
                        }
                        rt => {
                            let val = self.expr(g, v)?;
                            if *rt != Type::scalar(val.ty) {
                                return Err(
                                    self.type_err(g, format!("return of {} as {rt}", val.ty))
                                );
                            }
                            stores.push(Out::Scalar(self.reg_to_mem(val)?));
                        }
                    }
                }
                for (k, m) in stores.into_iter().enumerate() {
                    match m {
                        Out::Scalar(v) => {
                            self.builder.build_store(g.outs[k], v)?;
                        }
                        // The caller's descriptor buffer receives the array's data
                        // pointer, dims and strides (the view may live in this frame).
                        Out::Array(view) => self.store_desc(g.outs[k], &view)?,
                        Out::Value(t, v) => self.store_value(g, g.outs[k], &t, &v)?,
                    }
                }
                self.return_ok(g)?;
                Ok(())
            }
            StmtKind::Expr { expr } => {
                match expr {
                    Expr::Call { func, args } => {
                        self.call(g, func, args)?;
                    }
                    other => {
                        self.expr(g, other)?;
                    }
                }
                Ok(())
            }
            // Hooks for reference-counting hosts: nothing observable.
            StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => Ok(()),
            StmtKind::Alloc { var, dims } => match g.vars.get(var) {
                Some(Slot::ArrayVar { ty, ptr, assigned }) => {
                    let (ty, ptr, assigned) = (*ty, *ptr, *assigned);
                    let view = self.alloc_array(g, ty, dims)?;
                    self.store_desc(ptr, &view)?;
                    self.builder
                        .build_store(assigned, self.cx.bool_type().const_all_ones())?;
                    Ok(())
                }
                _ => Err(unsupported(&format!("`alloc` of `{var}`"), &g.f.name)),
            },
            // Arrays are the host's or the caller's in this increment: freeing a local
            // only makes it unassigned.
            StmtKind::Free { var } => match g.vars.get(var) {
                Some(Slot::ArrayVar { assigned, .. }) => {
                    self.builder
                        .build_store(*assigned, self.cx.bool_type().const_zero())?;
                    Ok(())
                }
                _ => Err(unsupported(&format!("`free` of `{var}`"), &g.f.name)),
            },
        }
    }

    fn assign(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        targets: &'m [LValue],
        value: &'m Expr,
    ) -> VrResult<()> {
        if let [LValue::Index {
            array,
            indices,
            flags,
        }] = targets
        {
            return self.index_assign(g, array, indices, *flags, value);
        }
        if let [LValue::Var { name }] = targets {
            match g.vars.get(name) {
                Some(Slot::ArrayVar { ty, ptr, assigned }) => {
                    let (ty, ptr, assigned) = (*ty, *ptr, *assigned);
                    return self.assign_array(g, name, ty, ptr, assigned, value);
                }
                Some(Slot::Array(_)) => {
                    return Err(unsupported(
                        &format!("assignment to array parameter `{name}`"),
                        &g.f.name,
                    ))
                }
                Some(Slot::Value { .. }) => return self.assign_compound(g, name, value),
                _ => {}
            }
        }
        let vals = if targets.len() == 1 {
            vec![CallOut::Scalar(self.expr(g, value)?)]
        } else {
            match value {
                Expr::Call { func, args } => {
                    let mut outs = self.call_any(g, func, args)?;
                    // One tuple-typed result: its items.
                    if let [CallOut::Value(AnyVal::Tuple(_))] = outs.as_slice() {
                        match outs.pop() {
                            Some(CallOut::Value(AnyVal::Tuple(items))) => {
                                items.into_iter().map(CallOut::from).collect()
                            }
                            _ => outs,
                        }
                    } else {
                        outs
                    }
                }
                Expr::Tuple { items } => {
                    let mut v = Vec::new();
                    for i in items {
                        v.push(CallOut::Scalar(self.expr(g, i)?));
                    }
                    v
                }
                // A tuple held elsewhere (a variable, a tuple item).
                other => match self.any_value(g, other)? {
                    AnyVal::Tuple(items) => items.into_iter().map(CallOut::from).collect(),
                    _ => return Err(self.type_err(g, "multiple assignment of a non-tuple".into())),
                },
            }
        };
        if vals.len() != targets.len() {
            return Err(self.type_err(
                g,
                format!(
                    "{} values assigned to {} targets",
                    vals.len(),
                    targets.len()
                ),
            ));
        }
        for (t, v) in targets.iter().zip(vals) {
            match (t, v) {
                (LValue::Var { name }, CallOut::Scalar(v)) => self.store_var(g, name, v)?,
                (
                    LValue::Index {
                        array,
                        indices,
                        flags,
                    },
                    CallOut::Scalar(v),
                ) => self.store_selection(
                    g,
                    array,
                    indices,
                    *flags,
                    super::elementwise::Operand::Scalar(v),
                )?,
                (LValue::Var { name }, CallOut::Array(view)) => match g.vars.get(name) {
                    Some(Slot::ArrayVar { ty, ptr, assigned }) => {
                        let (ty, ptr, assigned) = (*ty, *ptr, *assigned);
                        let fits = view.ty.elem == ty.elem
                            && view.ty.ndims == ty.ndims
                            && (ty.layout == Layout::Strided || view.ty.layout == ty.layout);
                        if !fits {
                            return Err(self
                                .type_err(g, format!("array result assigned to `{name}` ({ty})")));
                        }
                        self.store_desc(ptr, &view)?;
                        self.builder
                            .build_store(assigned, self.cx.bool_type().const_all_ones())?;
                    }
                    _ => {
                        return Err(unsupported(
                            &format!("array result assigned to `{name}`"),
                            &g.f.name,
                        ))
                    }
                },
                (LValue::Var { name }, CallOut::Value(v)) => self.store_any(g, name, v)?,
                (LValue::Index { array, .. }, CallOut::Value(_)) => {
                    return Err(self.type_err(
                        g,
                        format!("range, domain or tuple stored into elements of `{array}`"),
                    ))
                }
                (
                    LValue::Index {
                        array,
                        indices,
                        flags,
                    },
                    CallOut::Array(view),
                ) => self.store_selection(
                    g,
                    array,
                    indices,
                    *flags,
                    super::elementwise::Operand::Array(view),
                )?,
            }
        }
        Ok(())
    }

    /// `(set b a)` for an array local `b`: b now refers to a's array (its descriptor is
    /// copied into b's, the elements are not), likewise for a view or a call's result.
    fn assign_array(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
        ty: ArrayType,
        ptr: PointerValue<'ctx>,
        assigned: PointerValue<'ctx>,
        value: &'m Expr,
    ) -> VrResult<()> {
        if let Expr::Index {
            array,
            indices,
            flags,
        } = value
        {
            if flags.view {
                let view = self.view_slice(g, array, indices, *flags)?;
                self.store_desc(ptr, &view)?;
                self.builder
                    .build_store(assigned, self.cx.bool_type().const_all_ones())?;
                return Ok(());
            }
        }
        let (view, src) = match value {
            Expr::Call { func, args } => {
                let mut outs = self.call_any(g, func, args)?;
                match (outs.len(), outs.pop()) {
                    (1, Some(CallOut::Array(v))) => (v, format!("(call {func})")),
                    _ => {
                        return Err(self
                            .type_err(g, format!("call of `{func}` assigned to array `{name}`")))
                    }
                }
            }
            _ => self.array_arg(g, value)?,
        };
        let ok_type = view.ty.elem == ty.elem
            && view.ty.ndims == ty.ndims
            && (ty.layout == Layout::Strided || view.ty.layout == ty.layout);
        if !ok_type {
            return Err(self.type_err(
                g,
                format!("assignment of `{src}` ({}) to `{name}` ({ty})", view.ty),
            ));
        }
        self.store_desc(ptr, &view)?;
        self.builder
            .build_store(assigned, self.cx.bool_type().const_all_ones())?;
        Ok(())
    }

    /// Call module function `func` with marshalled arguments (`ctx`, result slots, then
    /// the parameters): the recursion limit checked first (the interpreter checks it in
    /// the caller, after the arguments), a failing callee's status returned at once; the
    /// builder is left on the success path.
    pub(crate) fn emit_checked_call(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: &str,
        call_args: &[BasicMetadataValueEnum<'ctx>],
    ) -> VrResult<()> {
        let depth = self
            .builder
            .build_load(self.cx.i64_type(), g.ctx_ptr, "depth")?
            .into_int_value();
        let ok = self.builder.build_int_compare(
            IntPredicate::SLT,
            depth,
            self.i64c(crate::cpu::abi::MAX_CALL_DEPTH),
            "",
        )?;
        self.check_noted(
            g,
            ok,
            ErrorCode::RecursionTooDeep,
            None,
            None,
            Some((func, &[])),
        )?;
        let llcallee = self
            .module
            .get_function(&internal_name(func))
            .ok_or_else(|| self.type_err(g, format!("`{func}` was not declared")))?;
        let status = match self
            .builder
            .build_call(llcallee, call_args, "status")?
            .try_as_basic_value()
        {
            ValueKind::Basic(v) => v.into_int_value(),
            _ => return Err(self.type_err(g, "call without status".into())),
        };
        let ok = self.builder.build_int_compare(
            IntPredicate::EQ,
            status,
            self.cx.i32_type().const_zero(),
            "",
        )?;
        let ok_bb = self.cx.append_basic_block(g.llfn, "call.ok");
        let err_bb = self.cx.append_basic_block(g.llfn, "call.err");
        self.builder.build_conditional_branch(ok, ok_bb, err_bb)?;
        self.builder.position_at_end(err_bb);
        self.builder.build_return(Some(&status))?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    /// Call a module function; returns its results (checked status: on error, return
    /// the callee's status at once).
    pub(crate) fn call(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: &str,
        args: &[Expr],
    ) -> VrResult<Vec<Val<'ctx>>> {
        let outs = self.call_any(g, func, args)?;
        outs.into_iter()
            .map(|o| match o {
                CallOut::Scalar(v) => Ok(v),
                CallOut::Array(_) | CallOut::Value(_) => Err(unsupported(
                    &format!("use of an array result of `{func}` other than assigning it to an array variable"),
                    &g.f.name,
                )),
            })
            .collect()
    }

    /// Call a module function; its results, arrays included (as views that an
    /// assignment copies into a variable's descriptor).
    pub(crate) fn call_any(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: &str,
        args: &[Expr],
    ) -> VrResult<Vec<CallOut<'ctx>>> {
        let callee = self
            .vm
            .function(func)
            .ok_or_else(|| self.type_err(g, format!("call of unknown function `{func}`")))?;
        if callee.params.len() != args.len() {
            return Err(self.type_err(g, format!("call of `{func}` with {} arguments", args.len())));
        }
        let mut outs = Vec::new();
        for r in &callee.results {
            let (slot, kind) = match r {
                Type::Scalar { elem } => {
                    let slot = g
                        .alloca_builder
                        .build_alloca(self.mem_type(*elem, &g.f.name)?, "ret")?;
                    (slot, OutKind::Scalar(*elem))
                }
                Type::Array(at) => {
                    let slot =
                        self.desc_buffer(&g.alloca_builder, &self.builder, at.ndims, "ret")?;
                    (slot, OutKind::Array(*at))
                }
                t if is_compound(t) => {
                    let mt = self.value_mem_type(t, &g.f.name)?;
                    let slot = g.alloca_builder.build_alloca(mt, "ret")?;
                    (slot, OutKind::Value(t.clone()))
                }
                other => {
                    return Err(unsupported(
                        &format!("call of `{func}`, which returns `{other}`,"),
                        &g.f.name,
                    ))
                }
            };
            outs.push((slot, kind));
        }
        let mut call_args: Vec<BasicMetadataValueEnum> = vec![g.ctx_ptr.into()];
        call_args.extend(outs.iter().map(|(p, _)| BasicMetadataValueEnum::from(*p)));
        for (p, a) in callee.params.iter().zip(args) {
            match &p.ty {
                Type::Array(at) => {
                    let (view, name) = self.array_arg(g, a)?;
                    let ty = view.ty;
                    if ty.elem != at.elem
                        || ty.ndims != at.ndims
                        || (at.layout != crate::vrir::types::Layout::Strided
                            && ty.layout != at.layout)
                    {
                        return Err(self
                            .type_err(g, format!("argument `{name}` of type {ty} for {}", p.ty)));
                    }
                    let desc = view.desc;
                    call_args.push(desc.into());
                }
                Type::Scalar { elem } => {
                    let v = self.expr(g, a)?;
                    if v.ty != *elem {
                        return Err(self.type_err(
                            g,
                            format!(
                                "argument of type {} for parameter `{}` of {elem}",
                                v.ty, p.name
                            ),
                        ));
                    }
                    call_args.push(v.v.into());
                }
                t if is_compound(t) => {
                    let p = self.compound_arg(g, t, a)?;
                    call_args.push(p.into());
                }
                other => {
                    return Err(unsupported(
                        &format!("argument of type `{other}`"),
                        &g.f.name,
                    ))
                }
            }
        }
        // Recursion limit, checked where the interpreter checks it: in the caller, at
        // the calling statement, after the arguments.
        self.emit_checked_call(g, func, &call_args)?;
        let mut vals = Vec::new();
        for (p, kind) in outs {
            match kind {
                OutKind::Scalar(t) => {
                    let raw = self
                        .builder
                        .build_load(self.mem_type(t, &g.f.name)?, p, "")?;
                    vals.push(CallOut::Scalar(Val {
                        v: self.mem_to_reg(raw, t)?,
                        ty: t,
                    }));
                }
                OutKind::Array(at) => vals.push(CallOut::Array(self.load_desc(p, at, func)?)),
                OutKind::Value(t) => vals.push(CallOut::Value(self.load_value(g, p, &t)?)),
            }
        }
        Ok(vals)
    }

    /// Evaluate `(range a b [s])` for a loop: checks the step and computes the index of
    /// the last iteration without overflow (unsigned distance / |step|).
    pub(crate) fn loop_range(&mut self, g: &mut FnGen<'ctx, 'm>, e: &Expr) -> VrResult<LoopRange<'ctx>> {
        let Expr::Range {
            start: Some(start),
            stop: Some(stop),
            step,
        } = e
        else {
            return Err(unsupported(
                "loop over a domain that is not a literal `range`/`domain` with both endpoints",
                &g.f.name,
            ));
        };
        let as_i64 =
            |s: &mut Self, g: &mut FnGen<'ctx, 'm>, x: &Expr| -> VrResult<IntValue<'ctx>> {
                let v = s.expr(g, x)?;
                match v.ty {
                    ScalarType::I64 => Ok(v.int()),
                    ScalarType::I32 => {
                        Ok(s.builder.build_int_s_extend(v.int(), s.cx.i64_type(), "")?)
                    }
                    t => Err(s.type_err(g, format!("range endpoint of type {t}"))),
                }
            };
        let a = as_i64(self, g, start)?;
        let b = as_i64(self, g, stop)?;
        let s = match step {
            Some(st) => as_i64(self, g, st)?,
            None => self.i64c(1),
        };
        self.loop_range_of(
            g,
            RangeParts {
                start: a,
                stop: b,
                step: s,
            },
        )
    }

    /// The loop over an evaluated range (its step checked non-zero here).
    fn loop_range_of(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        r: RangeParts<'ctx>,
    ) -> VrResult<LoopRange<'ctx>> {
        let (a, b, s) = (r.start, r.stop, r.step);
        let zero = self.i64c(0);
        let nz = self
            .builder
            .build_int_compare(IntPredicate::NE, s, zero, "")?;
        self.check(g, nz, ErrorCode::ZeroStep, None, None)?;
        let bl = &self.builder;
        let pos = bl.build_int_compare(IntPredicate::SGT, s, zero, "")?;
        let up = bl.build_int_compare(IntPredicate::SGE, b, a, "")?;
        let down = bl.build_int_compare(IntPredicate::SGE, a, b, "")?;
        let nonempty = bl.build_select(pos, up, down, "")?.into_int_value();
        let d_up = bl.build_int_sub(b, a, "")?;
        let d_down = bl.build_int_sub(a, b, "")?;
        let dist = bl.build_select(pos, d_up, d_down, "")?.into_int_value();
        let neg_s = bl.build_int_neg(s, "")?;
        let mag = bl.build_select(pos, s, neg_s, "")?.into_int_value();
        let last = bl.build_int_unsigned_div(dist, mag, "last")?;
        Ok(LoopRange {
            start: a,
            step: s,
            last,
            nonempty,
        })
    }

    pub(crate) fn for_loop(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        vars: &'m [String],
        domain: &'m Expr,
        body: &'m Block,
    ) -> VrResult<()> {
        let range_exprs: Vec<&Expr> = match domain {
            Expr::Domain { ranges } => ranges.iter().collect(),
            r @ Expr::Range { .. } => vec![r],
            // A range or domain value (variable, call, tuple item): counted by its type.
            other => match self.static_type(g, other) {
                Some(Type::Domain { ndims }) => vec![other; ndims as usize],
                _ => vec![other],
            },
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
        // The domain is evaluated once, before the first iteration.
        let mut ranges = Vec::new();
        if matches!(domain, Expr::Domain { .. } | Expr::Range { .. }) {
            for r in range_exprs {
                ranges.push(self.loop_range(g, r)?);
            }
        } else {
            for r in self.range_values(g, domain)? {
                ranges.push(self.loop_range_of(g, r)?);
            }
        }
        let mut all = self.cx.bool_type().const_all_ones();
        for r in &ranges {
            all = self.builder.build_and(all, r.nonempty, "")?;
        }
        let exit = self.cx.append_basic_block(g.llfn, "for.exit");
        let i64t = self.cx.i64_type();
        // Build the nest: level k has a counter, a header that sets v_k, and a latch.
        let mut latches = Vec::new();
        let mut counters = Vec::new();
        for _ in &ranges {
            counters.push(g.alloca_builder.build_alloca(i64t, "for.k")?);
        }
        let first_header = self.cx.append_basic_block(g.llfn, "for.head");
        self.builder.build_store(counters[0], self.i64c(0))?;
        self.builder
            .build_conditional_branch(all, first_header, exit)?;
        let mut headers = vec![first_header];
        for (k, r) in ranges.iter().enumerate() {
            self.builder.position_at_end(headers[k]);
            let cnt = self
                .builder
                .build_load(i64t, counters[k], "")?
                .into_int_value();
            let off = self.builder.build_int_mul(cnt, r.step, "")?;
            let v = self.builder.build_int_add(r.start, off, "")?;
            let ty = match g.vars.get(&vars[k]) {
                Some(Slot::Scalar { ty, .. }) => *ty,
                _ => unreachable!("checked above"),
            };
            let v = if ty == ScalarType::I32 {
                self.builder.build_int_truncate(v, self.cx.i32_type(), "")?
            } else {
                v
            };
            self.store_var(g, &vars[k], Val { v: v.into(), ty })?;
            let latch = self.cx.append_basic_block(g.llfn, "for.latch");
            latches.push(latch);
            if k + 1 < ranges.len() {
                self.builder.build_store(counters[k + 1], self.i64c(0))?;
                let header = self.cx.append_basic_block(g.llfn, "for.head");
                self.builder.build_unconditional_branch(header)?;
                headers.push(header);
            }
        }
        let headers_end = self.cx.append_basic_block(g.llfn, "for.body");
        self.builder.build_unconditional_branch(headers_end)?;
        self.builder.position_at_end(headers_end);
        g.loops
            .push((*latches.last().expect("at least one range"), exit));
        self.block(g, &body.stmts)?;
        g.loops.pop();
        if !self.terminated() {
            self.builder
                .build_unconditional_branch(*latches.last().expect("range"))?;
        }
        // Latches, innermost first: advance, or fall to the enclosing latch when done.
        let body_holds_loop = super::interrupt::holds_loop(body);
        for k in (0..ranges.len()).rev() {
            self.builder.position_at_end(latches[k]);
            if k + 1 < ranges.len() || body_holds_loop {
                self.poll_interrupt(g)?;
            }
            let cnt = self
                .builder
                .build_load(i64t, counters[k], "")?
                .into_int_value();
            let done = self
                .builder
                .build_int_compare(IntPredicate::EQ, cnt, ranges[k].last, "")?;
            let next = self.builder.build_int_add(cnt, self.i64c(1), "")?;
            self.builder.build_store(counters[k], next)?;
            let outer = if k == 0 { exit } else { latches[k - 1] };
            self.builder
                .build_conditional_branch(done, outer, headers[k])?;
        }
        self.builder.position_at_end(exit);
        Ok(())
    }
}
