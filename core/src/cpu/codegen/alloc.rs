//! Arrays created by compiled code: `zeros`/`ones`/`empty`/`fill` expressions and the
//! `alloc` statement. Storage comes from the call's arena through
//! [`crate::cpu::abi::vr_cpu_alloc_array`] (zeroed, 64-byte aligned, stored row-major
//! unless the type is column-major, as the interpreter stores them); negative extents are
//! checked here, element-count overflow and the per-call byte limit by the allocator.

use super::{ArrayView, CodeGen, FnGen, Val, ALLOC_ARRAY, FILL};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{AllocInit, Expr, Literal};
use crate::vrir::types::{ArrayType, Layout, ScalarType};
use inkwell::values::{IntValue, ValueKind};
use inkwell::IntPredicate;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// An integer expression widened to `i64` (array extents, counts).
    pub(crate) fn i64_expr(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<IntValue<'ctx>> {
        let v = self.expr(g, e)?;
        match v.ty {
            ScalarType::I64 => Ok(v.int()),
            ScalarType::I32 => {
                Ok(self
                    .builder
                    .build_int_s_extend(v.int(), self.cx.i64_type(), "")?)
            }
            t => Err(self.type_err(g, format!("array extent of type {t}"))),
        }
    }

    /// A new zeroed array of type `ty` with the extents `dims` evaluated left to right,
    /// each checked non-negative as soon as it is known (as the interpreter does).
    pub(crate) fn alloc_array(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        ty: ArrayType,
        dims: &[Expr],
    ) -> VrResult<ArrayView<'ctx>> {
        if dims.len() != ty.ndims as usize {
            return Err(self.type_err(
                g,
                format!("{} extents for an array of rank {}", dims.len(), ty.ndims),
            ));
        }
        let mut vals = Vec::with_capacity(dims.len());
        for d in dims {
            let v = self.i64_expr(g, d)?;
            let ok = self
                .builder
                .build_int_compare(IntPredicate::SGE, v, self.i64c(0), "")?;
            self.check(
                g,
                ok,
                ErrorCode::NegativeDimension,
                None,
                Some((v, self.i64c(0), self.i64c(-1))),
            )?;
            vals.push(v);
        }
        self.alloc_with_dims(g, ty, &vals)
    }

    /// A new zeroed array of type `ty` with extents already checked non-negative.
    pub(crate) fn alloc_with_dims(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        ty: ArrayType,
        dims: &[IntValue<'ctx>],
    ) -> VrResult<ArrayView<'ctx>> {
        let i64t = self.cx.i64_type();
        let n = dims.len();
        let buf = g
            .alloca_builder
            .build_alloca(i64t.array_type(n.max(1) as u32), "extents")?;
        for (k, v) in dims.iter().enumerate() {
            let p = unsafe {
                self.builder
                    .build_in_bounds_gep(i64t, buf, &[self.i64c(k as i64)], "")?
            };
            self.builder.build_store(p, *v)?;
        }
        self.mem_type(ty.elem, &g.f.name)?;
        let elem_size = self.i64c(match ty.elem {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::F32 => 4,
            ScalarType::C128 => 16,
            _ => 8,
        });
        let col = (ty.layout == Layout::Col) as u64;
        let f = self.module.get_function(ALLOC_ARRAY).expect("declared");
        let call = self.builder.build_call(
            f,
            &[
                g.ctx_ptr.into(),
                self.i64c(n as i64).into(),
                buf.into(),
                elem_size.into(),
                self.cx.i32_type().const_int(col, false).into(),
            ],
            "desc",
        )?;
        let ValueKind::Basic(desc) = call.try_as_basic_value() else {
            return Err(self.type_err(g, "allocation without a result".into()));
        };
        let desc = desc.into_pointer_value();
        let ok = self.builder.build_is_not_null(desc, "")?;
        self.check(g, ok, ErrorCode::AllocFailed, None, None)?;
        self.load_desc(desc, ty, "new")
    }

    /// Number of elements of a view (the product of its extents).
    pub(crate) fn element_count(&self, v: &ArrayView<'ctx>) -> VrResult<IntValue<'ctx>> {
        self.product_of(&v.dims)
    }

    /// The product of extents `dims` (1 for none).
    pub(crate) fn product_of(&self, dims: &[IntValue<'ctx>]) -> VrResult<IntValue<'ctx>> {
        let mut n = self.i64c(1);
        for d in dims {
            n = self.builder.build_int_mul(n, *d, "")?;
        }
        Ok(n)
    }

    /// Emit `for i in 0..n { body(i) }`.
    pub(crate) fn counted_loop(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        n: IntValue<'ctx>,
        mut body: impl FnMut(&mut Self, &mut FnGen<'ctx, 'm>, IntValue<'ctx>) -> VrResult<()>,
    ) -> VrResult<()> {
        let i64t = self.cx.i64_type();
        let pre = self.builder.get_insert_block().expect("positioned");
        let head = self.cx.append_basic_block(g.llfn, "loop.head");
        let body_bb = self.cx.append_basic_block(g.llfn, "loop.body");
        let exit = self.cx.append_basic_block(g.llfn, "loop.exit");
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(head);
        let i = self.builder.build_phi(i64t, "i")?;
        i.add_incoming(&[(&self.i64c(0), pre)]);
        let iv = i.as_basic_value().into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::SLT, iv, n, "")?;
        self.builder.build_conditional_branch(more, body_bb, exit)?;
        self.builder.position_at_end(body_bb);
        body(self, g, iv)?;
        let next = self.builder.build_int_add(iv, self.i64c(1), "")?;
        let latch = self.builder.get_insert_block().expect("positioned");
        i.add_incoming(&[(&next, latch)]);
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(exit);
        Ok(())
    }

    /// Store `v` into every element of a freshly allocated (contiguous) array: nothing
    /// for a constant of all-zero bits (the arena's storage is zeroed, as `zeros` relies
    /// on), else one call of `vr_cpu_fill` (not an inline loop per `fill`, which LLVM
    /// vectorized one by one: compile latency, issue 18).
    fn fill(&mut self, g: &mut FnGen<'ctx, 'm>, a: &ArrayView<'ctx>, v: Val<'ctx>) -> VrResult<()> {
        let raw = self.reg_to_mem(v)?;
        if is_zero_constant(raw) {
            return Ok(());
        }
        let n = self.element_count(a)?;
        let mt = self.mem_type(a.ty.elem, &g.f.name)?;
        let size = match a.ty.elem {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::F64 | ScalarType::C64 => 8,
            ScalarType::C128 => 16,
        };
        let home = g.alloca_builder.build_alloca(mt, "fill.value")?;
        self.builder.build_store(home, raw)?;
        let f = self.module.get_function(FILL).expect("declared");
        self.builder.build_call(
            f,
            &[a.data.into(), n.into(), home.into(), self.i64c(size).into()],
            "",
        )?;
        Ok(())
    }

    /// `(zeros|ones|empty|fill T dims...)`: `empty` is zeroed as well (the arena's
    /// storage is), like the interpreter's.
    pub(crate) fn alloc_expr(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        init: &AllocInit,
        ty: ArrayType,
        dims: &[Expr],
    ) -> VrResult<ArrayView<'ctx>> {
        let fill = match init {
            AllocInit::Zeros | AllocInit::Empty => None,
            AllocInit::Ones => Some(self.one(g, ty.elem)?),
            // The fill value is evaluated before the extents, as by the interpreter.
            AllocInit::Fill { value } => {
                let v = self.expr(g, value)?;
                if v.ty != ty.elem {
                    return Err(
                        self.type_err(g, format!("{} fill for an array of {}", v.ty, ty.elem))
                    );
                }
                Some(v)
            }
        };
        let a = self.alloc_array(g, ty, dims)?;
        if let Some(v) = fill {
            self.fill(g, &a, v)?;
        }
        Ok(a)
    }

    pub(crate) fn one(&mut self, g: &mut FnGen<'ctx, 'm>, t: ScalarType) -> VrResult<Val<'ctx>> {
        let lit = match t {
            ScalarType::Bool => Literal::Bool(true),
            ScalarType::I32 => Literal::I32(1),
            ScalarType::I64 => Literal::I64(1),
            ScalarType::F32 => Literal::F32(1.0),
            ScalarType::F64 => Literal::F64(1.0),
            ScalarType::C64 => Literal::C64([1.0, 0.0]),
            ScalarType::C128 => Literal::C128([1.0, 0.0]),
        };
        self.literal(g, &lit)
    }
}

/// A constant whose bits are all zero (`+0.0`, not `-0.0`; integers, false, complex
/// zeros): what a fresh arena array already holds.
fn is_zero_constant(v: inkwell::values::BasicValueEnum<'_>) -> bool {
    use inkwell::values::BasicValueEnum as B;
    match v {
        B::IntValue(i) => i.is_const() && i.is_null(),
        B::FloatValue(f) => f.is_const() && f.is_null(),
        B::StructValue(s) => s.is_const() && s.is_null(),
        _ => false,
    }
}
