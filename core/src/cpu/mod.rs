//! The LLVM CPU backend: VRIR compiled to native code through LLVM 19 (inkwell) and run
//! in process by MCJIT. Only this module touches inkwell, so an LLVM upgrade touches one
//! place.
//!
//! - `abi`: the repr(C) structures shared with generated code and the run-time helpers.
//! - `codegen`: VRIR -> LLVM IR (`i32 f(ctx, outs..., params...)` per function, plus an
//!   entry wrapper; arrays it creates come from the call's arena; errors are recorded in `ctx` and propagated as a status, never by
//!   unwinding).
//! - `jit`: host CPU attributes, the `default<O2>` pipeline, MCJIT.
//! - `marshal`: run-time values <-> entry-wrapper arguments and results.
//! - `libm`, `callgraph`: math symbols mapped by address; recursion detection.
//!
//! First increment: scalar code of bool/i32/i64/f32/f64, calls (recursion, several
//! results), control flow, loops over literal ranges and domains (parfor runs serially),
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
//! Still reported as `ErrorKind::Unsupported` at compile time: slice assignment,
//! gathers, map, matmul/transpose, complex numbers, tuples as
//! values and atomics. Run-time errors equal the interpreter's, field for field.

// VrError is the crate-wide error type (128 bytes by design: it carries every location
// field); boxing it only here would make the cpu backend's API differ from the others'.
#![allow(clippy::result_large_err)]

pub mod abi;
mod callgraph;
mod codegen;
mod jit;
mod libm;
mod marshal;
mod object;
mod raw;

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::ast::Module;
use abi::CallCtx;
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
}

/// Stack for calls into recursive modules: room for `abi::MAX_CALL_DEPTH` frames
/// (pages are committed only when touched).
const RECURSIVE_STACK_BYTES: usize = 1 << 30;

/// Run `f` on a fresh thread with a large stack, waiting for it.
fn on_large_stack(f: impl FnOnce() -> i32) -> VrResult<i32> {
    struct AssertSend<T>(T);
    // SAFETY: the calling thread is blocked in `join` for the whole life of the worker,
    // so whatever `f` borrows (the call frame, raw pointers) is used by one thread at a time.
    unsafe impl<T> Send for AssertSend<T> {}
    let job = AssertSend(f);
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("vr-cpu".into())
            .stack_size(RECURSIVE_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let job = job;
                (job.0)()
            });
        match worker {
            Ok(h) => h.join().map_err(|_| {
                VrError::new(ErrorKind::Internal, "cpu backend: call thread panicked")
            }),
            Err(_) => Err(VrError::new(
                ErrorKind::Internal,
                "cpu backend: cannot start the call thread",
            )),
        }
    })
}

/// Compile every function of `m` (which must have passed the verifier).
pub fn compile(m: &Module) -> VrResult<CompiledModule> {
    compile_with(m, 2)
}

/// [`compile`] with LLVM's `default<O{opt_level}>` pipeline (0 to 3).
pub fn compile_with(m: &Module, opt_level: u8) -> VrResult<CompiledModule> {
    crate::vrir::verify::verify_module(m)?;
    let jit = jit::compile_with(m, opt_level)?;
    Ok(CompiledModule {
        module: m.clone(),
        jit,
        recursive: callgraph::is_recursive(m),
        alloc_limit: abi::DEFAULT_ALLOC_LIMIT,
    })
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

    /// Call `func` with `args`; arrays are passed by reference (writes are visible in the
    /// caller's arrays). Errors come back as the interpreter reports them.
    pub fn call(&self, func: &str, args: Vec<Value>) -> VrResult<Vec<Value>> {
        let f = self.module.function(func).ok_or_else(|| {
            VrError::new(
                ErrorKind::InvalidArgument,
                format!("no function `{func}` in module `{}`", self.module.name),
            )
        })?;
        let entry = self.jit.entry(func).ok_or_else(|| {
            VrError::new(
                ErrorKind::Internal,
                format!("cpu backend: `{func}` was not compiled"),
            )
        })?;
        let frame = marshal::CallFrame::new(f, args)?;
        let mut ctx = CallCtx::default();
        ctx.arena.limit = self.alloc_limit;
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
