//! The LLVM CPU backend: VRIR compiled to native code through LLVM 19 (inkwell) and run
//! in process by MCJIT. Only this module touches inkwell, so an LLVM upgrade touches one
//! place.
//!
//! - `abi`: the repr(C) structures shared with generated code and the run-time helpers.
//! - `codegen`: VRIR -> LLVM IR (`i32 f(ctx, outs..., params...)` per function, plus an
//!   entry wrapper; arrays it creates come from the call's arena; errors are recorded in `ctx` and propagated as a status, never by
//!   unwinding).
//! - `jit`: host CPU attributes, `alwaysinline` on functions only their entry calls (one
//!   simplification of their body, not two: compile latency), the `default<O2>` pipeline,
//!   MCJIT. Phase times go to [`crate::compile_phases`] (read by `vr-bench-compile`).
//! - `marshal`: run-time values <-> entry-wrapper arguments and results.
//! - `libm`, `callgraph`: math symbols mapped by address; recursion detection.
//! - `complex_rt`: the complex transcendental functions and `pow` (num-complex itself)
//!   and `hypot`, mapped by address.
//! - `marshal_value`: ranges, domains and tuples crossing the entry wrapper.
//! - `parallel`: the thread pools and the parfor runtime helper (cpu-par).
//! - `tiers`: tiered compilation (quick code first, the full tier swapped in when a
//!   background compile finishes; `VR_TIERS`).
//! - `random`: `vr_cpu_random`, the helper behind `random_*` draws (the call's host
//!   generator, or the process's built-in R-compatible stream).
//!
//! First increment: scalar code of bool/i32/i64/f32/f64, calls (recursion, several
//! results), control flow, loops over literal ranges and domains,
//! element reads and writes of arrays handed in (any layout, `:neg`, `:flat`,
//! `:nocheck`), array locals that refer to them, `:view` slices with scalar and range
//! indices, and array results that are views of the arguments.
//!
//! Second increment: arrays created by compiled code (`zeros/ones/empty/fill`, the
//! `alloc` statement; any layout, strided types stored row-major as the interpreter
//! stores them). Memory: a per-call arena ([`abi::Arena`]) owned by the [`CallCtx`].
//! Generated code calls the Rust allocator `vr_cpu_alloc_array`, mapped into the JIT
//! like the error recorder, which checks the element count as the interpreter does and
//! returns one zeroed, 64-byte-aligned block holding the new array's descriptor, dims,
//! strides and elements. Negative extents are checked by generated code. When the
//! top-level call returns, `marshal` copies array results out of the arena into
//! `Value`s and the arena is freed. Known limit: memory is released at the end of the
//! call only, never earlier, so a call that allocates more than its limit in total
//! (8 GiB by default, [`CompiledModule::set_alloc_limit`]) fails with the run-time error
//! "compiled code allocated more than N bytes in one call" instead of exhausting memory.
//!
//! On top of allocation (`codegen/elementwise.rs`): `copy`, slices without `:view`
//! (copies of the view), array-valued unary and binary operators with scalar
//! broadcasting and the interpreter's shape-mismatch error, element-wise casts and
//! library math on arrays, all visiting elements in logical order as the interpreter
//! does; and reductions `sum/prod/amin/amax`, whole-array in the storage order of the
//! array's type and along an axis from index 0 upwards, bit-identical to the interpreter.
//!
//! Complex numbers (`codegen/complex.rs`): c64/c128 scalars and arrays. A complex is
//! the struct `{T, T}` (re, im) in registers and memory, so complex arrays are
//! interleaved pairs, the layout of num-complex, C99, NumPy, R and Octave: hosts pass
//! their buffers as they are. Arithmetic, `abs`, comparisons and casts are emitted with
//! num-complex's formulas, operation for operation; the transcendental functions and
//! `pow` call num-complex through `complex_rt`: bit-identical to the interpreter.
//! Element-wise operators, library math, casts and `sum`/`prod` work on complex arrays.
//!
//! `map` (`codegen/map.rs`): the module function called per element in logical order,
//! scalars broadcast, arrays of any layout, shapes checked as by the interpreter.
//!
//! Tuples, ranges and domains as values (`codegen/tuple.rs`): locals, parameters and
//! results (also of the entry function, through `marshal_value`), `tget`, `mset` from
//! any tuple, tuples holding arrays by reference, loops over range and domain values,
//! a range value as a slice index.
//!
//! Indexing in every form (`codegen/selection.rs`, `codegen/slice_assign.rs`): slices,
//! gathers (outer products over several axes), bool masks and `:flat` ranges, read into
//! fresh arrays (also of computed arrays and call results) and written with a scalar or
//! an array of the selection's extents, resolved and checked axis by axis as the
//! interpreter does (out-of-bounds messages show gathers and masks; a mask of the wrong
//! length and a value of the wrong shape are its shape mismatches). A stored array, or a
//! gather or mask index, whose storage overlaps the target (tested at run time) is
//! copied first, since the interpreter reads them completely before storing.
//!
//! `matmul` (`codegen/matmul.rs`, kernel in [`matmul`]): every rank combination (2-D x
//! 2-D, matrix-vector, vector-matrix, dot) is one call of the Rust kernel
//! `vr_cpu_matmul` on an `(m x k) * (k x n)` product with the operands' own strides
//! (row, column and strided views, negative strides included, without copies). Generated
//! code checks the inner extents first (the interpreter's shape-mismatch error) and
//! allocates the result by the interpreter's layout rule. f32/f64 go to the `gemm`
//! crate (blocked, FMA; order of additions unspecified, as docs/vrir-semantics.md
//! allows), i32/i64 to an exact wrapping loop; the kernel's `parallel` flag is on
//! under cpu-par. `transpose` is a generated copy loop. Complex matmul is unsupported
//! (complex element types are).
//!
//! Parallel (`cpu-par`: [`compile_with`] and [`CpuOptions::parallel`]): parfor bodies
//! are outlined into LLVM functions of their own (`codegen/parfor.rs`: variables through
//! an environment; scalars and array variables the body assigns are private to each
//! chunk of iterations and stored back by the chunk with the last iteration) and run by
//! [`parallel::vr_cpu_parfor`] on a rayon pool, one pool per thread count built once
//! (`VR_THREADS`, [`CompiledModule::set_threads`], default every core). Nested parfors
//! call it again from the worker and share the pool. Element-wise operators of at least
//! 65,536 elements are outlined the same way (`codegen/par_elementwise.rs`), chunked
//! over their outermost dimension: bit-identical results. Reductions stay serial: the
//! contract fixes their accumulation order, so float `sum`/`prod` are never split
//! (integer reductions and `amin`/`amax` could be, exactly; not done yet). Each chunk
//! runs with its own [`CallCtx`] (depth, error fields); arrays it creates go to the
//! call's arena, shared behind a `Mutex` while the loop runs; the reported error is the
//! one the serial order meets first. Atomics (`codegen/atomics.rs`) are LLVM
//! `atomicrmw add/fadd` and `cmpxchg`, on both backends. On `cpu`, parfor runs serially.
//!
//! Still reported as `ErrorKind::Unsupported` at compile time: `matmul` of complex
//! arrays. Run-time errors equal the interpreter's, field for field.

// VrError is the crate-wide error type (128 bytes by design: it carries every location
// field); boxing it only here would make the cpu backend's API differ from the others'.
#![allow(clippy::result_large_err)]

pub mod abi;
mod callgraph;
mod big_stack;
pub mod block_pool;
mod codegen;
mod complex_rt;
pub mod interrupt;
mod jit;
mod libm;
mod marshal;
mod marshal_value;
pub mod blas;
pub mod matmul;
pub mod parallel;
mod object;
pub mod offload;
mod random;
mod raw;
pub mod tiers;

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::ast::Module;
use crate::runtime::offload::{Action, Offload};
use abi::CallCtx;
use std::collections::HashMap;
use std::sync::Arc;
pub use object::{emit_object, load_object, target_id};
pub use raw::{OwnedBlock, RawArray, RawResult};

/// A module compiled to native code, callable by function name.
pub struct CompiledModule {
    module: Module,
    jit: jit::JitModule,
    /// Calls may nest up to the recursion limit: run on a thread with a large stack.
    recursive: bool,
    /// Most bytes one call may allocate (see [`CompiledModule::set_alloc_limit`]).
    alloc_limit: u64,
    /// Threads a parfor may use (1: serial; see [`CompiledModule::set_threads`]).
    threads: usize,
    /// Calls that ran a function's no-alias version (see [`CompiledModule::noalias_calls`]).
    noalias_calls: std::sync::atomic::AtomicU64,
    /// The engine that runs the plan's actions (see [`compile_offloaded`]).
    offload: Option<(Offload, Arc<HashMap<u32, Action>>)>,
    /// Compiled quick first ([`compile_tiered`]): the full tier, once ready.
    tier_up: Option<Arc<tiers::TierUp>>,
}

/// How to compile a module for the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Run parfor loops on the thread pool (the `cpu-par` backend); when false every
    /// parfor runs serially (`cpu`).
    pub parallel: bool,
    /// Threads for parallel loops; `None`: `VR_THREADS` when set, else every core.
    pub threads: Option<usize>,
    /// LLVM's `default<O{opt_level}>` pipeline, 0 to 3 (larger counts as 3); 2 by default.
    pub opt_level: u8,
    /// Compile a no-alias version of functions whose array parameters may overlap,
    /// chosen at entry by an address-range test (`codegen/entry_versions.rs`; the
    /// optimizer's `alias-version` switch). On by default; hosts that promise
    /// parameters never alias turn it off (nothing to test).
    pub alias_versions: bool,
    /// Accumulate qualifying integer `atomic-add`s of a parfor per chunk and add each
    /// chunk's sum with one atomic at its end (`codegen/par_atomics.rs`; the optimizer's
    /// `atomic-privatize` switch). Only `parallel` code has chunks. On by default.
    pub privatize_atomics: bool,
    /// The quick tier (`tiers`): a short IR cleanup pipeline and LLVM's code generator
    /// at -O1 instead of `default<O{opt_level}>`. Off by default.
    pub quick: bool,
}

impl Default for CpuOptions {
    fn default() -> CpuOptions {
        CpuOptions {
            parallel: false,
            threads: None,
            opt_level: 2,
            alias_versions: true,
            privatize_atomics: true,
            quick: false,
        }
    }
}

impl CpuOptions {
    /// The switches of the optimizer passes the backend carries out (`alias-version`,
    /// `atomic-privatize`) set as `passes` says.
    pub fn following(mut self, passes: &crate::opt::OptOptions) -> CpuOptions {
        self.alias_versions = passes.is_enabled("alias-version") && !passes.params_never_alias;
        self.privatize_atomics = passes.is_enabled("atomic-privatize");
        self
    }

    /// The `cpu-par` backend's options: parallel, default thread count.
    pub fn parallel() -> CpuOptions {
        CpuOptions {
            parallel: true,
            ..CpuOptions::default()
        }
    }
}

use big_stack::on_large_stack;

/// Compile every function of `m` (which must have passed the verifier), serially: parfor
/// loops run in order on the calling thread (the `cpu` backend).
pub fn compile(m: &Module) -> VrResult<CompiledModule> {
    compile_with(m, CpuOptions::default())
}

/// Compile `m` with `opts` (`CpuOptions::parallel()` for the `cpu-par` backend).
pub fn compile_with(m: &Module, opts: CpuOptions) -> VrResult<CompiledModule> {
    compile_inner(m, opts, None)
}

/// Compile `m` with `opts`, calling `offload`'s engine at the actions of its plan
/// (`runtime::offload`; the driver's GPU path). Every statement keeps its CPU code, which
/// runs whenever the engine declines.
pub fn compile_offloaded(m: &Module, opts: CpuOptions, offload: Offload) -> VrResult<CompiledModule> {
    compile_inner(m, opts, Some(offload))
}

/// Compile `m` quick first (`tiers`; `mode` is `QuickFirst` or `Auto`): the quick tier
/// now, and the full tier (`opts` at full strength) on a thread of its own, run by
/// every call that starts after it is ready (under `Auto`, also by a first call long
/// enough to wait for it). Where the background compile fails, the quick tier stays.
pub fn compile_tiered(m: &Module, opts: CpuOptions, mode: tiers::Tiers) -> VrResult<CompiledModule> {
    let full_opts = CpuOptions { quick: false, ..opts };
    let owned = m.clone();
    compile_quick_then(m, opts, mode, move || Ok((compile_with(&owned, full_opts)?, None)))
}

/// The quick tier of `m` now, and the full tier as `compile_full` makes it, in the
/// background (`tiers::start`): for hosts whose full tier goes through the on-disk
/// cache (`driver::compile_unit`). With two cores or more the background compile
/// starts first, so that both run at once (the module is verified before either).
pub fn compile_quick_then(
    m: &Module,
    opts: CpuOptions,
    mode: tiers::Tiers,
    compile_full: impl FnOnce() -> VrResult<tiers::Full> + Send + 'static,
) -> VrResult<CompiledModule> {
    verify(m)?;
    let together = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
    // Ok: started now; Err: to start once the quick tier is made (one core).
    let background = if together { Ok(tiers::start(mode, compile_full)) } else { Err(compile_full) };
    // On an error the background compile ends on its own (the process waits for it at
    // exit); its result is dropped with it.
    let began = std::time::Instant::now();
    let mut quick = compile_verified(m, CpuOptions { quick: true, ..opts }, None)?;
    let tier = match background {
        Ok(started) => started,
        Err(compile_full) => tiers::start(mode, compile_full),
    };
    tier.quick_compiled_in(began.elapsed());
    quick.tier_up = Some(tier);
    Ok(quick)
}

fn compile_inner(m: &Module, opts: CpuOptions, offload: Option<Offload>) -> VrResult<CompiledModule> {
    verify(m)?;
    compile_verified(m, opts, offload)
}

/// Verify `m`, timed as the compile's `verify` phase.
fn verify(m: &Module) -> VrResult<()> {
    let t = std::time::Instant::now();
    crate::vrir::verify::verify_module(m)?;
    crate::compile_phases::record("verify", t);
    Ok(())
}

fn compile_verified(m: &Module, opts: CpuOptions, offload: Option<Offload>) -> VrResult<CompiledModule> {
    let plan = offload.as_ref().map(|o| o.plan.as_ref());
    let jit = jit::compile(m, opts, plan)?;
    let t = std::time::Instant::now();
    let (module, recursive) = (m.clone(), callgraph::is_recursive(m));
    crate::compile_phases::record("clone+callgraph", t);
    Ok(CompiledModule {
        module,
        jit,
        recursive,
        alloc_limit: abi::DEFAULT_ALLOC_LIMIT,
        threads: threads_for(&opts),
        noalias_calls: Default::default(),
        offload: offload.map(|o| {
            let actions = Arc::new(o.plan.actions());
            (o, actions)
        }),
        tier_up: None,
    })
}

/// Threads a module compiled with `opts` starts with: 1 for serial code.
fn threads_for(opts: &CpuOptions) -> usize {
    if opts.parallel {
        opts.threads.filter(|n| *n > 0).unwrap_or_else(parallel::default_threads)
    } else {
        1
    }
}

/// LLVM IR of `m` before optimization and without host-specific attributes.
pub fn emit_llvm_ir(m: &Module) -> VrResult<String> {
    crate::vrir::verify::verify_module(m)?;
    jit::emit_ir(m)
}

impl CompiledModule {
    /// Let each call allocate at most `bytes` (8 GiB by default); a call that asks for
    /// more fails with a run-time error instead of exhausting memory.
    pub fn set_alloc_limit(&mut self, bytes: u64) {
        self.alloc_limit = bytes;
    }

    /// Let parallel loops use `n` threads (at least 1; 1 runs them serially). Only a
    /// module compiled with `CpuOptions::parallel` has parallel loops.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    /// Threads parallel loops use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The offload engine's report (per GPU section: where it ran, what moved, how long
    /// it took), empty for a module compiled without one.
    pub fn offload_report(&self) -> String {
        self.offload
            .as_ref()
            .map_or(String::new(), |(o, _)| o.engine.report())
    }

    /// How many calls so far ran a function's no-alias version (arguments found not
    /// to overlap at entry).
    pub fn noalias_calls(&self) -> u64 {
        self.noalias_calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Which code calls run, for `explain`: `None` for a module compiled at one tier,
    /// else a line saying whether the full tier has replaced the quick one.
    pub fn tier_report(&self) -> Option<String> {
        self.tier_up.as_ref().map(|t| t.report())
    }

    /// What the background compile of a module compiled quick first did with the
    /// on-disk cache (written, or not and why), once it has ended; None before, and for
    /// a module compiled at one tier.
    pub fn tier_disk_report(&self) -> Option<String> {
        self.tier_up.as_ref().and_then(|t| t.disk())
    }

    /// Wait at most `timeout` for the full tier of a module compiled quick first;
    /// whether calls now run it (always true for a module compiled at one tier).
    pub fn wait_for_full_tier(&self, timeout: std::time::Duration) -> bool {
        self.tier_up.as_ref().is_none_or(|t| t.wait(timeout))
    }

    /// The entry of `func` a call starts now: the full tier once it is ready, else the
    /// code compiled first (a call keeps the entry it starts with).
    fn entry(&self, func: &str) -> Option<jit::EntryFn> {
        let full = self.tier_up.as_ref().and_then(|t| t.entry(func));
        full.or_else(|| self.jit.entry(func))
    }

    /// [`Self::entry`] for a call whose arguments have `sizes` (asked only while a
    /// background compile under `tiers=auto` may make the call wait for it).
    fn entry_for(&self, func: &str, sizes: impl FnOnce() -> Vec<tiers::ArgSize>) -> Option<jit::EntryFn> {
        if let Some(t) = &self.tier_up {
            t.before_call(&self.module, func, sizes);
        }
        self.entry(func)
    }

    /// The machine code alone (for the tier that replaces a quick module's).
    pub(crate) fn into_jit(self) -> jit::JitModule {
        self.jit
    }

    /// A new engine session for one call, when the module has an engine.
    pub(crate) fn offload_call(&self) -> Option<Box<offload::OffloadCall>> {
        self.offload.as_ref().map(|(o, actions)| {
            Box::new(offload::OffloadCall {
                session: o.engine.session(),
                actions: actions.clone(),
                error: None,
            })
        })
    }

    /// Call `func` with `args`; arrays are passed by reference (writes are visible in the
    /// caller's arrays). Errors come back as the interpreter reports them.
    pub fn call(&self, func: &str, args: Vec<Value>) -> VrResult<Vec<Value>> {
        let f = self.module.function(func).ok_or_else(|| {
            VrError::new(
                ErrorKind::InvalidArgument,
                format!("no function `{func}` in module `{}`", self.module.name),
            )
        })?;
        let sizes = || {
            args.iter()
                .map(|a| match a {
                    Value::Array(a) => tiers::ArgSize::Array(a.dims.iter().map(|d| *d as f64).collect()),
                    Value::Scalar(s) => tiers::ArgSize::Scalar(s.as_f64()),
                    _ => tiers::ArgSize::Scalar(None),
                })
                .collect()
        };
        let entry = self.entry_for(func, sizes).ok_or_else(|| {
            VrError::new(
                ErrorKind::Internal,
                format!("cpu backend: `{func}` was not compiled"),
            )
        })?;
        let frame = marshal::CallFrame::new(f, args)?;
        let mut ctx = CallCtx::default();
        ctx.arena.limit = self.alloc_limit;
        ctx.threads = self.threads;
        ctx.offload = self.offload_call();
        // SAFETY: the frame's pointers match f's signature (checked by CallFrame::new) and
        // stay valid for the call; generated code does not unwind.
        let (args_p, results_p) = (frame.arg_ptrs.as_ptr(), frame.result_ptrs.as_ptr());
        let ctx_p: *mut CallCtx = &mut ctx;
        let run = move || unsafe { entry(ctx_p, args_p, results_p) };
        let status = if self.recursive {
            on_large_stack(run)?
        } else {
            run()
        };
        self.noalias_calls
            .fetch_add(ctx.noalias_entries, std::sync::atomic::Ordering::Relaxed);
        // An offloaded task's error not read yet came first in the serial order.
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
        frame.results(&ctx.arena)
    }
}
