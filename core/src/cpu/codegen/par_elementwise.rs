//! Element-wise array operators on the `cpu-par` backend: the loop is outlined (like a
//! parfor body, see `parfor.rs`); when the result has at least [`PARALLEL_MIN_ELEMENTS`]
//! elements its outermost dimension is cut into chunks that run on the thread pool
//! through `vr_cpu_parfor`, and smaller arrays call the same function on this thread
//! over all rows (the pool's start-up cost would dominate). One copy of the loop, not an
//! inline serial one besides (compile latency, issue 18), and chunk functions of the
//! same IR text are shared ([`CodeGen::shared_chunk_fn`]). Every element is computed by
//! the same code either way and written to its own place, so results are bit-identical
//! to the serial backend and the interpreter. Errors (an invalid cast, an integer
//! division by zero) stay those of the first failing element in logical order: chunks
//! are contiguous in that order and the runtime reports the failed chunk of lowest
//! index (see `cpu::parallel`).
//!
//! Whole-array reductions of large integer arrays are parallel too (`par_reduce.rs`);
//! float reductions stay serial (the module doc there says why).

use super::elementwise::{ElemFn, Operand};
use super::parfor::ChunkParams;
use super::{ArrayView, CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{FunctionValue, IntValue};
use inkwell::IntPredicate;

/// Fewest result elements for which an element-wise operator runs on the pool (the
/// optimizer's fused loops switch to `parfor` at the same size).
pub(crate) const PARALLEL_MIN_ELEMENTS: i64 = crate::opt::elementwise::PARALLEL_MIN_ELEMENTS;

/// The blocks of [`CodeGen::split_on_size`].
pub(crate) struct SizeSplit<'ctx> {
    /// Taken for large arrays: the parallel code goes here.
    pub(crate) par: BasicBlock<'ctx>,
    /// Where the parallel code goes when the runtime reports an error.
    pub(crate) err: BasicBlock<'ctx>,
    /// Where both paths meet.
    pub(crate) join: BasicBlock<'ctx>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Branch on `count >= PARALLEL_MIN_ELEMENTS` to a parallel block or a serial one,
    /// leaving the builder in the serial block (blocks named after `prefix`).
    pub(crate) fn split_on_size(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        count: IntValue<'ctx>,
        prefix: &str,
    ) -> VrResult<SizeSplit<'ctx>> {
        let big = self.builder.build_int_compare(
            IntPredicate::SGE,
            count,
            self.i64c(PARALLEL_MIN_ELEMENTS),
            "big",
        )?;
        let par = self.cx.append_basic_block(g.llfn, &format!("{prefix}.par"));
        let serial = self.cx.append_basic_block(g.llfn, &format!("{prefix}.serial"));
        let err = self.cx.append_basic_block(g.llfn, &format!("{prefix}.err"));
        let join = self.cx.append_basic_block(g.llfn, &format!("{prefix}.done"));
        self.builder.build_conditional_branch(big, par, serial)?;
        self.builder.position_at_end(serial);
        Ok(SizeSplit { par, err, join })
    }

    /// Environment slots `from..from + n` read as i64 (inside a chunk function).
    pub(crate) fn env_load_ints(
        &self,
        env: inkwell::values::PointerValue<'ctx>,
        from: u32,
        n: u32,
    ) -> VrResult<Vec<IntValue<'ctx>>> {
        let i64t = self.cx.i64_type();
        (from..from + n)
            .map(|k| Ok(self.env_load(env, k, i64t.into())?.into_int_value()))
            .collect()
    }

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
        let start_bb = self.builder.get_insert_block().expect("positioned");

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
        let body = self.outline_elementwise(g, out, ops, f, slots)?;
        let body = self.shared_chunk_fn(body);
        self.builder.position_at_end(start_bb);
        let env = self.new_env(g, slots, "ew.env")?;
        let slot = |s: &Self, k: u32| s.env_slot(env, k);
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
                // A scalar wider than a slot (c128) goes by address: stored in place it
                // would overwrite the next slot (a latent fault of the >= 2^16-element
                // path that the small-array path, which now uses the same code, showed).
                Operand::Scalar(v) if !super::parfor::fits_slot(v.ty) => {
                    let home = g.alloca_builder.build_alloca(v.v.get_type(), "ew.wide")?;
                    self.builder.build_store(home, v.v)?;
                    self.builder.build_store(slot(self, at)?, home)?;
                    at += 1;
                }
                Operand::Scalar(v) => {
                    self.builder.build_store(slot(self, at)?, v.v)?;
                    at += 1;
                }
            }
        }
        // Chunks of the outermost dimension: its extent is the one count. Small arrays
        // call the same outlined loop on this thread, over all rows: one copy of the
        // loop, not an inline serial copy besides the outlined one (compile latency,
        // issue 18: array-style code is made of these; docs/cpu-backend.md).
        let counts = slot(self, 1)?;
        let par_bb = self.cx.append_basic_block(g.llfn, "ew.par");
        let ser_bb = self.cx.append_basic_block(g.llfn, "ew.serial");
        let ran_bb = self.cx.append_basic_block(g.llfn, "ew.ran");
        let err_bb = self.cx.append_basic_block(g.llfn, "ew.err");
        let join = self.cx.append_basic_block(g.llfn, "ew.done");
        self.builder.build_conditional_branch(big, par_bb, ser_bb)?;
        self.builder.position_at_end(par_bb);
        let helper = self.module.get_function(super::PARFOR).expect("declared");
        let par_status = self.call_status(
            g,
            helper,
            &[
                g.ctx_ptr.into(),
                body.as_global_value().as_pointer_value().into(),
                env.into(),
                counts.into(),
                self.i64c(1).into(),
            ],
        )?;
        self.builder.build_unconditional_branch(ran_bb)?;
        self.builder.position_at_end(ser_bb);
        let rows = out.dims[0];
        let ser_status = self.call_status(
            g,
            body,
            &[
                env.into(),
                g.ctx_ptr.into(),
                self.i64c(0).into(),
                rows.into(),
                self.cx.i32_type().const_int(1, false).into(),
            ],
        )?;
        self.builder.build_unconditional_branch(ran_bb)?;
        self.builder.position_at_end(ran_bb);
        let phi = self.builder.build_phi(self.cx.i32_type(), "ew.status")?;
        phi.add_incoming(&[(&par_status, par_bb), (&ser_status, ser_bb)]);
        self.branch_on_status(phi.as_basic_value().into_int_value(), join, err_bb)?;
        Ok(())
    }

    /// `llfn`, or an earlier chunk function of the module whose IR is the same text but
    /// for the name (then `llfn` is deleted). Element-wise operators of the same
    /// operation and operand types (and nothing in them that can fail, whose site
    /// records differ) outline to the same function whatever their operands are, since
    /// the operands come through the environment: array-style R code repeats a few of
    /// them many times (recycle-version's AS-WRITTEN copy, fusion's unfused fallbacks,
    /// the same `*` on several lines), and each copy was optimized and compiled again
    /// (compile latency, issue 18). Same text, same code: nothing else changes.
    pub(crate) fn shared_chunk_fn(&mut self, llfn: FunctionValue<'ctx>) -> FunctionValue<'ctx> {
        use inkwell::values::AnyValue;
        let name = llfn.get_name().to_string_lossy().into_owned();
        let text = llfn
            .print_to_string()
            .to_string()
            .replace(&format!("@{name}("), "@CHUNK(")
            .replace(&format!("@\"{name}\"("), "@CHUNK(");
        if let Some(&earlier) = self.chunk_fns.get(&text) {
            // SAFETY: nothing refers to the function just built (its caller is not built yet).
            unsafe { llfn.delete() };
            return earlier;
        }
        self.chunk_fns.insert(text, llfn);
        llfn
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
        let llfn = self.declare_chunk_fn(g, "elementwise");
        // Called directly for small arrays: kept out of line, or LLVM would inline it
        // there and compile the loop twice again.
        llfn.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("noinline"),
        );
        let ChunkParams {
            env,
            ctx,
            lo,
            hi,
            alloca_builder,
            ..
        } = self.begin_chunk_fn(llfn)?;
        let load = |s: &Self, k: u32, ty: inkwell::types::BasicTypeEnum<'ctx>| {
            debug_assert!(k < slots);
            s.env_load(env, k, ty)
        };
        let d = out.dims.len() as u32;
        let ints = |s: &Self, from: u32| s.env_load_ints(env, from, d);
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
                    let value = if super::parfor::fits_slot(v.ty) {
                        load(self, at, t)?
                    } else {
                        let home = load(self, at, ptr.into())?.into_pointer_value();
                        self.builder.build_load(t, home, "")?
                    };
                    ops2.push(Operand::Scalar(Val { v: value, ty: v.ty }));
                    at += 1;
                }
            }
        }
        let mut g2 = self.chunk_fngen(g, llfn, ctx, alloca_builder);
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
