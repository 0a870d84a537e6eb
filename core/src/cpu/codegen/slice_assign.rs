//! Writes through an indexing, `(set (index A i...) V)`, for every index form: a scalar
//! `V` is stored at each selected position, an array `V` (of the selection's extents,
//! else the interpreter's shape-mismatch error) element by element in logical order, so
//! a gather naming a position twice keeps the last value.
//!
//! The interpreter reads `V` completely before storing anything, and its gather and mask
//! indices are evaluated before any store as well. Compiled code reads them while it
//! stores, so where one of them may share storage with `A` (their address ranges
//! overlap, checked at run time) it works on a copy instead: overlapping
//! self-assignments such as `(set (index A (range 1 3)) (index A (range 0 2) :view))`
//! behave as in the interpreter.

use super::elementwise::Operand;
use super::{ArrayView, CodeGen, FnGen};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, IndexFlags};
use crate::vrir::types::{Layout, ScalarType};
use inkwell::values::IntValue;
use inkwell::IntPredicate;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// `(set (index array indices... flags) value)`: the value first, then the indices.
    pub(crate) fn index_assign(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &str,
        indices: &[Expr],
        flags: IndexFlags,
        value: &Expr,
    ) -> VrResult<()> {
        let target = Expr::Var {
            name: array.to_string(),
        };
        let value_is_array = self.is_array_expr(g, value);
        if !value_is_array && !self.selection_is_array(g, &target, indices, flags) {
            // One element: the common case, addressed directly.
            let v = self.expr(g, value)?;
            return self.index_write(g, array, indices, flags, v);
        }
        let v = if value_is_array {
            Operand::Array(self.array_arg(g, value)?.0)
        } else {
            Operand::Scalar(self.expr(g, value)?)
        };
        self.store_selection(g, array, indices, flags, v)
    }

    /// Store an evaluated value through `(index array indices... flags)`.
    pub(crate) fn store_selection(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &str,
        indices: &[Expr],
        flags: IndexFlags,
        value: Operand<'ctx>,
    ) -> VrResult<()> {
        let target = self.array_view(g, array)?;
        let written = self.eval_written(g, array, indices)?;
        let mut sel = self.resolve_selection(g, &target, Some(array), &written, flags)?;
        let elem = match &value {
            Operand::Scalar(v) => v.ty,
            Operand::Array(a) => a.ty.elem,
        };
        if elem != target.ty.elem {
            return Err(self.type_err(
                g,
                format!("store of {elem} into `{array}` of {}", target.ty.elem),
            ));
        }
        let mt = self.mem_type(elem, &g.f.name)?;
        // Index arrays of the target's element type might be the target itself.
        sel = self.detach_index_arrays(g, sel, &target)?;
        match value {
            Operand::Scalar(v) => {
                let raw = self.reg_to_mem(v)?;
                self.for_each_selected(g, &sel, &mut |cg, _, _, p| {
                    cg.builder.build_store(p, raw)?;
                    Ok(())
                })
            }
            Operand::Array(src) => {
                self.check_selection_shape(g, array, &src.dims, &sel.dims)?;
                if src.dims.len() != sel.dims.len() {
                    // Always a shape mismatch (reported above): nothing to store.
                    return Ok(());
                }
                let src = self.detached(g, src, &target)?;
                self.for_each_selected(g, &sel, &mut |cg, g, idx, p| {
                    let v = cg.builder.build_load(mt, cg.elem_addr(g, &src, idx)?, "")?;
                    cg.builder.build_store(p, v)?;
                    Ok(())
                })
            }
        }
    }

    /// The interpreter's error when an array value's extents differ from the selection's.
    fn check_selection_shape(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &str,
        value_dims: &[IntValue<'ctx>],
        sel_dims: &[IntValue<'ctx>],
    ) -> VrResult<()> {
        let mut ok = self
            .cx
            .bool_type()
            .const_int((value_dims.len() == sel_dims.len()) as u64, false);
        for (x, y) in value_dims.iter().zip(sel_dims) {
            let eq = self
                .builder
                .build_int_compare(IntPredicate::EQ, *x, *y, "")?;
            ok = self.builder.build_and(ok, eq, "")?;
        }
        let vals: Vec<IntValue<'ctx>> = value_dims.iter().chain(sel_dims).copied().collect();
        let extra = (
            self.i64c(value_dims.len() as i64),
            self.i64c(sel_dims.len() as i64),
            self.i64c(-1),
        );
        self.check_noted(
            g,
            ok,
            ErrorCode::SelectionShape,
            Some(array),
            Some(extra),
            Some(("", &vals)),
        )
    }

    /// Gather and mask arrays whose storage overlaps the target's, replaced by copies.
    fn detach_index_arrays(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        mut sel: super::selection::Selection<'ctx>,
        target: &ArrayView<'ctx>,
    ) -> VrResult<super::selection::Selection<'ctx>> {
        for a in sel.index_arrays_mut() {
            if a.ty.elem == target.ty.elem {
                *a = self.detached(g, a.clone(), target)?;
            }
        }
        Ok(sel)
    }

    /// `a`, or a fresh copy of it where its elements' address range overlaps `target`'s.
    fn detached(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        a: ArrayView<'ctx>,
        target: &ArrayView<'ctx>,
    ) -> VrResult<ArrayView<'ctx>> {
        let overlap = self.storage_overlaps(&a, target)?;
        let copy_bb = self.cx.append_basic_block(g.llfn, "alias.copy");
        let join_bb = self.cx.append_basic_block(g.llfn, "alias.join");
        let from_bb = self.builder.get_insert_block().expect("positioned");
        self.builder
            .build_conditional_branch(overlap, copy_bb, join_bb)?;
        self.builder.position_at_end(copy_bb);
        let layout = super::elementwise::fresh_layout(a.ty.layout);
        let copy = self.copy_of(g, &a, layout)?;
        let copy_end = self.builder.get_insert_block().expect("positioned");
        self.builder.build_unconditional_branch(join_bb)?;
        self.builder.position_at_end(join_bb);
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let phi_ptr = |s: &Self, x, y| -> VrResult<_> {
            let phi = s.builder.build_phi(ptr, "")?;
            phi.add_incoming(&[(&x, from_bb), (&y, copy_end)]);
            Ok(phi.as_basic_value().into_pointer_value())
        };
        let data = phi_ptr(self, a.data, copy.data)?;
        let desc = phi_ptr(self, a.desc, copy.desc)?;
        let mut strides = Vec::with_capacity(a.strides.len());
        for (x, y) in a.strides.iter().zip(&copy.strides) {
            let phi = self.builder.build_phi(i64t, "")?;
            phi.add_incoming(&[(x, from_bb), (y, copy_end)]);
            strides.push(phi.as_basic_value().into_int_value());
        }
        Ok(ArrayView {
            ty: crate::vrir::types::ArrayType::new(a.ty.elem, a.ty.ndims, Layout::Strided),
            desc,
            data,
            dims: a.dims,
            strides,
        })
    }

    /// Whether the elements of `a` and `b` (same element type) may share memory: their
    /// address ranges, from the lowest to past the highest element, intersect (never for
    /// an empty array).
    fn storage_overlaps(
        &mut self,
        a: &ArrayView<'ctx>,
        b: &ArrayView<'ctx>,
    ) -> VrResult<IntValue<'ctx>> {
        let size = self.i64c(match a.ty.elem {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::F32 => 4,
            _ => 8,
        });
        let span = |s: &Self,
                    v: &ArrayView<'ctx>|
         -> VrResult<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)> {
            let bl = &s.builder;
            let i64t = s.cx.i64_type();
            let zero = s.i64c(0);
            let mut lo = zero;
            let mut hi = zero;
            let mut empty = s.cx.bool_type().const_zero();
            for (d, st) in v.dims.iter().zip(&v.strides) {
                let is0 = bl.build_int_compare(IntPredicate::SLE, *d, zero, "")?;
                empty = bl.build_or(empty, is0, "")?;
                let dm1 = bl.build_int_sub(*d, s.i64c(1), "")?;
                let reach = bl.build_int_mul(dm1, *st, "")?;
                let neg = bl.build_int_compare(IntPredicate::SLT, reach, zero, "")?;
                let down = bl.build_select(neg, reach, zero, "")?.into_int_value();
                let up = bl.build_select(neg, zero, reach, "")?.into_int_value();
                lo = bl.build_int_add(lo, down, "")?;
                hi = bl.build_int_add(hi, up, "")?;
            }
            let addr = bl.build_ptr_to_int(v.data, i64t, "")?;
            let lo_b = bl.build_int_mul(lo, size, "")?;
            let hi1 = bl.build_int_add(hi, s.i64c(1), "")?;
            let hi_b = bl.build_int_mul(hi1, size, "")?;
            Ok((
                bl.build_int_add(addr, lo_b, "")?,
                bl.build_int_add(addr, hi_b, "")?,
                empty,
            ))
        };
        let (alo, ahi, aempty) = span(self, a)?;
        let (blo, bhi, bempty) = span(self, b)?;
        let bl = &self.builder;
        let c1 = bl.build_int_compare(IntPredicate::ULT, alo, bhi, "")?;
        let c2 = bl.build_int_compare(IntPredicate::ULT, blo, ahi, "")?;
        let both = bl.build_and(c1, c2, "")?;
        let any_empty = bl.build_or(aempty, bempty, "")?;
        let not_empty = bl.build_not(any_empty, "")?;
        Ok(bl.build_and(both, not_empty, "")?)
    }
}
