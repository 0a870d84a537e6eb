//! Random draws made by generated code: the Rust helper `vr_cpu_random`, mapped into the
//! JIT by address like the allocator. It draws from the call's host generator when the
//! caller gave one (`CallCtx::random`: the C API's `random` hook), else from the
//! process's built-in stream (`runtime::rng`, R's default generator bit for bit), so
//! compiled code and the interpreter consume the same stream in the same order.

use super::abi::CallCtx;
use crate::runtime::rng::{self, Draw};

/// Draw one number of `kind` (a [`Draw`] code; `arg` is `random_index`'s `dn`) into
/// `out`. Returns 0, or 1 after leaving the reason in the arena's `failure` (generated
/// code then records `ErrorCode::RandomFailed` with its function and line).
///
/// # Safety
/// `ctx` is the call's [`CallCtx`] and `out` points to an f64 (generated code passes a
/// stack slot).
pub unsafe extern "C" fn vr_cpu_random(
    ctx: *mut CallCtx,
    kind: i32,
    arg: f64,
    out: *mut f64,
) -> i32 {
    let Some(ctx) = ctx.as_mut() else { return 1 };
    let result = match Draw::from_code(kind) {
        Some(k) => rng::draw(ctx.random.as_ref(), k, arg),
        None => Err(format!("cpu backend: unknown random draw code {kind}")),
    };
    match result {
        Ok(x) => {
            *out = x;
            0
        }
        Err(msg) => {
            ctx.arena.failure = Some(msg);
            1
        }
    }
}
