//! Calls into an offload engine (`runtime::offload`): where a plan attaches actions to a
//! statement, generated code calls the Rust helper `vr_cpu_offload(ctx, action, env)`
//! (see `cpu::offload`) with an environment of two pointer slots per variable of the
//! action: the variable's storage (a scalar's memory, an array's descriptor) and its
//! "assigned" flag (null for parameters, always assigned). The status says what to do:
//! 0 go on, 1 an error was recorded (return it), 2 the engine declined a task (run the
//! statement's own code, which is always compiled).

use super::{CodeGen, FnGen, Slot};
use crate::runtime::error::VrResult;
use crate::runtime::offload::{Action, StmtPlan};
use crate::vrir::ast::Stmt;
use inkwell::module::Linkage;
use inkwell::values::IntValue;
use inkwell::IntPredicate;

/// Name of the Rust helper that runs one action (see `cpu::offload`).
pub const OFFLOAD: &str = "vr_cpu_offload";

/// What a statement's task call answered.
pub(crate) const DECLINED: u64 = 2;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    pub(crate) fn declare_offload_runtime(&self) {
        let ptr = self.ptr_type();
        let f = self.module.add_function(
            OFFLOAD,
            self.cx
                .i32_type()
                .fn_type(&[ptr.into(), self.cx.i64_type().into(), ptr.into()], false),
            Some(Linkage::External),
        );
        f.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("nounwind"),
        );
    }

    /// The plan's actions for statement `s` of the function being compiled, if any.
    pub(crate) fn stmt_plan(&self, g: &FnGen<'ctx, 'm>, s: &'m Stmt) -> Option<&'m StmtPlan> {
        let plan = self.offload?;
        let id = self.stmt_ids.get(&(s as *const Stmt))?;
        plan.functions.get(&g.f.name)?.stmts.get(id)
    }

    /// Call the engine for `action`; returns its status (0, 1 or 2).
    pub(crate) fn call_action(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        action: &Action,
    ) -> VrResult<IntValue<'ctx>> {
        let ptr = self.ptr_type();
        let n = (2 * action.vars.len() + action.values.len()).max(1) as u32;
        let env = g
            .alloca_builder
            .build_alloca(ptr.array_type(n), "offload.env")?;
        let i64t = self.cx.i64_type();
        // Values first (their evaluation may record an error and return), widened into
        // 8-byte slots: integers and bool as i64, floats as f64.
        for (k, (e, _)) in action.values.iter().enumerate() {
            let v = self.expr(g, e)?;
            let wide: inkwell::values::BasicValueEnum = match v.ty {
                crate::vrir::types::ScalarType::Bool => {
                    self.builder.build_int_z_extend(v.int(), i64t, "")?.into()
                }
                crate::vrir::types::ScalarType::I32 => {
                    self.builder.build_int_s_extend(v.int(), i64t, "")?.into()
                }
                crate::vrir::types::ScalarType::I64 => v.v,
                crate::vrir::types::ScalarType::F32 => self
                    .builder
                    .build_float_ext(v.float(), self.cx.f64_type(), "")?
                    .into(),
                crate::vrir::types::ScalarType::F64 => v.v,
                _ => return Err(self.type_err(g, "a complex offload value".into())),
            };
            // SAFETY (LLVM): the slot index is below the environment's length.
            let slot = unsafe {
                self.builder.build_in_bounds_gep(
                    ptr,
                    env,
                    &[i64t.const_int((2 * action.vars.len() + k) as u64, false)],
                    "",
                )?
            };
            self.builder.build_store(slot, wide)?;
        }
        for (k, (name, _)) in action.vars.iter().enumerate() {
            let (value, flag) = match g.vars.get(name) {
                Some(Slot::Scalar { ptr, assigned, .. }) => (Some(*ptr), *assigned),
                Some(Slot::Array(view)) => (Some(view.desc), None),
                Some(Slot::ArrayVar { ptr, assigned, .. }) => (Some(*ptr), Some(*assigned)),
                Some(Slot::Value { ptr, assigned, .. }) => (Some(*ptr), *assigned),
                _ => (None, None),
            };
            for (j, p) in [value, flag].into_iter().enumerate() {
                // SAFETY (LLVM): the slot index is below the environment's length.
                let slot = unsafe {
                    self.builder.build_in_bounds_gep(
                        ptr,
                        env,
                        &[i64t.const_int((2 * k + j) as u64, false)],
                        "",
                    )?
                };
                self.builder
                    .build_store(slot, p.unwrap_or_else(|| ptr.const_null()))?;
            }
        }
        let helper = self.module.get_function(OFFLOAD).expect("declared");
        let status = self.builder.build_call(
            helper,
            &[
                g.ctx_ptr.into(),
                i64t.const_int(action.id as u64, false).into(),
                env.into(),
            ],
            "offload.status",
        )?;
        match status.try_as_basic_value() {
            inkwell::values::ValueKind::Basic(v) => Ok(v.into_int_value()),
            _ => Err(self.type_err(g, "offload helper without status".into())),
        }
    }

    /// Call the engine for a synchronisation `action`: on status 1 return the recorded
    /// error from the current function, otherwise go on.
    pub(crate) fn sync_action(&mut self, g: &mut FnGen<'ctx, 'm>, action: &Action) -> VrResult<()> {
        let status = self.call_action(g, action)?;
        self.return_on_error(g, status)
    }

    /// Branch: status 1 returns it from the current function; the builder is left on the
    /// path where it is not 1.
    fn return_on_error(&mut self, g: &mut FnGen<'ctx, 'm>, status: IntValue<'ctx>) -> VrResult<()> {
        let i32t = self.cx.i32_type();
        let failed = self.builder.build_int_compare(
            IntPredicate::EQ,
            status,
            i32t.const_int(1, false),
            "",
        )?;
        let err_bb = self.cx.append_basic_block(g.llfn, "offload.err");
        let ok_bb = self.cx.append_basic_block(g.llfn, "offload.ok");
        self.builder
            .build_conditional_branch(failed, err_bb, ok_bb)?;
        self.builder.position_at_end(err_bb);
        // Leave through the function's normal error path (status returned as is); the
        // depth counter is restored by the caller's bookkeeping as for any error.
        self.builder.build_return(Some(&status))?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    /// A statement with a task: ask the engine; its own code runs only when declined.
    /// `cpu` generates that code.
    pub(crate) fn with_task(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        action: &Action,
        cpu: impl FnOnce(&mut Self, &mut FnGen<'ctx, 'm>) -> VrResult<()>,
    ) -> VrResult<()> {
        let status = self.call_action(g, action)?;
        self.return_on_error(g, status)?;
        let declined = self.builder.build_int_compare(
            IntPredicate::EQ,
            status,
            self.cx.i32_type().const_int(DECLINED, false),
            "",
        )?;
        let cpu_bb = self.cx.append_basic_block(g.llfn, "offload.cpu");
        let join = self.cx.append_basic_block(g.llfn, "offload.join");
        self.builder
            .build_conditional_branch(declined, cpu_bb, join)?;
        self.builder.position_at_end(cpu_bb);
        cpu(self, g)?;
        if !self.terminated() {
            self.builder.build_unconditional_branch(join)?;
        }
        self.builder.position_at_end(join);
        Ok(())
    }
}
