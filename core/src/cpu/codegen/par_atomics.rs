//! Per-chunk sums for integer `atomic-add`s in an outlined parfor body (cpu-par): the
//! optimizer's `atomic-privatize` decision (`opt::atomic_privatize::private_sums`),
//! carried out when `CpuOptions::privatize_atomics` is on.
//!
//! Each sum is two stack slots of the chunk function: the running sum (from 0) and the
//! element's address (initially a dummy slot of the chunk's own frame, so that adding
//! to it needs no test). A site evaluates its value and its indices and checks the
//! bounds exactly as `atomic_add` does (the same error at the same point), stores the
//! address and adds the value to the sum: no memory traffic, so LLVM keeps both in
//! registers. Before every `ret` of the chunk function, the error returns included,
//! each sum is added to its address with one `atomicrmw add` (seq_cst, as the atomics
//! it replaces): a chunk that stops at an error has added everything its iterations
//! added up to that point. The site's own result (the old element) is never read
//! (the decision requires it), so it yields 0.

use super::{CodeGen, FnGen, Val};
use crate::opt::atomic_privatize::private_sums;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Block, Expr, IndexFlags};
use crate::vrir::types::ScalarType;
use inkwell::values::{FunctionValue, InstructionOpcode, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp};

/// The sums of one chunk function and the sites that add to them.
#[derive(Default)]
pub(crate) struct ChunkSums<'ctx> {
    sums: Vec<ChunkSum<'ctx>>,
    sites: Vec<*const Expr>,
}

/// The slots of one per-chunk sum.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkSum<'ctx> {
    elem: ScalarType,
    /// The running sum, in the element's type.
    sum: PointerValue<'ctx>,
    /// Where the sum goes: the element's address once a site ran.
    target: PointerValue<'ctx>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Accumulate qualifying parfor atomics per chunk (see `opt::atomic_privatize`).
    pub fn with_privatize_atomics(mut self, on: bool) -> Self {
        self.privatize_atomics = on;
        self
    }

    /// In a chunk function being built (builder in its first code block, `alloca`
    /// positioned in the entry block): the sums of the parfor whose body is `body`,
    /// their slots initialised and their sites registered for `atomic_add`.
    pub(crate) fn begin_chunk_sums(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        alloca: &inkwell::builder::Builder<'ctx>,
        body: &'m Block,
    ) -> VrResult<ChunkSums<'ctx>> {
        let mut out = ChunkSums::default();
        if !self.privatize_atomics {
            return Ok(out);
        }
        for p in private_sums(g.f, body) {
            let t = match p.elem {
                ScalarType::I32 => self.cx.i32_type(),
                ScalarType::I64 => self.cx.i64_type(),
                _ => continue,
            };
            let sum = alloca.build_alloca(t, &format!("{}.chunk_sum", p.array))?;
            let sink = alloca.build_alloca(t, &format!("{}.sum_sink", p.array))?;
            let target = alloca.build_alloca(self.ptr_type(), &format!("{}.sum_at", p.array))?;
            self.builder.build_store(sum, t.const_zero())?;
            self.builder.build_store(sink, t.const_zero())?;
            self.builder.build_store(target, sink)?;
            let s = ChunkSum {
                elem: p.elem,
                sum,
                target,
            };
            for v in p.sites {
                self.chunk_sum_sites.insert(v as *const Expr, s);
                out.sites.push(v as *const Expr);
            }
            out.sums.push(s);
        }
        Ok(out)
    }

    /// The per-chunk sum the atomic-add whose `:value` is `value` goes to, if any.
    pub(crate) fn chunk_sum_of(&self, value: &Expr) -> Option<ChunkSum<'ctx>> {
        self.chunk_sum_sites.get(&(value as *const Expr)).copied()
    }

    /// A privatized `(atomic-add A i... :value v)`: as `atomic_add` up to the bounds
    /// check, then into the chunk's sum.
    pub(crate) fn chunk_sum_add(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &str,
        indices: &[Expr],
        value: &Expr,
        s: ChunkSum<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        let v = self.expr(g, value)?;
        let (ptr, elem) = self.element_ptr(g, array, indices, IndexFlags::default())?;
        if v.ty != elem || elem != s.elem {
            return Err(self.type_err(g, format!("atomic-add of {} to `{array}` of {elem}", v.ty)));
        }
        let t = v.int().get_type();
        self.builder.build_store(s.target, ptr)?;
        let acc = self.builder.build_load(t, s.sum, "")?.into_int_value();
        let acc = self.builder.build_int_add(acc, v.int(), "")?;
        self.builder.build_store(s.sum, acc)?;
        Ok(Val {
            v: t.const_zero().into(),
            ty: elem,
        })
    }

    /// Add each sum to its element before every return of the finished chunk function
    /// `llfn`, and forget the sums' sites.
    pub(crate) fn finish_chunk_sums(
        &mut self,
        llfn: FunctionValue<'ctx>,
        sums: ChunkSums<'ctx>,
    ) -> VrResult<()> {
        for site in &sums.sites {
            self.chunk_sum_sites.remove(site);
        }
        if sums.sums.is_empty() {
            return Ok(());
        }
        let rets: Vec<_> = llfn
            .get_basic_blocks()
            .into_iter()
            .filter_map(|b| b.get_terminator())
            .filter(|t| t.get_opcode() == InstructionOpcode::Return)
            .collect();
        for ret in rets {
            self.builder.position_before(&ret);
            for s in &sums.sums {
                let t = match s.elem {
                    ScalarType::I32 => self.cx.i32_type(),
                    _ => self.cx.i64_type(),
                };
                let at = self
                    .builder
                    .build_load(self.ptr_type(), s.target, "")?
                    .into_pointer_value();
                let v = self.builder.build_load(t, s.sum, "")?.into_int_value();
                self.builder.build_atomicrmw(
                    AtomicRMWBinOp::Add,
                    at,
                    v,
                    AtomicOrdering::SequentiallyConsistent,
                )?;
            }
        }
        Ok(())
    }
}
