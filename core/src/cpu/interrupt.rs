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
//! is kept anywhere, so the next request compiles from the start. LLVM itself has no
//! safe point inside its optimization pipeline or its machine code generator, which for a
//! long function are most of a compile (85% for 300 loop nests): they run on a thread of
//! their own ([`off_thread`]) while the compiling thread watches the flag, so an
//! interrupt stops the compile within milliseconds and the abandoned LLVM work finishes
//! in the background, keeping nothing. A compile that passed its last check finishes and
//! is cached, and only the next call then sees the flag.

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

/// Something handed whole from one thread to another: `T` (LLVM's context, module and
/// target machine, which the C++ side lets any one thread use at a time) is used by the
/// thread that holds the wrapper only, so moving it is sound.
pub(crate) struct HandOver<T>(pub T);

// SAFETY: see the type's doc; the sender stops touching `T` when it sends it.
unsafe impl<T> Send for HandOver<T> {}

impl<T> HandOver<T> {
    /// What was handed over (a method, so that a closure takes the wrapper whole and not
    /// its fields one by one).
    pub(crate) fn into_inner(self) -> T {
        self.0
    }
}

/// A count of work running on threads nobody joins, and a way to wait until it is
/// zero (the abandoned LLVM phases below; the background compiles of `cpu::tiers`).
pub(crate) struct Outstanding {
    count: std::sync::Mutex<usize>,
    done: std::sync::Condvar,
}

impl Outstanding {
    pub(crate) const fn new() -> Outstanding {
        Outstanding {
            count: std::sync::Mutex::new(0),
            done: std::sync::Condvar::new(),
        }
    }

    /// One more piece of work, counted until the guard drops.
    pub(crate) fn enter(&'static self) -> OutstandingGuard {
        self.add();
        OutstandingGuard(self)
    }

    fn add(&self) {
        *self.count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
    }

    fn finish(&self) {
        *self.count.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        self.done.notify_all();
    }

    /// Wait at most `timeout` for the count to reach zero.
    pub(crate) fn wait_zero(&self, timeout: std::time::Duration) {
        let deadline = std::time::Instant::now() + timeout;
        let mut n = self.count.lock().unwrap_or_else(|p| p.into_inner());
        while *n > 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            n = self.done.wait_timeout(n, left).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

/// What [`Outstanding::enter`] counted; dropping it ends the count.
pub(crate) struct OutstandingGuard(&'static Outstanding);

impl Drop for OutstandingGuard {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// LLVM work still running on threads nobody waits for: abandoned phases (see
/// [`off_thread`]) and background compiles ([`background_work`]); the process waits for
/// them at exit, before LLVM's own static destructors run under their feet.
static ABANDONED: Outstanding = Outstanding::new();

extern "C" fn wait_for_abandoned_at_exit() {
    ABANDONED.wait_zero(std::time::Duration::from_secs(30));
}

/// Register the at-exit wait for LLVM work still running on other threads (once).
fn wait_at_exit() {
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(wait_at_exit_after_llvm);
}

/// LLVM work that runs on a thread nobody waits for (a background compile,
/// `cpu::tiers`): while the guard lives, the process waits for it at exit, as for
/// abandoned phases.
pub(crate) fn background_work() -> OutstandingGuard {
    wait_at_exit();
    ABANDONED.enter()
}

/// Register the at-exit wait once more, after LLVM work that may have made static
/// objects of LLVM's own for the first time: exit handlers run in the reverse order of
/// their registration, so the wait must come after the registration of their
/// destructors. (A compile still running at exit that is the first to make one is not
/// covered; hosts wait for background compiles before they exit: `vr_context_destroy`,
/// R's exit hook.)
pub(crate) fn wait_at_exit_after_llvm() {
    // SAFETY: registers a plain extern "C" function without arguments.
    unsafe { libc::atexit(wait_for_abandoned_at_exit) };
}

/// Run `work`, one of LLVM's phases that has no safe point inside (its optimization
/// pipeline, its machine code generator), on a thread of its own while this thread
/// watches the interrupt flag: an interrupt then stops the compile within milliseconds
/// with `ErrorKind::Interrupted` (naming `phase`) instead of after the phase, which for
/// a long function is most of the compile. The abandoned work finishes in the
/// background and drops what it made (`T` owns it all: nothing of it is cached), and the
/// process waits for it at exit. Phase times it records come back to this thread's list.
/// A panic inside `work` becomes an internal error here.
pub(crate) fn off_thread<T: Send + 'static>(
    phase: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> crate::runtime::error::VrResult<T> {
    use crate::runtime::error::{ErrorKind, VrError};
    use std::sync::{Arc, Condvar, Mutex};
    type Phases = Vec<(&'static str, std::time::Duration)>;
    enum Job<T> {
        Running,
        Done(T, Phases),
        Panicked,
        Abandoned,
    }
    // `VR_LLVM_THREAD=off`: on the calling thread, as before (to measure what the thread
    // costs; an interrupt then waits for the phase).
    static SAME_THREAD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *SAME_THREAD.get_or_init(|| std::env::var("VR_LLVM_THREAD").is_ok_and(|v| v == "off")) {
        return Ok(work());
    }
    let job = Arc::new((Mutex::new(Job::Running), Condvar::new()));
    let theirs = Arc::clone(&job);
    let spawned = std::thread::Builder::new()
        .name("vr-llvm".into())
        // LLVM recurses over deep expressions: the main thread's 8 MiB, as before.
        .stack_size(8 << 20)
        .spawn(move || {
            let value = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let phases = crate::compile_phases::take();
            let (slot, done) = &*theirs;
            let mut state = slot.lock().unwrap_or_else(|p| p.into_inner());
            if matches!(*state, Job::Abandoned) {
                drop(state);
                drop(value);
                ABANDONED.finish();
                return;
            }
            *state = match value {
                Ok(v) => Job::Done(v, phases),
                Err(_) => Job::Panicked,
            };
            done.notify_all();
        });
    if let Err(e) = spawned {
        return Err(VrError::new(
            ErrorKind::Internal,
            format!("cpu backend: no thread for {phase}: {e}"),
        ));
    }
    let (slot, done) = &*job;
    let mut state = slot.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        match std::mem::replace(&mut *state, Job::Running) {
            Job::Done(value, phases) => {
                crate::compile_phases::extend(phases);
                return Ok(value);
            }
            Job::Panicked => {
                return Err(VrError::new(
                    ErrorKind::Internal,
                    format!("cpu backend: {phase} stopped without a result (a panic on its thread)"),
                ))
            }
            Job::Running | Job::Abandoned => {}
        }
        if pending() {
            wait_at_exit();
            ABANDONED.add();
            *state = Job::Abandoned;
            return Err(VrError::new(
                ErrorKind::Interrupted,
                format!("interrupted: the host asked the compile to stop (user interrupt), during {phase}; nothing of it was cached"),
            ));
        }
        state = done
            .wait_timeout(state, std::time::Duration::from_millis(2))
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}
