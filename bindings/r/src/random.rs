//! Random numbers from R's own generator: the C API's `random` hook calls R's
//! `unif_rand`, `norm_rand`, `exp_rand` and `R_unif_index`, so compiled `runif`,
//! `rnorm`, `rexp` and `sample` consume R's stream exactly as R's C code does and
//! `.Random.seed` afterwards is R's. Because these are R's own functions, every
//! `RNGkind()` (kind, normal kind, sample kind, user-supplied generators included) gives
//! R's numbers; no kind needs a fallback.
//!
//! R's protocol (Writing R Extensions, "Random number generation"): call `GetRNGstate()`
//! before drawing and `PutRNGstate()` after. Here `GetRNGstate` runs at the first draw of
//! a compiled call (a call that draws nothing touches nothing) and `PutRNGstate` once
//! when the call returns, not per draw. When the call fails with an `unsupported` error
//! the state is not written back: the R package then runs the function in R, whose
//! `GetRNGstate` reads `.Random.seed` as it was before the compiled call, so R's run draws
//! the same numbers as if the compiled attempt had never happened. Any other error
//! writes it back, as R would have saved the draws made before its error.
//!
//! Draws happen on R's main thread only: the verifier keeps them out of parallel code,
//! and the hook refuses on any other thread (a thread-local marks a compiled call on
//! R's thread).

use extendr_api::catch_r_error;
use extendr_ffi::{GetRNGstate, PutRNGstate, R_NilValue, R_unif_index};
use std::cell::Cell;
use std::ffi::c_void;
use velociraptor_capi::{VR_RANDOM_EXP, VR_RANDOM_INDEX, VR_RANDOM_NORM, VR_RANDOM_UNIF};

extern "C" {
    // R_ext/Random.h, exported by libR.
    fn unif_rand() -> f64;
    fn norm_rand() -> f64;
    fn exp_rand() -> f64;
}

/// Where this thread stands: not in a compiled call (any thread but R's during one),
/// in a call that has not drawn yet, or in one whose draws began (`GetRNGstate` ran).
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Outside,
    Ready,
    Drawing,
}

thread_local! {
    static STATE: Cell<State> = const { Cell::new(State::Outside) };
}

/// Before a compiled call, on R's main thread.
pub fn before_call() {
    STATE.with(|s| s.set(State::Ready));
}

/// After it: write R's generator state back to `.Random.seed` if the call drew, unless
/// `keep` is false (the call will run again in R). Err: R failed to save it (its
/// message is R's, e.g. out of memory).
pub fn after_call(keep: bool) -> Result<(), String> {
    let drew = STATE.with(|s| s.replace(State::Outside)) == State::Drawing;
    if drew && keep {
        // SAFETY: R's main thread; an R error (allocation) is caught, never unwound
        // through Rust frames.
        catch_r_error(|| unsafe {
            PutRNGstate();
            R_NilValue
        })
        .map_err(|_| "R could not save .Random.seed after a compiled call".to_string())?;
    }
    Ok(())
}

/// The `random` hook: one draw of R's generator.
///
/// # Safety
/// Called by the C API during a compiled call (`out` points to a double).
pub unsafe extern "C" fn draw(_user: *mut c_void, kind: i32, arg: f64, out: *mut f64) -> i32 {
    match STATE.with(|s| s.get()) {
        // Not R's main thread in a compiled call: never touch R.
        State::Outside => return 20,
        State::Ready => {
            // `GetRNGstate` raises an R error on a corrupt `.Random.seed`: caught, the
            // draw is refused, and the function runs in R, which reports it.
            if catch_r_error(|| {
                GetRNGstate();
                R_NilValue
            })
            .is_err()
            {
                return 21;
            }
            STATE.with(|s| s.set(State::Drawing));
        }
        State::Drawing => {}
    }
    let Some(out) = out.as_mut() else { return 22 };
    *out = match kind {
        VR_RANDOM_UNIF => unif_rand(),
        VR_RANDOM_NORM => norm_rand(),
        VR_RANDOM_EXP => exp_rand(),
        VR_RANDOM_INDEX => R_unif_index(arg),
        _ => return 23,
    };
    0
}
