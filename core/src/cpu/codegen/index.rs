//! Array element access for arrays of any layout: the element address is
//! `data + sum(p_k * stride_k)`, with index base, `:neg`, `:flat` and bounds checks that
//! report the same fields as the interpreter (variable, index as written, extent, dim).

use super::{unsupported, ArrayView, CodeGen, FnGen, Slot, Val};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, IndexFlags};
use crate::vrir::types::{Layout, ScalarType};
use inkwell::values::PointerValue;
use inkwell::IntPredicate;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// An array operand: in this increment, a variable naming an array parameter or an
    /// array local that refers to one. Returns its view and name.
    pub(crate) fn array_arg(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<(ArrayView<'ctx>, String)> {
        let Expr::Var { name } = e else {
            // Name the construct that makes the array (unsupported in this increment).
            self.expr(g, e)?;
            return Err(unsupported(
                "array-valued expression (other than an array variable)",
                &g.f.name,
            ));
        };
        Ok((self.array_view(g, name)?, name.clone()))
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
                let ok = self
                    .builder
                    .build_load(self.cx.bool_type(), assigned, "")?
                    .into_int_value();
                self.check(g, ok, ErrorCode::Unassigned, Some(name), None)?;
                let desc = self
                    .builder
                    .build_load(self.ptr_type(), ptr, name)?
                    .into_pointer_value();
                self.load_desc(desc, ty, name)
            }
            Some(Slot::Scalar { .. }) => {
                Err(self.type_err(g, format!("array operation on scalar `{name}`")))
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
            // Name the construct that makes the array (unsupported in this increment).
            self.expr(g, array)?;
            return Err(unsupported(
                "indexing of an array-valued expression",
                &g.f.name,
            ));
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
    fn element_ptr(
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
                self.check(
                    g,
                    ok,
                    ErrorCode::OutOfBounds,
                    Some(name),
                    Some((*i, extent, self.i64c(k as i64))),
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
}
