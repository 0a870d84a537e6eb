//! Ctrl-C in R stops compiled code. R's SIGINT handler only sets `R_interrupts_pending`
//! (R acts on it at its next check); compiled loops poll that same flag (the C API's
//! `vr_set_interrupt_flag`), so a long loop on R's main thread stops with
//! `VR_INTERRUPTED` and nothing runs on another thread. The entry point then clears the
//! flag and the R code signals R's own `interrupt` condition, as Ctrl-C in R code does.

extern "C" {
    /// Exported by libR (declared in R_ext/GraphicsDevice.h).
    static mut R_interrupts_pending: i32;
}

/// The address of R's interrupt flag.
pub fn r_flag() -> *const i32 {
    // Only the address is taken (no read): libR's global lives as long as the process.
    std::ptr::addr_of!(R_interrupts_pending)
}

/// Forget the pending interrupt: the R side signals it as a condition instead, so R
/// must not act on it a second time. Called on R's main thread only.
pub fn clear_pending() {
    // SAFETY: R's main thread (the only writer besides R's signal handler, whose store
    // of 1 we consume here as R's own handler would).
    unsafe { std::ptr::addr_of_mut!(R_interrupts_pending).write_volatile(0) };
}
