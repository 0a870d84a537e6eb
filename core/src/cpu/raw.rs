//! Calls on arrays that live in host memory, for the C API: descriptors point straight
//! at the host's elements (zero copy, any layout the parameter type accepts), and array
//! results are handed to a callback while the call's arena still holds them, so the
//! caller can move them into host arrays before the arena is freed.
//!
//! Also why a [`CompiledModule`] may be shared between threads: after compilation the
//! execution engine is never touched again (only dropped); a call reads the entry
//! pointers and the module's constant data and keeps everything it writes (context,
//! arena, argument and result slots) on its own stack. Generated code has no global
//! mutable state.

use super::abi::{ArrayDesc, CallCtx};
use super::CompiledModule;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::host::{check_argument, HostArg};
use crate::runtime::value::Scalar;
use crate::vrir::types::{ArrayType, ScalarType, Type};

// SAFETY: see the file comment: the engine and LLVM context are used by one thread only
// while compiling (before the value exists) and when dropping (when no call runs, since
// calls borrow the module); calls share only immutable data.
unsafe impl Send for CompiledModule {}
unsafe impl Sync for CompiledModule {}

/// An array result as compiled code left it: `data` points into an argument's memory,
/// into `block` (memory the call created, now owned by this result), or into the block
/// of an earlier result of the same call (valid only inside the callback of
/// [`CompiledModule::call_host`]).
#[derive(Debug)]
pub struct RawArray {
    pub ty: ArrayType,
    pub data: *mut u8,
    pub dims: Vec<i64>,
    pub strides: Vec<i64>,
    pub block: Option<OwnedBlock>,
}

/// A block of memory compiled code created, taken out of the call's arena: freed when
/// dropped, unless [`OwnedBlock::into_raw`] hands it over.
#[derive(Debug)]
pub struct OwnedBlock {
    start: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
}

impl OwnedBlock {
    /// The block's start and layout; free with [`OwnedBlock::free_raw`].
    pub fn into_raw(self) -> (*mut u8, std::alloc::Layout) {
        let b = std::mem::ManuallyDrop::new(self);
        (b.start.as_ptr(), b.layout)
    }

    /// Free a block from [`OwnedBlock::into_raw`].
    ///
    /// # Safety
    /// `start` and `layout` come from `into_raw`, and the block is freed once.
    pub unsafe fn free_raw(start: *mut u8, layout: std::alloc::Layout) {
        if let Some(start) = std::ptr::NonNull::new(start) {
            super::abi::free_block(start, layout)
        }
    }
}

impl Drop for OwnedBlock {
    fn drop(&mut self) {
        // SAFETY: allocated by the arena with this layout; owned here, freed once.
        unsafe { super::abi::free_block(self.start, self.layout) }
    }
}

#[derive(Debug)]
pub enum RawResult {
    Scalar(Scalar),
    Array(RawArray),
}

// Scalar argument and result slots are 16 bytes, as in `marshal` (complex: re, im).
use super::marshal::{scalar_bits, scalar_of_bits as scalar_from_bits, ScalarSlot as Slot};

impl CompiledModule {
    /// The module this was compiled from.
    pub fn module(&self) -> &crate::vrir::ast::Module {
        &self.module
    }

    /// Call `func` on host arguments, in place: compiled code reads and writes the
    /// host's arrays through their descriptors. Arguments are checked against the
    /// parameter types first (count, element type, rank, layout, well-formed
    /// descriptor). On success `take` receives the results while the arena still holds
    /// the arrays the call created; its answer is returned. `random`: the host's
    /// generator for `random_*` draws (None: the process's built-in stream).
    ///
    /// # Safety
    /// Every array's `data`, `dims` and `strides` describe memory that is valid (and
    /// writable, where the function writes) for the whole call and not used by anyone
    /// else meanwhile.
    pub unsafe fn call_host<R>(
        &self,
        func: &str,
        args: &[HostArg],
        random: Option<crate::runtime::rng::HostRandom>,
        take: impl FnOnce(Vec<RawResult>) -> VrResult<R>,
    ) -> VrResult<R> {
        let f = self.module.function(func).ok_or_else(|| {
            VrError::new(
                ErrorKind::InvalidArgument,
                format!("no function `{func}` in module `{}`", self.module.name),
            )
        })?;
        let sizes = || {
            args.iter()
                .map(|a| match a {
                    HostArg::Array(h) => super::tiers::ArgSize::Array(h.dims.iter().map(|d| *d as f64).collect()),
                    HostArg::Scalar(s) => super::tiers::ArgSize::Scalar(s.as_f64()),
                })
                .collect()
        };
        let entry = self.entry_for(func, sizes).ok_or_else(|| {
            VrError::new(ErrorKind::Internal, format!("cpu backend: `{func}` was not compiled"))
        })?;
        if args.len() != f.params.len() {
            return Err(VrError::new(
                ErrorKind::InvalidArgument,
                format!("`{func}` takes {} arguments but {} were given", f.params.len(), args.len()),
            )
            .with_function(func));
        }
        // Slots generated code reads arguments from and writes results to.
        let mut scalars: Vec<Slot> = Vec::with_capacity(args.len());
        let mut descs: Vec<ArrayDesc> = Vec::with_capacity(args.len());
        for (p, a) in f.params.iter().zip(args) {
            check_argument(&p.ty, a).map_err(|msg| {
                VrError::new(ErrorKind::InvalidArgument, format!("argument `{}`: {msg}", p.name))
                    .with_function(func)
            })?;
            match a {
                HostArg::Scalar(s) => scalars.push(scalar_bits(*s)),
                HostArg::Array(h) => descs.push(ArrayDesc {
                    data: h.data,
                    dims: h.dims.as_ptr(),
                    strides: h.strides.as_ptr(),
                }),
            }
        }
        let (mut si, mut di) = (0, 0);
        let mut arg_ptrs: Vec<*mut u8> = Vec::with_capacity(args.len());
        for a in args {
            // Both vectors are complete: their elements no longer move.
            match a {
                HostArg::Scalar(_) => {
                    arg_ptrs.push(&mut scalars[si] as *mut Slot as *mut u8);
                    si += 1;
                }
                HostArg::Array(_) => {
                    arg_ptrs.push(&mut descs[di] as *mut ArrayDesc as *mut u8);
                    di += 1;
                }
            }
        }
        let mut result_scalars: Vec<Slot> = vec![[0; 2]; f.results.len()];
        let mut result_shapes: Vec<(Vec<i64>, Vec<i64>)> = f
            .results
            .iter()
            .map(|t| {
                let n = t.as_array().map_or(0, |a| a.ndims as usize);
                (vec![0i64; n], vec![0i64; n])
            })
            .collect();
        let mut result_descs: Vec<ArrayDesc> = result_shapes
            .iter_mut()
            .map(|(d, s)| ArrayDesc {
                data: std::ptr::null_mut(),
                dims: d.as_mut_ptr(),
                strides: s.as_mut_ptr(),
            })
            .collect();
        let mut result_ptrs: Vec<*mut u8> = Vec::with_capacity(f.results.len());
        for (k, t) in f.results.iter().enumerate() {
            match t {
                Type::Array(_) => result_ptrs.push(&mut result_descs[k] as *mut ArrayDesc as *mut u8),
                Type::Scalar { .. } => result_ptrs.push(&mut result_scalars[k] as *mut Slot as *mut u8),
                other => {
                    return Err(VrError::new(
                        ErrorKind::Unsupported,
                        format!("cpu backend: a result of type {other} cannot cross to a host"),
                    )
                    .with_function(func))
                }
            }
        }

        let mut ctx = CallCtx::default();
        ctx.arena.limit = self.alloc_limit;
        ctx.offload = self.offload_call();
        if let Some(o) = ctx.offload.as_mut() {
            // Arguments the host vouches are unchanged since it last passed them: a
            // device may still hold them (gpu::resident).
            let stable: Vec<(usize, usize)> = args
                .iter()
                .filter_map(|a| match a {
                    HostArg::Array(h) if h.stable => h.byte_span(),
                    _ => None,
                })
                .collect();
            if !stable.is_empty() {
                o.session.stable_arrays(&stable);
            }
        }
        ctx.random = random;
        let (args_p, results_p) = (arg_ptrs.as_ptr(), result_ptrs.as_ptr());
        let ctx_p: *mut CallCtx = &mut ctx;
        // SAFETY: the slots match f's signature (checked above) and outlive the call; the
        // caller vouches for the host memory; generated code does not unwind.
        let run = move || unsafe { entry(ctx_p, args_p, results_p) };
        let status = if self.recursive { super::on_large_stack(run)? } else { run() };
        self.noalias_calls
            .fetch_add(ctx.noalias_entries, std::sync::atomic::Ordering::Relaxed);
        if let Some(late) = ctx.offload.as_mut().and_then(|o| o.session.finish()) {
            return Err(late);
        }
        if status != 0 {
            return Err(ctx.error(self.module.index_base).unwrap_or_else(|| {
                VrError::new(
                    ErrorKind::Internal,
                    format!("cpu backend: `{func}` failed without recording an error"),
                )
            }));
        }
        let arena = &mut ctx.arena;
        let results = f
            .results
            .iter()
            .enumerate()
            .map(|(k, t)| match t {
                Type::Array(at) => RawResult::Array(RawArray {
                    ty: *at,
                    data: result_descs[k].data,
                    dims: result_shapes[k].0.clone(),
                    strides: result_shapes[k].1.clone(),
                    block: arena
                        .detach_block(result_descs[k].data)
                        .map(|(start, layout)| OwnedBlock { start, layout }),
                }),
                _ => RawResult::Scalar(scalar_from_bits(
                    result_scalars[k],
                    t.as_scalar().unwrap_or(ScalarType::F64),
                )),
            })
            .collect();
        // The arena (in ctx) lives until the end of this function: after `take`. Blocks
        // of results are owned by the results, alive until `take` drops or keeps them.
        let out = take(results);
        drop(ctx);
        out
    }
}
