//! `(map F a b ...)`: F, a module function of scalars returning one scalar, applied
//! element by element. Arguments are evaluated left to right, then every array is
//! checked to have the first array's shape (the interpreter's shape-mismatch error),
//! then F is called for each multi-index in logical order (first index slowest), scalars
//! broadcast, so the first failing call is the interpreter's. Arrays may have any layout
//! and strides; the result has the first array's layout (`strided` becoming `row`).

use super::elementwise::{fresh_layout, Operand};
use super::{ArrayView, CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use crate::vrir::ast::Expr;
use crate::vrir::types::{ArrayType, Type};
use inkwell::values::BasicMetadataValueEnum;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    pub(crate) fn map_expr(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: &str,
        args: &[Expr],
    ) -> VrResult<ArrayView<'ctx>> {
        let callee = self
            .vm
            .function(func)
            .ok_or_else(|| self.type_err(g, format!("map of unknown function `{func}`")))?;
        let [Type::Scalar { elem: out_elem }] = callee.results.as_slice() else {
            return Err(self.type_err(
                g,
                format!("map of `{func}`, which does not return one scalar"),
            ));
        };
        let out_elem = *out_elem;
        if callee.params.len() != args.len() {
            return Err(self.type_err(g, format!("map of `{func}` with {} arguments", args.len())));
        }
        let mut ops = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(&callee.params) {
            let op = self.operand(g, a)?;
            let elem = match &op {
                Operand::Array(x) => x.ty.elem,
                Operand::Scalar(v) => v.ty,
            };
            if p.ty != Type::scalar(elem) {
                return Err(self.type_err(
                    g,
                    format!(
                        "map argument of {elem} for parameter `{}` ({})",
                        p.name, p.ty
                    ),
                ));
            }
            ops.push(op);
        }
        let arrays: Vec<ArrayView<'ctx>> = ops
            .iter()
            .filter_map(|o| match o {
                Operand::Array(a) => Some(a.clone()),
                Operand::Scalar(_) => None,
            })
            .collect();
        let Some(first) = arrays.first().cloned() else {
            return Err(self.type_err(g, format!("map of `{func}` without an array argument")));
        };
        for a in &arrays[1..] {
            self.check_same_shape(g, &first, a)?;
        }
        let ty = ArrayType::new(out_elem, first.ty.ndims, fresh_layout(first.ty.layout));
        let callee_name = callee.name.clone();
        self.map_into(g, ty, &first, ops, &mut |cg, g, xs| {
            cg.call_scalar_function(g, &callee_name, xs)
        })
    }

    /// Call module function `func` (scalar parameters, one scalar result) with evaluated
    /// arguments: the recursion limit checked first, as for `call`, and a failing
    /// callee's status returned at once.
    pub(crate) fn call_scalar_function(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: &str,
        args: &[Val<'ctx>],
    ) -> VrResult<Val<'ctx>> {
        let callee = self
            .vm
            .function(func)
            .ok_or_else(|| self.type_err(g, format!("call of unknown function `{func}`")))?;
        let [Type::Scalar { elem: rt }] = callee.results.as_slice() else {
            return Err(self.type_err(g, format!("`{func}` does not return one scalar")));
        };
        let rt = *rt;
        let slot = g
            .alloca_builder
            .build_alloca(self.mem_type(rt, &g.f.name)?, "ret")?;
        let mut call_args: Vec<BasicMetadataValueEnum> = vec![g.ctx_ptr.into(), slot.into()];
        call_args.extend(args.iter().map(|v| BasicMetadataValueEnum::from(v.v)));
        self.emit_checked_call(g, func, &call_args)?;
        let raw = self
            .builder
            .build_load(self.mem_type(rt, &g.f.name)?, slot, "")?;
        Ok(Val {
            v: self.mem_to_reg(raw, rt)?,
            ty: rt,
        })
    }
}
