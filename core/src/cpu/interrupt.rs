//! User interrupts of running compiled code (Ctrl-C in R, a host's cancel button).
//!
//! Compiled code cannot be stopped from outside safely, so it asks: at the back edge of
//! every loop that may run long (a `while`, and a `for` whose body holds another loop;
//! `codegen::interrupt` says why those) it reads an `int32` flag, and when the flag is
//! non-zero the call stops with `ErrorKind::Interrupted` after the usual cleanup, as any
//! run-time error does. The flag is the host's choice ([`set_source`]): R points it at
//! its own `R_interrupts_pending`, which R's SIGINT handler sets, so Ctrl-C stops a long
//! loop with nothing running on another thread; other hosts use the library's own flag
//! through [`request`] (async-signal-safe: one atomic store) and [`clear`].
//!
//! The flag is process-wide, like a signal: an interrupt stops every compiled call that
//! is running at the time.
//!
//! Compiles read the same flag ([`check_compile`]): at each boundary between phases (the
//! front end, every optimizer pass, the code generator between functions, before and
//! after LLVM's passes, before anything is written to the on-disk or in-process cache)
//! a set flag stops the compile with `ErrorKind::Interrupted`, and nothing of that compile
//! is kept anywhere, so the next request compiles from the start. LLVM itself is never
//! interrupted (it has no safe point to stop at), so the longest wait is one LLVM phase
//! of the module; a compile that passed its last check finishes and is cached, and only
//! the next call then sees the flag.

use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};

/// The library's own flag, the source until a host names another.
static OWN_FLAG: AtomicI32 = AtomicI32::new(0);

/// Where compiled code reads the flag: the address of an `int32`. Generated code loads
/// this pointer, then the `int32` it points to (a volatile load), at each poll.
#[no_mangle]
pub static vr_cpu_interrupt_source: AtomicPtr<i32> = AtomicPtr::new(OWN_FLAG.as_ptr());

/// The symbol generated code reads (see `codegen::interrupt`).
pub const SOURCE_SYMBOL: &str = "vr_cpu_interrupt_source";

/// Address of [`vr_cpu_interrupt_source`], for the JIT's symbol table.
pub(crate) fn source_address() -> usize {
    &vr_cpu_interrupt_source as *const AtomicPtr<i32> as usize
}

/// Ask every running call to stop (sets the library's own flag).
pub fn request() {
    OWN_FLAG.store(1, Ordering::SeqCst);
}

/// Forget a request, so later calls run (the library's own flag).
pub fn clear() {
    OWN_FLAG.store(0, Ordering::SeqCst);
}

/// Whether the library's own flag is set.
pub fn requested() -> bool {
    OWN_FLAG.load(Ordering::SeqCst) != 0
}

/// Whether the flag compiled code reads (the host's or the library's own) is set now.
pub fn pending() -> bool {
    let p = vr_cpu_interrupt_source.load(Ordering::SeqCst);
    // SAFETY: `set_source`'s contract keeps the host's flag readable; the own flag is a
    // static. Volatile: the host (R's signal handler) writes it behind our back.
    unsafe { std::ptr::read_volatile(p) != 0 }
}

/// A compile's safe point: `Err(Interrupted)` when the flag is set, naming `phase` (what
/// would have run next). Cheap (two loads), so it may be called between any two phases;
/// never from inside LLVM.
pub fn check_compile(phase: &str) -> crate::runtime::error::VrResult<()> {
    if !pending() {
        return Ok(());
    }
    Err(crate::runtime::error::VrError::new(
        crate::runtime::error::ErrorKind::Interrupted,
        format!("interrupted: the host asked the compile to stop (user interrupt), before {phase}; nothing of it was cached"),
    ))
}

/// Read interrupts from the host's `int32` at `flag` (non-zero: stop), or from the
/// library's own flag when `flag` is null.
///
/// # Safety
/// `flag` stays valid (readable from any thread) for as long as compiled code may run.
pub unsafe fn set_source(flag: *const i32) {
    let p = if flag.is_null() { OWN_FLAG.as_ptr() } else { flag as *mut i32 };
    vr_cpu_interrupt_source.store(p, Ordering::SeqCst);
}
