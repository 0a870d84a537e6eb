//! The host hooks the R adapter registers on its context: result arrays are allocated as
//! R vectors (so a result comes back as an R object, not as library memory), preserved
//! from R's garbage collector until the adapter has handed them to R; random draws come
//! from R's own generator (`random.rs`).
//!
//! R's API may only be used from R's main thread: a hook called from any other thread
//! (a worker of a parallel loop) refuses (the call then fails with an error) instead of
//! touching R.

use extendr_api::catch_r_error;
use extendr_ffi::{Rf_allocVector, R_PreserveObject, R_ReleaseObject, COMPLEX, INTEGER, RAW, REAL, SEXP, SEXPTYPE};
use std::ffi::c_void;
use std::sync::OnceLock;
use std::thread::ThreadId;
use velociraptor_capi::*;

static R_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// Remember R's main thread (called from every `.Call` entry point, which R runs there).
pub fn note_r_thread() {
    let _ = R_THREAD.get_or_init(|| std::thread::current().id());
}

pub fn on_r_thread() -> bool {
    R_THREAD.get() == Some(&std::thread::current().id())
}

/// The R vector type holding elements of C-API type `elem` (logical results are built
/// in a raw vector of bytes, VRIR's bool, and turned into a logical vector afterwards).
pub fn sexptype_of(elem: i32) -> Option<SEXPTYPE> {
    Some(match elem {
        VR_F64 => SEXPTYPE::REALSXP,
        VR_I32 => SEXPTYPE::INTSXP,
        VR_C128 => SEXPTYPE::CPLXSXP,
        VR_BOOL => SEXPTYPE::RAWSXP,
        _ => return None,
    })
}

/// Start of an R vector's elements.
///
/// # Safety
/// `x` is a live vector of type `t`.
pub unsafe fn data_of(x: SEXP, t: SEXPTYPE) -> *mut c_void {
    match t {
        SEXPTYPE::REALSXP => REAL(x) as *mut c_void,
        SEXPTYPE::INTSXP => INTEGER(x) as *mut c_void,
        SEXPTYPE::CPLXSXP => COMPLEX(x) as *mut c_void,
        SEXPTYPE::RAWSXP => RAW(x) as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

/// Column-major strides (in elements) of `dims`.
pub fn col_strides(dims: &[i64], out: &mut [i64]) {
    let mut s = 1i64;
    for (k, d) in dims.iter().enumerate() {
        out[k] = s;
        s *= (*d).max(1);
    }
}

unsafe extern "C" fn alloc_array(_user: *mut c_void, out: *mut VrArray) -> i32 {
    if !on_r_thread() {
        return 10;
    }
    let Some(out) = out.as_mut() else { return 11 };
    let Some(t) = sexptype_of(out.elem) else { return 12 };
    let n = out.ndims.clamp(0, VR_MAX_NDIMS as i32) as usize;
    let count: i64 = out.dims[..n].iter().map(|d| (*d).max(0)).product();
    let len = count as isize;
    // Allocation jumps on out-of-memory: caught here, never over Rust frames.
    let Ok(x) = catch_r_error(move || Rf_allocVector(t, len)) else { return 13 };
    R_PreserveObject(x);
    out.data = data_of(x, t);
    let dims = out.dims;
    col_strides(&dims[..n], &mut out.strides[..n]);
    out.layout = VR_LAYOUT_COL;
    out.owner = x as *mut c_void;
    0
}

unsafe extern "C" fn release_array(_user: *mut c_void, a: *mut VrArray) {
    if let Some(a) = a.as_ref() {
        if !a.owner.is_null() && on_r_thread() {
            R_ReleaseObject(a.owner as SEXP);
        }
    }
}

/// The hooks: R vectors for results, arguments by value (R's semantics).
pub fn r_hooks() -> VrHostHooks {
    VrHostHooks {
        user_data: std::ptr::null_mut(),
        alloc_array: Some(alloc_array),
        release_array: Some(release_array),
        incref: None,
        decref: None,
        on_error: None,
        arg_convention: VR_BY_VALUE,
        // Compiled runif/rnorm/rexp/sample draw from R's own generator.
        random: Some(crate::random::draw),
    }
}
