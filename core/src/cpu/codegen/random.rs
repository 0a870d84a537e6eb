//! `random_*` draws: one call of the Rust helper `vr_cpu_random` (`cpu::random`) per
//! draw, in program order, with its status checked (a host generator that refuses is an
//! `unsupported` error naming the function and line).

use super::{CodeGen, FnGen, Val, RANDOM};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, LibFn};
use crate::vrir::types::ScalarType;
use inkwell::values::ValueKind;
use inkwell::IntPredicate;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// `(random_unif)`, `(random_norm)`, `(random_exp)`, `(random_index dn)`: an f64.
    pub(crate) fn random_draw(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: LibFn,
        args: &[Expr],
    ) -> VrResult<Val<'ctx>> {
        let kind = func
            .random_draw()
            .ok_or_else(|| self.type_err(g, format!("`{}` is not a draw", func.name())))?;
        let f64t = self.cx.f64_type();
        let arg = match args {
            [] => f64t.const_zero(),
            [dn] => {
                let v = self.expr(g, dn)?;
                if v.ty != ScalarType::F64 {
                    return Err(self.type_err(g, format!("`{}` of {}", func.name(), v.ty)));
                }
                v.float()
            }
            _ => {
                return Err(self.type_err(
                    g,
                    format!("`{}` with {} arguments", func.name(), args.len()),
                ))
            }
        };
        let slot = g.alloca_builder.build_alloca(f64t, "draw")?;
        let helper = self.module.get_function(RANDOM).expect("declared");
        let call = self.builder.build_call(
            helper,
            &[
                g.ctx_ptr.into(),
                self.cx.i32_type().const_int(kind as u64, false).into(),
                arg.into(),
                slot.into(),
            ],
            "status",
        )?;
        let ValueKind::Basic(status) = call.try_as_basic_value() else {
            return Err(self.type_err(g, "a draw without a status".into()));
        };
        let ok = self.builder.build_int_compare(
            IntPredicate::EQ,
            status.into_int_value(),
            self.cx.i32_type().const_zero(),
            "",
        )?;
        self.check(g, ok, ErrorCode::RandomFailed, None, None)?;
        let v = self.builder.build_load(f64t, slot, "drawn")?;
        Ok(Val {
            v,
            ty: ScalarType::F64,
        })
    }
}
