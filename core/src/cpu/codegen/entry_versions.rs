//! Entry versions on parameter overlap (the `alias-version` pass decides, see
//! core/src/opt/alias_version.rs): a qualifying function gets a second LLVM function,
//! `vr.NAME.noalias`, whose extra trailing parameters are its array parameters' data
//! pointers marked `noalias`, and its entry wrapper tests the arguments' address ranges:
//! when no written array overlaps another array argument it calls the no-alias version,
//! otherwise the original. Both compute the same thing; the no-alias one lets LLVM keep
//! values in registers across stores and vectorize.
//!
//! The test covers the elements each array can reach: from its data pointer, the sum of
//! the negative `(extent - 1) * stride` terms to the sum of the positive ones, plus one
//! element (an empty array reaches nothing). Only calls from the host go through the
//! entry wrapper; calls between compiled functions use the original.
//!
//! Each call that runs the no-alias version adds one to `CallCtx::noalias_entries`,
//! which `CompiledModule::noalias_calls` sums: tests see which version ran without
//! timing it.

use super::{internal_name, CodeGen};
use crate::cpu::abi::CallCtx;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::Function;
use crate::vrir::types::{ScalarType, Type};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;

/// Bytes of one element in memory.
fn element_bytes(t: ScalarType) -> u64 {
    match t {
        ScalarType::Bool => 1,
        ScalarType::I32 | ScalarType::F32 => 4,
        ScalarType::I64 | ScalarType::F64 | ScalarType::C64 => 8,
        ScalarType::C128 => 16,
    }
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Declare `f`'s no-alias version when versions are on and `f` qualifies.
    pub(super) fn declare_noalias_variant(&mut self, f: &Function) -> VrResult<()> {
        if !self.alias_versions {
            return Ok(());
        }
        let Some(pairs) = crate::opt::alias_version::overlap_pairs(self.vm, f, false, self.parallel) else {
            return Ok(());
        };
        let base = self.funcs[&f.name];
        let ptr = self.ptr_type();
        let mut params: Vec<BasicMetadataTypeEnum> = base
            .get_type()
            .get_param_types()
            .into_iter()
            .map(Into::into)
            .collect();
        let first_data = params.len() as u32;
        let arrays: Vec<&str> = f
            .params
            .iter()
            .filter(|p| matches!(p.ty, Type::Array(_)))
            .map(|p| p.name.as_str())
            .collect();
        params.extend(arrays.iter().map(|_| BasicMetadataTypeEnum::from(ptr)));
        let fty = self.cx.i32_type().fn_type(&params, false);
        let variant = self.module.add_function(
            &format!("{}.noalias", internal_name(&f.name)),
            fty,
            Some(Linkage::Internal),
        );
        variant.add_attribute(AttributeLoc::Function, self.enum_attr("nounwind"));
        for (k, name) in arrays.iter().enumerate() {
            let idx = first_data + k as u32;
            variant.add_attribute(AttributeLoc::Param(idx), self.enum_attr("noalias"));
            if let Some(p) = variant.get_nth_param(idx) {
                p.set_name(&format!("{name}.data"));
            }
        }
        for (k, p) in base.get_param_iter().enumerate() {
            if let Some(v) = variant.get_nth_param(k as u32) {
                v.set_name(p.get_name().to_str().unwrap_or(""));
            }
        }
        self.noalias_variants
            .insert(f.name.clone(), (variant, pairs));
        Ok(())
    }

    /// The lowest address and one past the highest that an array can reach, and
    /// whether it is empty.
    fn reach(
        &self,
        data: PointerValue<'ctx>,
        dims: &[IntValue<'ctx>],
        strides: &[IntValue<'ctx>],
        elem: ScalarType,
    ) -> VrResult<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)> {
        let bl = &self.builder;
        let zero = self.i64c(0);
        let (mut lo, mut hi) = (zero, zero);
        let mut empty = self.cx.bool_type().const_zero();
        for (d, st) in dims.iter().zip(strides) {
            let is0 = bl.build_int_compare(IntPredicate::SLE, *d, zero, "")?;
            empty = bl.build_or(empty, is0, "")?;
            let last = bl.build_int_sub(*d, self.i64c(1), "")?;
            let span = bl.build_int_mul(last, *st, "")?;
            let neg = bl.build_int_compare(IntPredicate::SLT, span, zero, "")?;
            let down = bl.build_select(neg, span, zero, "")?.into_int_value();
            let up = bl.build_select(neg, zero, span, "")?.into_int_value();
            lo = bl.build_int_add(lo, down, "")?;
            hi = bl.build_int_add(hi, up, "")?;
        }
        let size = self.i64c(element_bytes(elem) as i64);
        let addr = bl.build_ptr_to_int(data, self.cx.i64_type(), "")?;
        let lo_bytes = bl.build_int_mul(lo, size, "")?;
        let past = bl.build_int_add(hi, self.i64c(1), "")?;
        let hi_bytes = bl.build_int_mul(past, size, "")?;
        Ok((
            bl.build_int_add(addr, lo_bytes, "")?,
            bl.build_int_add(addr, hi_bytes, "")?,
            empty,
        ))
    }

    /// End the entry wrapper of `f` (builder in its entry block, after the arguments
    /// were unpacked into `call_args`): call the no-alias version when the tested pairs
    /// do not overlap, else the original; return the callee's status.
    pub(super) fn dispatch_on_overlap(
        &mut self,
        f: &Function,
        entry_fn: FunctionValue<'ctx>,
        ctx: PointerValue<'ctx>,
        call_args: Vec<BasicMetadataValueEnum<'ctx>>,
    ) -> VrResult<()> {
        let (variant, pairs) = self.noalias_variants[&f.name].clone();
        let first_param = 1 + f.results.len();
        // Per array parameter (by parameter index): its data pointer and reach.
        let mut data = Vec::new();
        let mut spans = std::collections::HashMap::new();
        for (k, p) in f.params.iter().enumerate() {
            let Type::Array(a) = &p.ty else { continue };
            let desc = call_args[first_param + k].into_pointer_value();
            let view = self.load_desc(desc, *a, &p.name)?;
            spans.insert(k, self.reach(view.data, &view.dims, &view.strides, a.elem)?);
            data.push(view.data);
        }
        let bl = &self.builder;
        let mut disjoint = self.cx.bool_type().const_int(1, false);
        for (i, j) in pairs {
            let (alo, ahi, aempty) = spans[&i];
            let (blo, bhi, bempty) = spans[&j];
            let c1 = bl.build_int_compare(IntPredicate::ULT, alo, bhi, "")?;
            let c2 = bl.build_int_compare(IntPredicate::ULT, blo, ahi, "")?;
            let meet = bl.build_and(c1, c2, "")?;
            let any_empty = bl.build_or(aempty, bempty, "")?;
            let apart = bl.build_or(bl.build_not(meet, "")?, any_empty, "")?;
            disjoint = bl.build_and(disjoint, apart, "")?;
        }
        let fast = self.cx.append_basic_block(entry_fn, "noalias");
        let slow = self.cx.append_basic_block(entry_fn, "may.alias");
        self.builder
            .build_conditional_branch(disjoint, fast, slow)?;

        self.builder.position_at_end(fast);
        let i64t = self.cx.i64_type();
        let offset = std::mem::offset_of!(CallCtx, noalias_entries) as u64;
        // SAFETY (LLVM): `ctx` points at a CallCtx; the field is at this byte offset.
        let counter = unsafe {
            self.builder.build_in_bounds_gep(
                self.cx.i8_type(),
                ctx,
                &[i64t.const_int(offset, false)],
                "noalias.entries",
            )?
        };
        let n = self.builder.build_load(i64t, counter, "")?.into_int_value();
        let n1 = self.builder.build_int_add(n, self.i64c(1), "")?;
        self.builder.build_store(counter, n1)?;
        let mut fast_args = call_args.clone();
        fast_args.extend(data.iter().map(|d| BasicMetadataValueEnum::from(*d)));
        self.call_and_return(variant, &fast_args)?;

        self.builder.position_at_end(slow);
        self.call_and_return(self.funcs[&f.name], &call_args)
    }

    fn call_and_return(
        &self,
        callee: FunctionValue<'ctx>,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> VrResult<()> {
        let status = self.builder.build_call(callee, args, "status")?;
        let inkwell::values::ValueKind::Basic(status) = status.try_as_basic_value() else {
            return Err(VrError::new(
                ErrorKind::Internal,
                "cpu backend: call without status",
            ));
        };
        self.builder.build_return(Some(&status))?;
        Ok(())
    }
}
