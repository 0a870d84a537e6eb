//! Residency from R (issue 19): the vectors R passes to a function that runs GPU sections
//! are passed with `VR_ARRAY_STABLE`, so that a device copy an earlier call left is read
//! again instead of uploading the same bytes at every call of a loop.
//!
//! The C API's promise is that the bytes at that address are unchanged. R gives it this
//! way: the vector is marked not mutable (`MARK_NOT_MUTABLE`: R's own code then copies
//! it before any change, so `x[1] <- 0` makes a new vector at another address and leaves
//! these bytes alone), and it is kept alive here (`R_PreserveObject`), so its memory
//! cannot be freed and reused by another vector while a device copy of it may exist.
//! Vectors are kept in the order last passed; beyond [`MAX_KEPT`] vectors or the
//! device cache's byte limit the oldest is let go: its device copy is dropped first
//! (`vr_array_changed`), then R may collect it. C code that writes into a vector behind
//! R's back (ignoring its reference count) breaks R's semantics and this promise alike.
//! `VR_GPU_RESIDENT=off` turns it off.

use extendr_ffi::{R_PreserveObject, R_ReleaseObject, MARK_NOT_MUTABLE, SEXP};
use std::cell::RefCell;
use std::collections::VecDeque;

/// Most vectors kept alive for their device copies.
const MAX_KEPT: usize = 64;

struct Kept {
    x: SEXP,
    data: usize,
    bytes: usize,
}

thread_local! {
    /// Only R's main thread calls R (and this).
    static KEPT: RefCell<VecDeque<Kept>> = const { RefCell::new(VecDeque::new()) };
}

pub fn enabled() -> bool {
    velociraptor::gpu::resident::enabled()
}

/// `x`, whose elements are the `bytes` bytes at `data`, is about to be passed as stable:
/// make sure it stays alive and unchanged.
///
/// # Safety
/// `x` is a live R vector; called on R's main thread.
pub unsafe fn keep(x: SEXP, data: *const std::ffi::c_void, bytes: usize) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        if let Some(at) = k.iter().position(|e| e.x == x && e.data == data as usize && e.bytes == bytes) {
            let e = k.remove(at).expect("found");
            k.push_back(e);
            return;
        }
        MARK_NOT_MUTABLE(x);
        R_PreserveObject(x);
        k.push_back(Kept { x, data: data as usize, bytes });
        let limit = velociraptor::gpu::resident::limit();
        while k.len() > MAX_KEPT || (k.len() > 1 && k.iter().map(|e| e.bytes).sum::<usize>() > limit) {
            let old = k.pop_front().expect("non-empty");
            release(old);
        }
    });
}

unsafe fn release(e: Kept) {
    velociraptor_capi::vr_array_changed(e.data as *const std::ffi::c_void, e.bytes);
    R_ReleaseObject(e.x);
}
