//! Element-wise array operators on the `cpu-par` backend: when the result has at least
//! [`PARALLEL_MIN_ELEMENTS`] elements, the loop is outlined (like a parfor body, see
//! `parfor.rs`) and its outermost dimension is cut into chunks that run on the thread
//! pool through `vr_cpu_parfor`; smaller arrays keep the serial loop (the pool's start-up
//! cost would dominate). Every element is computed by the same code either way and
//! written to its own place, so results are bit-identical to the serial backend and the
//! interpreter. Errors (an invalid cast, an integer division by zero) stay those of the
//! first failing element in logical order: chunks are contiguous in that order and the
//! runtime reports the failed chunk of lowest index (see `cpu::parallel`).
//!
//! Whole-array reductions of large integer arrays are parallel too (`par_reduce.rs`);
//! float reductions stay serial (the module doc there says why).

use super::elementwise::{ElemFn, Operand};
use super::{ArrayView, CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;

/// Fewest result elements for which an element-wise operator runs on the pool.
pub(crate) const PARALLEL_MIN_ELEMENTS: i64 = 1 << 16;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Fill `out` from `ops` with `f` (as `map_elements`), on the pool when `out` is large.
    pub(crate) fn map_elements_parallel(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        out: &ArrayView<'ctx>,
        ops: &[Operand<'ctx>],
        f: &mut ElemFn<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        let total = self.element_count(out)?;
        let big = self.builder.build_int_compare(
            IntPredicate::SGE,
            total,
            self.i64c(PARALLEL_MIN_ELEMENTS),
            "big",
        )?;
        let par_bb = self.cx.append_basic_block(g.llfn, "ew.par");
        let ser_bb = self.cx.append_basic_block(g.llfn, "ew.serial");
        let err_bb = self.cx.append_basic_block(g.llfn, "ew.err");
        let join = self.cx.append_basic_block(g.llfn, "ew.done");
        self.builder.build_conditional_branch(big, par_bb, ser_bb)?;
        self.builder.position_at_end(ser_bb);
        self.map_elements(g, out, &[], ops, f)?;
        self.builder.build_unconditional_branch(join)?;

        // Environment: out's data, dims and strides, then per operand its data and
        // strides (arrays, whose dims are out's) or its value (scalars).
        let d = out.dims.len() as u32;
        let mut slots = 1 + 2 * d;
        for op in ops {
            slots += match op {
                Operand::Array(_) => 1 + d,
                Operand::Scalar(_) => 1,
            };
        }
        self.builder.position_at_end(par_bb);
        let body = self.outline_elementwise(g, out, ops, f, slots)?;
        self.builder.position_at_end(par_bb);
        let i64t = self.cx.i64_type();
        let env = g
            .alloca_builder
            .build_alloca(i64t.array_type(slots), "ew.env")?;
        let slot = |s: &Self, k: u32| -> VrResult<PointerValue<'ctx>> {
            // SAFETY (LLVM): k < slots.
            Ok(unsafe {
                s.builder
                    .build_in_bounds_gep(i64t, env, &[i64t.const_int(k as u64, false)], "")?
            })
        };
        self.builder.build_store(slot(self, 0)?, out.data)?;
        for k in 0..d {
            self.builder
                .build_store(slot(self, 1 + k)?, out.dims[k as usize])?;
            self.builder
                .build_store(slot(self, 1 + d + k)?, out.strides[k as usize])?;
        }
        let mut at = 1 + 2 * d;
        for op in ops {
            match op {
                Operand::Array(a) => {
                    self.builder.build_store(slot(self, at)?, a.data)?;
                    for k in 0..d {
                        self.builder
                            .build_store(slot(self, at + 1 + k)?, a.strides[k as usize])?;
                    }
                    at += 1 + d;
                }
                Operand::Scalar(v) => {
                    self.builder.build_store(slot(self, at)?, v.v)?;
                    at += 1;
                }
            }
        }
        // Chunks of the outermost dimension: its extent is the one count.
        let counts = slot(self, 1)?;
        self.run_chunks(g, body, env, counts, 1, join, err_bb)?;
        Ok(())
    }

    /// `i32 body(env, ctx, lo, hi, last)`: rows `lo..hi` of the outermost dimension.
    fn outline_elementwise(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        out: &ArrayView<'ctx>,
        ops: &[Operand<'ctx>],
        f: &mut ElemFn<'_, 'ctx, 'm>,
        slots: u32,
    ) -> VrResult<FunctionValue<'ctx>> {
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let llfn = self.declare_chunk_fn(g, "elementwise");
        let param = |k: u32| llfn.get_nth_param(k).expect("declared parameter");
        let env = param(0).into_pointer_value();
        let ctx = param(1).into_pointer_value();
        let lo = param(2).into_int_value();
        let hi = param(3).into_int_value();
        let entry = self.cx.append_basic_block(llfn, "entry");
        let code = self.cx.append_basic_block(llfn, "code");
        self.builder.position_at_end(entry);
        let to_code = self.builder.build_unconditional_branch(code)?;
        let alloca_builder = self.cx.create_builder();
        alloca_builder.position_before(&to_code);
        self.builder.position_at_end(code);
        let load = |s: &Self, k: u32, ty: inkwell::types::BasicTypeEnum<'ctx>| {
            debug_assert!(k < slots);
            // SAFETY (LLVM): k < slots.
            let p = unsafe {
                s.builder
                    .build_in_bounds_gep(i64t, env, &[i64t.const_int(k as u64, false)], "")?
            };
            Ok::<_, crate::runtime::error::VrError>(s.builder.build_load(ty, p, "")?)
        };
        let d = out.dims.len() as u32;
        let ints = |s: &Self, from: u32| -> VrResult<Vec<IntValue<'ctx>>> {
            (0..d)
                .map(|k| Ok(load(s, from + k, i64t.into())?.into_int_value()))
                .collect()
        };
        let null = ptr.const_null();
        let dims = ints(self, 1)?;
        let out2 = ArrayView {
            ty: out.ty,
            desc: null,
            data: load(self, 0, ptr.into())?.into_pointer_value(),
            dims: dims.clone(),
            strides: ints(self, 1 + d)?,
        };
        let mut at = 1 + 2 * d;
        let mut ops2 = Vec::with_capacity(ops.len());
        for op in ops {
            match op {
                Operand::Array(a) => {
                    ops2.push(Operand::Array(ArrayView {
                        ty: a.ty,
                        desc: null,
                        data: load(self, at, ptr.into())?.into_pointer_value(),
                        dims: dims.clone(),
                        strides: ints(self, at + 1)?,
                    }));
                    at += 1 + d;
                }
                Operand::Scalar(v) => {
                    let t = self.reg_type(v.ty, &g.f.name)?;
                    ops2.push(Operand::Scalar(Val {
                        v: load(self, at, t)?,
                        ty: v.ty,
                    }));
                    at += 1;
                }
            }
        }
        let mut g2 = FnGen {
            f: g.f,
            llfn,
            ctx_ptr: ctx,
            outs: Vec::new(),
            vars: Default::default(),
            loops: Vec::new(),
            line: g.line,
            alloca_builder,
            depth_in: self.i64c(0),
        };
        let rows = self.builder.build_int_sub(hi, lo, "rows")?;
        self.counted_loop(&mut g2, rows, |cg, g2, i| {
            let row = cg.builder.build_int_add(lo, i, "row")?;
            cg.map_elements(g2, &out2, &[row], &ops2, f)
        })?;
        self.builder
            .build_return(Some(&self.cx.i32_type().const_zero()))?;
        Ok(llfn)
    }
}
