//! Array element access for arrays of any layout: the element address is
//! `data + sum(p_k * stride_k)`, with index base, `:neg`, `:flat` and bounds checks that
//! report the same fields as the interpreter (variable, index as written, extent, dim).

use super::selection::Written;
use super::stmt::CallOut;
use super::{unsupported, ArrayView, CodeGen, FnGen, Slot, Val};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{AllocInit, Expr, IndexFlags, LibFn};
use crate::vrir::types::{Layout, ScalarType};
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// An array operand: a variable naming an array parameter or an array local, or an
    /// array-valued expression this increment compiles (see [`Self::array_expr`]).
    /// Returns its view and a name for messages.
    pub(crate) fn array_arg(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<(ArrayView<'ctx>, String)> {
        match e {
            Expr::Var { name } => Ok((self.array_view(g, name)?, name.clone())),
            _ => self.array_expr(g, e),
        }
    }

    /// An array-valued expression other than a variable: an allocation, a `:view` slice,
    /// or a call with one array result. The view has a descriptor (calls pass it on).
    pub(crate) fn array_expr(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<(ArrayView<'ctx>, String)> {
        match e {
            Expr::Alloc { init, ty, dims } => {
                let what = match init {
                    AllocInit::Zeros => "zeros",
                    AllocInit::Ones => "ones",
                    AllocInit::Empty => "empty",
                    AllocInit::Fill { .. } => "fill",
                };
                Ok((
                    self.alloc_expr(g, init, *ty, dims)?,
                    format!("({what} ...)"),
                ))
            }
            Expr::Index {
                array,
                indices,
                flags,
            } if flags.view => {
                let mut view = self.view_slice(g, array, indices, *flags)?;
                view.desc =
                    self.desc_buffer(&g.alloca_builder, &self.builder, view.ty.ndims, "view")?;
                self.store_desc(view.desc, &view)?;
                Ok((view, "(index ... :view)".into()))
            }
            // A slice, gather or mask without `:view`: a fresh array (selection.rs).
            Expr::Index {
                array,
                indices,
                flags,
            } if self.is_slice(g, array, indices, *flags) => {
                match self.select_read(g, array, indices, *flags)? {
                    super::selection::Selected::Array(a) => Ok((a, "(index ...)".into())),
                    super::selection::Selected::Scalar(_) => {
                        Err(self.type_err(g, "an element used as an array".into()))
                    }
                }
            }
            Expr::Lib {
                func: LibFn::Copy,
                args,
            } if args.len() == 1 => {
                let (src, name) = self.array_arg(g, &args[0])?;
                let layout = src.ty.layout;
                Ok((self.copy_of(g, &src, layout)?, format!("(copy {name})")))
            }
            Expr::Lib {
                func: LibFn::Matmul,
                args,
            } => Ok((self.matmul_array(g, args)?, "(matmul ...)".into())),
            Expr::Lib {
                func: LibFn::Transpose,
                args,
            } => Ok((self.transpose(g, args)?, "(transpose ...)".into())),
            Expr::Binary { op, lhs, rhs } => Ok((
                self.elementwise_binary(g, *op, lhs, rhs)?,
                format!("({} ...)", op.symbol()),
            )),
            Expr::Unary { op, arg } => {
                Ok((self.elementwise_unary(g, *op, arg)?, "(unary ...)".into()))
            }
            Expr::Cast {
                to: crate::vrir::types::Type::Array(at),
                arg,
            } => Ok((self.elementwise_cast(g, *at, arg)?, "(cast ...)".into())),
            Expr::Lib { func, args }
                if func.arity() <= 2
                    && !matches!(
                        func,
                        LibFn::Len | LibFn::Ndims | LibFn::Matmul | LibFn::Transpose | LibFn::Copy
                    ) =>
            {
                Ok((
                    self.elementwise_lib(g, *func, args)?,
                    format!("({} ...)", func.name()),
                ))
            }
            Expr::Scan { op, arg, acc } => Ok((
                self.scan(g, *op, arg, *acc)?,
                format!("({} ...)", op.name()),
            )),
            Expr::Reduce {
                op,
                arg,
                axis: Some(k),
                acc,
            } => match self.reduce_axis(g, *op, arg, *k, *acc)? {
                super::elementwise::Operand::Array(a) => Ok((a, format!("({} ...)", op.name()))),
                super::elementwise::Operand::Scalar(_) => {
                    Err(self.type_err(g, "a reduction of a vector used as an array".into()))
                }
            },
            Expr::TupleGet { .. } => self.tuple_get_array(g, e),
            Expr::Map { func, args } => {
                Ok((self.map_expr(g, func, args)?, format!("(map {func} ...)")))
            }
            Expr::Call { func, args } => {
                let mut outs = self.call_any(g, func, args)?;
                match (outs.len(), outs.pop()) {
                    (1, Some(CallOut::Array(v))) => Ok((v, format!("(call {func})"))),
                    _ => Err(self.type_err(g, format!("call of `{func}` used as an array"))),
                }
            }
            _ => {
                // Name the construct that makes the array (unsupported in this increment).
                self.expr(g, e)?;
                Err(unsupported(
                    "array-valued expression (other than an array variable)",
                    &g.f.name,
                ))
            }
        }
    }

    /// The array a variable refers to; for an array local, loaded (and checked to be
    /// assigned) here.
    pub(crate) fn array_view(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
    ) -> VrResult<ArrayView<'ctx>> {
        match g.vars.get(name).cloned() {
            Some(Slot::Array(view)) => Ok(view),
            Some(Slot::ArrayVar { ty, ptr, assigned }) => {
                if self.read_needs_check(g.f, name) {
                    let ok = self
                        .builder
                        .build_load(self.cx.bool_type(), assigned, "")?
                        .into_int_value();
                    self.check(g, ok, ErrorCode::Unassigned, Some(name), None)?;
                }
                self.load_desc(ptr, ty, name)
            }
            Some(Slot::Scalar { .. } | Slot::Value { .. }) => {
                Err(self.type_err(g, format!("array operation on non-array `{name}`")))
            }
            Some(Slot::Unsupported) => Err(unsupported(
                &format!("local variable `{name}` of its type"),
                &g.f.name,
            )),
            None => Err(self.type_err(g, format!("use of unknown variable `{name}`"))),
        }
    }

    pub(crate) fn index_read(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &Expr,
        indices: &[Expr],
        flags: IndexFlags,
    ) -> VrResult<Val<'ctx>> {
        let Expr::Var { name } = array else {
            // An element of an array-valued expression (selection.rs).
            return match self.select_read(g, array, indices, flags)? {
                super::selection::Selected::Scalar(v) => Ok(v),
                super::selection::Selected::Array(_) => Err(self.type_err(
                    g,
                    "an indexing that selects an array used as a scalar".into(),
                )),
            };
        };
        let (ptr, elem) = self.element_ptr(g, name, indices, flags)?;
        let raw = self
            .builder
            .build_load(self.mem_type(elem, &g.f.name)?, ptr, "")?;
        Ok(Val {
            v: self.mem_to_reg(raw, elem)?,
            ty: elem,
        })
    }

    /// `(set (index A i...) v)`: the value was evaluated first (by the caller).
    pub(crate) fn index_write(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
        indices: &[Expr],
        flags: IndexFlags,
        v: Val<'ctx>,
    ) -> VrResult<()> {
        let (ptr, elem) = self.element_ptr(g, name, indices, flags)?;
        if v.ty != elem {
            return Err(self.type_err(g, format!("store of {} into `{name}` of {elem}", v.ty)));
        }
        self.builder.build_store(ptr, self.reg_to_mem(v)?)?;
        Ok(())
    }

    /// Address of one element, after evaluating and checking every index.
    pub(crate) fn element_ptr(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
        indices: &[Expr],
        flags: IndexFlags,
    ) -> VrResult<(PointerValue<'ctx>, ScalarType)> {
        let ArrayView {
            ty,
            data,
            dims,
            strides,
            ..
        } = self.array_view(g, name)?;
        let n = dims.len();
        let d = indices.len();
        if d == 0 || d > n {
            return Err(self.type_err(g, format!("{d} indices into `{name}` of rank {n}")));
        }
        if d < n && !flags.flatten {
            return Err(unsupported(
                &format!("slice of `{name}` (fewer indices than dimensions)"),
                &g.f.name,
            ));
        }
        // Slices and gathers are array-valued: name them before evaluating anything.
        for ix in indices {
            let kind = match ix {
                Expr::Range { .. } => Some("slice"),
                Expr::Var { name: v } => match g.vars.get(v) {
                    Some(Slot::Array(_) | Slot::ArrayVar { .. }) => Some("gather or mask"),
                    _ => None,
                },
                Expr::Index { .. } | Expr::Const { .. } | Expr::Call { .. } => None,
                Expr::Binary { .. } | Expr::Unary { .. } | Expr::Cast { .. } => None,
                Expr::Lib { .. } | Expr::Dim { .. } | Expr::TupleGet { .. } => None,
                _ => Some("array index"),
            };
            if let Some(kind) = kind {
                return Err(unsupported(&format!("{kind} of `{name}`"), &g.f.name));
            }
        }
        // Evaluate all indices left to right, then convert and check each.
        let mut written = Vec::with_capacity(d);
        for ix in indices {
            let v = self.expr(g, ix)?;
            let v = match v.ty {
                ScalarType::I64 => v.int(),
                ScalarType::I32 => {
                    self.builder
                        .build_int_s_extend(v.int(), self.cx.i64_type(), "")?
                }
                other => {
                    return Err(
                        if matches!(ix, Expr::Range { .. }) || other == ScalarType::Bool {
                            unsupported(&format!("non-scalar index into `{name}`"), &g.f.name)
                        } else {
                            self.type_err(g, format!("index of type {other}"))
                        },
                    )
                }
            };
            written.push(v);
        }
        let base = self.i64c(self.vm.index_base as i64);
        let mut offset = self.i64c(0);
        let shape = vec!["S"; d].join(",");
        for (k, i) in written.iter().enumerate() {
            // Extent of this index: the flattened trailing extent for the last of a :flat access.
            let flat_tail = k == d - 1 && d < n;
            let extent = if flat_tail {
                let mut u = dims[k];
                for dk in &dims[k + 1..] {
                    u = self.builder.build_int_mul(u, *dk, "")?;
                }
                u
            } else {
                dims[k]
            };
            let mut p = self.builder.build_int_sub(*i, base, "")?;
            if flags.negative {
                let is_neg =
                    self.builder
                        .build_int_compare(IntPredicate::SLT, *i, self.i64c(0), "")?;
                let wrapped = self.builder.build_int_add(*i, extent, "")?;
                p = self
                    .builder
                    .build_select(is_neg, wrapped, p, "")?
                    .into_int_value();
            }
            if flags.check {
                // 0 <= p < extent in one unsigned comparison.
                let ok = self
                    .builder
                    .build_int_compare(IntPredicate::ULT, p, extent, "")?;
                self.check_noted(
                    g,
                    ok,
                    ErrorCode::OutOfBounds,
                    Some(name),
                    Some((*i, extent, self.i64c(k as i64))),
                    Some((&shape, &written)),
                )?;
            }
            if flat_tail {
                // Split p over dims k..n-1 in the layout's order.
                let order: Vec<usize> = if ty.layout == Layout::Col {
                    (k..n).collect()
                } else {
                    (k..n).rev().collect()
                };
                let mut rest = p;
                for (j, dk) in order.iter().enumerate() {
                    let pk = if j + 1 == order.len() {
                        rest
                    } else {
                        let r = self.builder.build_int_unsigned_rem(rest, dims[*dk], "")?;
                        rest = self.builder.build_int_unsigned_div(rest, dims[*dk], "")?;
                        r
                    };
                    let t = self.builder.build_int_mul(pk, strides[*dk], "")?;
                    offset = self.builder.build_int_add(offset, t, "")?;
                }
            } else {
                let t = self.builder.build_int_mul(p, strides[k], "")?;
                offset = self.builder.build_int_add(offset, t, "")?;
            }
        }
        let elem_ty = self.mem_type(ty.elem, &g.f.name)?;
        // SAFETY (LLVM): in bounds of the array's buffer after the checks above (an
        // unchecked :nocheck access out of bounds is undefined, as the semantics allow).
        let ptr = unsafe {
            self.builder
                .build_in_bounds_gep(elem_ty, data, &[offset], "")?
        };
        Ok((ptr, ty.elem))
    }

    /// A `:view` slice with scalar and range indices (missing trailing indices are full
    /// ranges) over the same storage, for an assignment to copy into its target.
    /// Positions, steps and bounds errors as in the interpreter's `resolve`.
    pub(crate) fn view_slice(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &Expr,
        indices: &[Expr],
        flags: IndexFlags,
    ) -> VrResult<ArrayView<'ctx>> {
        let (src, name) = self.array_arg(g, array)?;
        let n = src.dims.len();
        let d = indices.len();
        if d == 0 || d > n || (flags.flatten && d < n) {
            return Err(unsupported(
                &format!("`:view` of `{name}` with these indices"),
                &g.f.name,
            ));
        }
        // The written values, left to right (start, stop, step of each range).
        let mut written: Vec<Written<'ctx>> = Vec::new();
        for ix in indices {
            let int =
                |s: &mut Self, g: &mut FnGen<'ctx, 'm>, e: &Expr| -> VrResult<IntValue<'ctx>> {
                    let v = s.expr(g, e)?;
                    match v.ty {
                        ScalarType::I64 => Ok(v.int()),
                        ScalarType::I32 => {
                            Ok(s.builder.build_int_s_extend(v.int(), s.cx.i64_type(), "")?)
                        }
                        t => Err(unsupported(
                            &format!("index of type {t} into `{name}`"),
                            &g.f.name,
                        )),
                    }
                };
            match ix {
                Expr::Range { start, stop, step } => {
                    let a = match start {
                        Some(e) => Some(int(self, g, e)?),
                        None => None,
                    };
                    let b = match stop {
                        Some(e) => Some(int(self, g, e)?),
                        None => None,
                    };
                    let s = match step {
                        Some(e) => int(self, g, e)?,
                        None => self.i64c(1),
                    };
                    written.push(Written::Range {
                        start: a,
                        stop: b,
                        step: s,
                    });
                }
                // A range value (a variable, a tuple item): its start, stop and step.
                other if self.is_range_index(g, other) => {
                    let r = self.range_values(g, other)?[0];
                    written.push(Written::Range {
                        start: Some(r.start),
                        stop: Some(r.stop),
                        step: r.step,
                    });
                }
                other => written.push(Written::Scalar(int(self, g, other)?)),
            }
        }
        // Each written index resolved and checked as a selection's (selection.rs), in
        // order; axes without an index are taken whole.
        let mut offset = self.i64c(0);
        let (mut dims, mut strides) = (Vec::new(), Vec::new());
        for k in 0..n {
            let (extent, stride) = (src.dims[k], src.strides[k]);
            match written.get(k) {
                Some(Written::Scalar(i)) => {
                    let p = self.position(*i, extent, flags.negative)?;
                    let ok = self
                        .builder
                        .build_int_compare(IntPredicate::ULT, p, extent, "")?;
                    self.check_in_bounds(g, ok, Some(&name), *i, extent, k, &written)?;
                    let t = self.builder.build_int_mul(p, stride, "")?;
                    offset = self.builder.build_int_add(offset, t, "")?;
                }
                Some(Written::Range { start, stop, step }) => {
                    let (first, count) = self.resolve_range(
                        g,
                        Some(&name),
                        *start,
                        *stop,
                        *step,
                        extent,
                        k,
                        flags,
                        &written,
                    )?;
                    let t = self.builder.build_int_mul(first, stride, "")?;
                    offset = self.builder.build_int_add(offset, t, "")?;
                    dims.push(count);
                    let scaled = self.builder.build_int_mul(stride, *step, "")?;
                    strides.push(self.opaque_stride(scaled));
                }
                _ => {
                    dims.push(extent);
                    strides.push(stride);
                }
            }
        }
        let elem_ty = self.mem_type(src.ty.elem, &g.f.name)?;
        let data = unsafe { self.builder.build_gep(elem_ty, src.data, &[offset], "")? };
        let ty =
            crate::vrir::types::ArrayType::new(src.ty.elem, dims.len() as u32, Layout::Strided);
        // No descriptor of its own: the assignment copies it into the target's.
        let desc = self.ptr_type().const_null();
        Ok(ArrayView {
            ty,
            desc,
            data,
            dims,
            strides,
        })
    }
}
