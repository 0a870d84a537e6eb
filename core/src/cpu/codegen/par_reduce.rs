//! Whole-array reductions of integer arrays on the `cpu-par` backend: `sum`, `prod`,
//! `amin` and `amax` of i32/i64 arrays with at least 65,536 elements
//! (`par_elementwise::PARALLEL_MIN_ELEMENTS`)
//! run on the pool; smaller arrays and every other case keep the serial fold.
//!
//! Why only these: the result must equal the serial backend's bit for bit
//! (docs/vrir-semantics.md). Wrapping integer addition and multiplication and integer
//! min/max are associative and commutative, so any grouping gives the same value: each
//! chunk (rows of the outermost dimension in storage order, like the parallel
//! element-wise loops) folds its elements into a local accumulator started at the
//! operation's identity (0, 1, the type's MAX or MIN), then merges it into the shared
//! result with one atomic operation (`atomicrmw add/min/max`, a compare-exchange loop
//! for the product). Float `sum`/`prod` stay serial by contract (a different grouping
//! changes the rounding). Float `amin`/`amax` also stay serial: the fold is associative
//! for ordinary values (including -0.0 against +0.0, where the earlier element wins either
//! way), but when several NaNs with different payloads or signs meet, the NaN kept is
//! the one `x + y` returns, and which operand that is depends on how the register
//! allocator orders a commutative add; the serial result's NaN bits are therefore not
//! something a parallel merge can be proven to reproduce. VRIR has no boolean
//! reductions (`any`/`all`); front ends lower them to loops or integer sums.
//!
//! Empty arrays never reach this path (they are below the threshold), so `amin`/`amax`
//! keep the serial path's "empty reduction" error.

use super::elementwise::Operand;
use super::par_elementwise::SizeSplit;
use super::parfor::ChunkParams;
use super::{ArrayView, CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, LibFn, ReduceOp};
use crate::vrir::types::{ArrayType, Layout};
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp};

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Whether `op` over elements of `a`'s type may be split across threads here.
    pub(crate) fn reduction_is_parallel(&self, op: ReduceOp, a: &ArrayView<'ctx>) -> bool {
        // Every integer sum, product, minimum and maximum qualifies (see the module
        // doc); the means are float reductions, serial as all of them.
        self.parallel && !op.is_mean() && a.ty.elem.is_int() && !a.dims.is_empty()
    }

    /// The fold of every element of integer array `a`: on the pool when `a` is large,
    /// else `serial` (the serial fold's code, emitted on the small-array branch).
    pub(crate) fn reduce_view_parallel(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: ReduceOp,
        a: &ArrayView<'ctx>,
        serial: &mut dyn FnMut(&mut Self, &mut FnGen<'ctx, 'm>) -> VrResult<Val<'ctx>>,
    ) -> VrResult<Val<'ctx>> {
        let t = a.ty.elem;
        let it = self.int_type(t);
        let result = g.alloca_builder.build_alloca(it, "reduce.result")?;
        let total = self.element_count(a)?;
        let SizeSplit {
            par: par_bb,
            err: err_bb,
            join,
        } = self.split_on_size(g, total, "reduce")?;
        let par_done = self.cx.append_basic_block(g.llfn, "reduce.par.done");
        let v = serial(self, g)?;
        self.builder.build_store(result, v.v)?;
        self.builder.build_unconditional_branch(join)?;

        // Loop order = storage order: for column-major types the last dimension is
        // outermost. Chunks are rows of that outermost dimension.
        let (dims, strides): (Vec<_>, Vec<_>) = if a.ty.layout == Layout::Col {
            (
                a.dims.iter().rev().copied().collect(),
                a.strides.iter().rev().copied().collect(),
            )
        } else {
            (a.dims.clone(), a.strides.clone())
        };
        let d = dims.len() as u32;
        // Environment: data, dims, strides (loop order), the shared result's address.
        let slots = 2 + 2 * d;
        self.builder.position_at_end(par_bb);
        let body = self.outline_reduction(g, op, a.ty, d, slots)?;
        self.builder.position_at_end(par_bb);
        let env = self.new_env(g, slots, "reduce.env")?;
        let slot = |s: &Self, k: u32| s.env_slot(env, k);
        self.builder.build_store(slot(self, 0)?, a.data)?;
        for k in 0..d {
            self.builder
                .build_store(slot(self, 1 + k)?, dims[k as usize])?;
            self.builder
                .build_store(slot(self, 1 + d + k)?, strides[k as usize])?;
        }
        self.builder.build_store(slot(self, 1 + 2 * d)?, result)?;
        self.builder
            .build_store(result, self.identity(op, it)?)?;
        let counts = slot(self, 1)?;
        self.run_chunks(g, body, env, counts, 1, par_done, err_bb)?;
        self.builder.build_unconditional_branch(join)?;

        self.builder.position_at_end(join);
        let v = self.builder.build_load(it, result, "reduce")?;
        Ok(Val { v, ty: t })
    }

    /// The identity of `op` on (signed) integers of type `it`.
    fn identity(&self, op: ReduceOp, it: inkwell::types::IntType<'ctx>) -> VrResult<IntValue<'ctx>> {
        let bits = it.get_bit_width();
        let max = (1u64 << (bits - 1)) - 1;
        Ok(match op {
            ReduceOp::Sum => it.const_zero(),
            ReduceOp::Prod => it.const_int(1, false),
            ReduceOp::Min => it.const_int(max, false),
            ReduceOp::Max => it.const_int(max + 1, false),
            ReduceOp::Mean | ReduceOp::MeanRefined => {
                return Err(crate::runtime::error::VrError::new(
                    crate::runtime::error::ErrorKind::Internal,
                    format!("`{}` split across threads", op.name()),
                ))
            }
        })
    }

    /// `i32 body(env, ctx, lo, hi, last)`: folds rows `lo..hi` of the outermost dimension
    /// (loop order) and merges the chunk's value into the shared result atomically.
    fn outline_reduction(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        op: ReduceOp,
        ty: ArrayType,
        d: u32,
        slots: u32,
    ) -> VrResult<FunctionValue<'ctx>> {
        let t = ty.elem;
        let it = self.int_type(t);
        let ptr = self.ptr_type();
        let llfn = self.declare_chunk_fn(g, "reduce");
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
        let ints = |s: &Self, from: u32| s.env_load_ints(env, from, d);
        // The array in loop order, as a row-major view (only its strides matter).
        let view = ArrayView {
            ty: ArrayType::new(t, d, Layout::Strided),
            desc: ptr.const_null(),
            data: load(self, 0, ptr.into())?.into_pointer_value(),
            dims: ints(self, 1)?,
            strides: ints(self, 1 + d)?,
        };
        let shared = load(self, 1 + 2 * d, ptr.into())?.into_pointer_value();
        let mut g2 = self.chunk_fngen(g, llfn, ctx, alloca_builder);
        let acc = g2.alloca_builder.build_alloca(it, "acc")?;
        self.builder
            .build_store(acc, self.identity(op, it)?)?;
        let rows = self.builder.build_int_sub(hi, lo, "rows")?;
        let inner: Vec<IntValue<'ctx>> = view.dims[1..].to_vec();
        self.counted_loop(&mut g2, rows, |cg, g2, i| {
            let row = cg.builder.build_int_add(lo, i, "row")?;
            let v = view.clone();
            cg.nd_loop(g2, &inner, &mut |cg, g2, rest| {
                let mut idx = Vec::with_capacity(rest.len() + 1);
                idx.push(row);
                idx.extend_from_slice(rest);
                let x = cg.load_operand(g2, &Operand::Array(v.clone()), &idx)?;
                let cur = Val {
                    v: cg.builder.build_load(it, acc, "")?,
                    ty: t,
                };
                let next = cg.fold_step(g2, op, cur, x)?;
                cg.builder.build_store(acc, next.v)?;
                Ok(())
            })
        })?;
        let partial = self.builder.build_load(it, acc, "partial")?.into_int_value();
        self.merge_atomically(&mut g2, op, shared, partial, t)?;
        self.builder
            .build_return(Some(&self.cx.i32_type().const_zero()))?;
        Ok(llfn)
    }

    /// One step of the integer fold, the serial fold's own operations.
    fn fold_step(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: ReduceOp,
        cur: Val<'ctx>,
        x: Val<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        match op {
            ReduceOp::Sum => self.binary(g, BinOp::Add, cur, x),
            ReduceOp::Prod => self.binary(g, BinOp::Mul, cur, x),
            ReduceOp::Min => self.lib_apply(g, LibFn::Min, cur, Some(x)),
            ReduceOp::Max => self.lib_apply(g, LibFn::Max, cur, Some(x)),
            ReduceOp::Mean | ReduceOp::MeanRefined => {
                Err(self.type_err(g, format!("`{}` split across threads", op.name())))
            }
        }
    }

    /// `*shared = op(*shared, partial)` as one atomic step.
    fn merge_atomically(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: ReduceOp,
        shared: PointerValue<'ctx>,
        partial: IntValue<'ctx>,
        t: crate::vrir::types::ScalarType,
    ) -> VrResult<()> {
        let seq = AtomicOrdering::SequentiallyConsistent;
        let rmw = match op {
            ReduceOp::Sum => Some(AtomicRMWBinOp::Add),
            ReduceOp::Min => Some(AtomicRMWBinOp::Min),
            ReduceOp::Max => Some(AtomicRMWBinOp::Max),
            ReduceOp::Prod => None,
            ReduceOp::Mean | ReduceOp::MeanRefined => {
                return Err(self.type_err(g, format!("`{}` split across threads", op.name())))
            }
        };
        if let Some(rmw) = rmw {
            self.builder.build_atomicrmw(rmw, shared, partial, seq)?;
            return Ok(());
        }
        // Product: compare-exchange until no other chunk wrote in between.
        let it = self.int_type(t);
        let start = self.builder.build_load(it, shared, "seen")?.into_int_value();
        let pre = self.builder.get_insert_block().expect("positioned");
        let retry = self.cx.append_basic_block(g.llfn, "prod.retry");
        let done = self.cx.append_basic_block(g.llfn, "prod.done");
        self.builder.build_unconditional_branch(retry)?;
        self.builder.position_at_end(retry);
        let seen = self.builder.build_phi(it, "seen")?;
        seen.add_incoming(&[(&start, pre)]);
        let seen_v = seen.as_basic_value().into_int_value();
        let product = self.binary(
            g,
            BinOp::Mul,
            Val {
                v: seen_v.into(),
                ty: t,
            },
            Val {
                v: partial.into(),
                ty: t,
            },
        )?;
        let pair =
            self.builder
                .build_cmpxchg(shared, seen_v, product.v.into_int_value(), seq, seq)?;
        let now = self.builder.build_extract_value(pair, 0, "now")?.into_int_value();
        let ok = self
            .builder
            .build_extract_value(pair, 1, "ok")?
            .into_int_value();
        let here = self.builder.get_insert_block().expect("positioned");
        seen.add_incoming(&[(&now, here)]);
        self.builder.build_conditional_branch(ok, done, retry)?;
        self.builder.position_at_end(done);
        Ok(())
    }
}
