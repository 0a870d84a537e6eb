//! The parallel-loop runtime of the `cpu-par` backend: rayon thread pools (one per
//! thread count, built once) and [`vr_cpu_parfor`], the helper that generated code calls
//! to run an outlined parfor body over its iteration space.
//!
//! How a parfor runs (the code generator's side is `codegen/parfor.rs`): the body is an
//! LLVM function `i32 body(ptr env, ptr ctx, i64 lo, i64 hi, i32 last)` that runs the
//! iterations `lo..hi` of the flattened domain (first variable outermost, as the serial
//! order). The iterations are cut into chunks (about eight per thread, for balance when
//! iterations differ in cost, as in a Julia set) that rayon's workers take.
//!
//! Thread safety of the per-call [`CallCtx`]: each chunk runs with a context of its own
//! (call depth copied from the caller, its own error fields), so generated code never
//! writes memory another worker uses. Arrays created by iterations go to the call's arena,
//! moved for the loop's duration into a `Mutex` that every worker's context points to
//! (`CallCtx::shared_arena`); a nested parfor inside a worker uses the same one.
//!
//! Errors: chunks are contiguous runs of the serial order, and a chunk stops at its first
//! error. A failing chunk lowers a shared "first failed chunk" mark; chunks after the mark
//! are skipped when they come up (a running chunk finishes its own iterations first),
//! chunks before it still run. The error of the failed chunk of lowest index is copied
//! into the caller's context: exactly one error is reported, with every field the
//! interpreter gives, and it is the error the serial loop would meet first (the
//! semantics allow any one of them; this choice makes parallel runs deterministic and
//! lets element-wise operators, which must report the first failing element, share it). Generated code never unwinds and the Rust helpers it calls are
//! `extern "C"` (a panic there aborts instead of unwinding through JIT frames); the whole
//! helper runs under `catch_unwind`, so a failure of the pool itself becomes an
//! `Internal` error, never an unwinding panic into generated code.
//!
//! Nested parfors: a parfor inside a parallel one calls this helper again from the
//! worker; rayon runs the inner chunks on the same pool (work stealing), so nested loops
//! also spread over the cores and never oversubscribe them.

use super::abi::{Arena, CallCtx, ErrorCode};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The outlined body of a parfor: runs iterations `lo..hi`; `last` is non-zero for the
/// chunk that holds the last iteration (it stores the loop-private variables back).
pub type BodyFn = unsafe extern "C" fn(*const u8, *mut CallCtx, u64, u64, i32) -> i32;

/// Chunks per thread: enough for balance, few enough that the per-chunk cost (a context,
/// a flag check) stays negligible.
const CHUNKS_PER_THREAD: u64 = 8;

/// Worker stack size: room for the recursion limit, as the caller's thread has.
const WORKER_STACK_BYTES: usize = super::big_stack::STACK_BYTES;

/// The thread count `cpu-par` uses when the caller does not set one: `VR_THREADS` when
/// it is a positive integer, else every core.
pub fn default_threads() -> usize {
    std::env::var("VR_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
}

/// The pool of `threads` workers, built on first use and kept for the process.
fn pool(threads: usize) -> Result<&'static rayon::ThreadPool, String> {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static rayon::ThreadPool>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(p) = pools.get(&threads) {
        return Ok(p);
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(WORKER_STACK_BYTES)
        .thread_name(|k| format!("vr-par-{k}"))
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let leaked: &'static rayon::ThreadPool = Box::leak(Box::new(built));
    pools.insert(threads, leaked);
    Ok(leaked)
}

/// Raw pointers shared with the workers. Sound because the caller of [`run_parallel`]
/// blocks until every worker is done with them.
#[derive(Clone, Copy)]
struct Shared<T>(T);
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

/// Record a failure of the runtime itself in `ctx` (status 1 follows).
fn record_failure(ctx: &mut CallCtx, msg: String) {
    if ctx.code == 0 {
        ctx.code = ErrorCode::ParallelFailure as i32;
        ctx.line = -1;
        ctx.arena.failure = Some(msg);
    }
}

/// Copy the error recorded in `from` (a worker's context) into `to`.
fn copy_error(to: &mut CallCtx, from: &CallCtx) {
    to.code = from.code;
    to.line = from.line;
    to.index = from.index;
    to.bound = from.bound;
    to.dim = from.dim;
    to.function = from.function;
    to.function_len = from.function_len;
    to.variable = from.variable;
    to.variable_len = from.variable_len;
    to.note = from.note;
    to.note_len = from.note_len;
    to.note_values = from.note_values;
    to.arena.failure = from.arena.failure.clone();
}

/// Called by generated code to run a parfor: `counts` holds the iteration count of each
/// of the domain's `ndims` ranges (each at least 1). Returns 0, or 1 with one error
/// recorded in `ctx`.
///
/// # Safety
/// `ctx` is the running call's context; `body` and `env` come from the code generator
/// and stay valid during the call; `counts` points to `ndims` values.
pub unsafe extern "C" fn vr_cpu_parfor(
    ctx: *mut CallCtx,
    body: BodyFn,
    env: *const u8,
    counts: *const i64,
    ndims: i64,
) -> i32 {
    let Some(ctx) = ctx.as_mut() else { return 1 };
    let counts = std::slice::from_raw_parts(counts, ndims.max(0) as usize);
    // A count of 0 is a range of 2^64 points (its last index + 1 wrapped).
    let total = counts.iter().try_fold(1u64, |acc, c| {
        let c = *c as u64;
        if c == 0 {
            None
        } else {
            acc.checked_mul(c)
        }
    });
    let Some(total) = total else {
        record_failure(ctx, "a parfor domain of more than 2^64 points".into());
        return 1;
    };
    if ctx.threads <= 1 || total <= 1 {
        return body(env, ctx, 0, total, 1);
    }
    let ctx_p = Shared(ctx as *mut CallCtx);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let ctx = ctx_p;
        run_parallel(&mut *ctx.0, body, env, total)
    }));
    match run {
        Ok(status) => status,
        Err(_) => {
            record_failure(ctx, "a worker thread panicked".into());
            1
        }
    }
}

/// Called by generated code for a parfor that the optimizer chose to run serially
/// (`(if (>= COUNT MIN) (parfor L) (for L))`, `opt::elementwise::parallel_when_large`):
/// the outlined body of L over its whole domain on the calling thread, as
/// [`vr_cpu_parfor`] runs it with one thread. One outlined body serves both branches, so
/// the loop is compiled once, not twice (compile latency, issue 18; `codegen/parfor.rs`).
///
/// # Safety
/// As [`vr_cpu_parfor`].
pub unsafe extern "C" fn vr_cpu_parfor_serial(
    ctx: *mut CallCtx,
    body: BodyFn,
    env: *const u8,
    counts: *const i64,
    ndims: i64,
) -> i32 {
    let Some(ctx) = ctx.as_mut() else { return 1 };
    let counts = std::slice::from_raw_parts(counts, ndims.max(0) as usize);
    let total = counts.iter().try_fold(1u64, |acc, c| {
        let c = *c as u64;
        if c == 0 {
            None
        } else {
            acc.checked_mul(c)
        }
    });
    let Some(total) = total else {
        record_failure(ctx, "a parfor domain of more than 2^64 points".into());
        return 1;
    };
    body(env, ctx, 0, total, 1)
}

/// Spread `0..total` over the pool in chunks; see the module doc.
unsafe fn run_parallel(ctx: &mut CallCtx, body: BodyFn, env: *const u8, total: u64) -> i32 {
    let threads = ctx.threads;
    // No pool (threads refused by the system): the serial order is one of the orders a
    // parfor allows, and the element-wise loops give the same result in any order.
    let Ok(pool) = pool(threads) else {
        return body(env, ctx, 0, total, 1);
    };
    let chunk = (total / (threads as u64 * CHUNKS_PER_THREAD)).max(1);
    let chunks = total.div_ceil(chunk);
    // The outermost parallel loop of the call moves the call's arena behind a lock for
    // its workers; a nested one (inside a worker) already has the shared one.
    let owned = ctx
        .shared_arena
        .is_null()
        .then(|| Mutex::new(std::mem::take(&mut ctx.arena)));
    let shared: *const Mutex<Arena> = match &owned {
        Some(m) => m,
        None => ctx.shared_arena,
    };
    // Chunks are contiguous runs of the serial order and each stops at its first error,
    // so the failed chunk of lowest index holds the error the serial loop meets first.
    // Chunks after a failed one are skipped; chunks before it still run.
    let first_failed = AtomicU64::new(u64::MAX);
    let first_error: Mutex<Option<(u64, Shared<Box<CallCtx>>)>> = Mutex::new(None);
    let depth = ctx.depth;
    let (shared_p, env_p) = (Shared(shared), Shared(env));
    pool.install(|| {
        (0..chunks).into_par_iter().for_each(|c| {
            let (shared_p, env_p) = (shared_p, env_p);
            if c > first_failed.load(Ordering::Relaxed) {
                return;
            }
            let lo = c * chunk;
            let hi = (lo + chunk).min(total);
            let mut worker = CallCtx {
                depth,
                threads,
                shared_arena: shared_p.0,
                ..CallCtx::default()
            };
            let status = body(env_p.0, &mut worker, lo, hi, (hi == total) as i32);
            // Helpers that allocate from the context's own arena (not through the
            // shared one) leave blocks here: keep them until the end of the call.
            let mine = worker.arena.take_blocks();
            if !mine.is_empty() {
                let mut arena = (*shared_p.0).lock().unwrap_or_else(|p| p.into_inner());
                arena.absorb(mine);
            }
            if status != 0 {
                first_failed.fetch_min(c, Ordering::Relaxed);
                let mut first = first_error.lock().unwrap_or_else(|p| p.into_inner());
                if first.as_ref().is_none_or(|(k, _)| c < *k) {
                    *first = Some((c, Shared(Box::new(worker))));
                }
            }
        })
    });
    if let Some(m) = owned {
        ctx.arena = m.into_inner().unwrap_or_else(|p| p.into_inner());
    }
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, worker)) => {
            copy_error(ctx, &worker.0);
            1
        }
        None => 0,
    }
}
