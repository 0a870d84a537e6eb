//! Where a compile's time goes: each optimizer pass (`opt::optimize`, under the pass's
//! name) and each phase of `cpu::compile_with` (verify, code generation, LLVM's IR
//! verifier, the optimization pipeline, MCJIT's machine code) adds its wall time to a per-thread list that [`take`] empties. Always on (one `Instant::now`
//! per phase, nanoseconds against milliseconds of compile); read by
//! `vr-bench-compile` (bench/src/bin) for the compile-latency breakdown in
//! bench/RESULTS.md, never printed by the library.

use std::cell::RefCell;
use std::time::{Duration, Instant};

thread_local! {
    static PHASES: RefCell<Vec<(&'static str, Duration)>> = const { RefCell::new(Vec::new()) };
}

/// Add the time since `start` to `phase` (phases may repeat: times are listed in order).
pub(crate) fn record(phase: &'static str, start: Instant) {
    let d = start.elapsed();
    PHASES.with(|p| p.borrow_mut().push((phase, d)));
}

/// The phases recorded on this thread since the last call, in order.
pub fn take() -> Vec<(&'static str, Duration)> {
    PHASES.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// Add phases recorded on another thread (an LLVM phase run off this one), in order.
pub(crate) fn extend(phases: Vec<(&'static str, Duration)>) {
    PHASES.with(|p| p.borrow_mut().extend(phases));
}
