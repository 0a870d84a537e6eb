//! Status codes and the thread-local last error, and the guard every entry point runs
//! its body in: the body returns `Result<(), VrError>`; a panic is caught and becomes
//! `VR_INTERNAL_ERROR`, so no unwinding ever crosses into the host.

use crate::types::{VrErrorInfo, VrStatus};
use std::cell::RefCell;
use std::ffi::CString;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use velociraptor::{ErrorKind, VrError};

pub fn status_of(kind: ErrorKind) -> VrStatus {
    match kind {
        ErrorKind::Parse => VrStatus::VR_PARSE_ERROR,
        ErrorKind::Type => VrStatus::VR_TYPE_ERROR,
        ErrorKind::Unsupported => VrStatus::VR_UNSUPPORTED,
        ErrorKind::OutOfBounds => VrStatus::VR_OUT_OF_BOUNDS,
        ErrorKind::DivisionByZero => VrStatus::VR_DIVISION_BY_ZERO,
        ErrorKind::ShapeMismatch => VrStatus::VR_SHAPE_MISMATCH,
        ErrorKind::Runtime => VrStatus::VR_RUNTIME_ERROR,
        ErrorKind::InvalidArgument => VrStatus::VR_INVALID_ARGUMENT,
        ErrorKind::Device => VrStatus::VR_DEVICE_ERROR,
        ErrorKind::Internal => VrStatus::VR_INTERNAL_ERROR,
        ErrorKind::Interrupted => VrStatus::VR_INTERRUPTED,
    }
}

/// The last error, with C strings kept alive for the pointers handed out.
struct LastError {
    status: VrStatus,
    error: VrError,
    message: CString,
    function: Option<CString>,
    variable: Option<CString>,
}

thread_local! {
    static LAST: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

fn set_last(e: VrError) -> VrStatus {
    let status = status_of(e.kind);
    // The message a host shows: "kind: message (in `f`, line 3)" style comes from
    // VrError's Display, which names every location field it has.
    let message = c_string(&e.to_string());
    let last = LastError {
        status,
        function: e.function.as_deref().map(c_string),
        variable: e.variable.as_deref().map(c_string),
        message,
        error: e,
    };
    LAST.with(|l| *l.borrow_mut() = Some(last));
    status
}

fn clear_last() {
    LAST.with(|l| *l.borrow_mut() = None);
}

/// Run an entry point's body: Ok -> VR_OK (the last error cleared), Err -> its status
/// with the error stored, panic -> VR_INTERNAL_ERROR naming the entry point.
pub fn guard(entry: &str, body: impl FnOnce() -> Result<(), VrError>) -> VrStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            clear_last();
            VrStatus::VR_OK
        }
        Ok(Err(e)) => set_last(e),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last(VrError::new(
                ErrorKind::Internal,
                format!("{entry} panicked: {what} (please report this bug)"),
            ))
        }
    }
}

/// A null-pointer or bad-value complaint about an argument of the API itself.
pub fn invalid(msg: impl Into<String>) -> VrError {
    VrError::new(ErrorKind::InvalidArgument, msg)
}

/// Message of this thread's last error, or "" when the last call succeeded.
pub fn last_message() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    LAST.with(|l| {
        l.borrow()
            .as_ref()
            .map_or(EMPTY.as_ptr() as *const c_char, |e| e.message.as_ptr())
    })
}

/// Fill `out` with this thread's last error; VR_OK (and empty fields) when none.
pub fn last_info(out: &mut VrErrorInfo) {
    LAST.with(|l| {
        let l = l.borrow();
        *out = match l.as_ref() {
            None => VrErrorInfo {
                status: VrStatus::VR_OK,
                message: last_message(),
                function: std::ptr::null(),
                variable: std::ptr::null(),
                line: -1,
                has_index: 0,
                index: 0,
                has_bound: 0,
                bound: 0,
                dim: -1,
            },
            Some(e) => VrErrorInfo {
                status: e.status,
                message: e.message.as_ptr(),
                function: e.function.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                variable: e.variable.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                line: e.error.line.map_or(-1, i64::from),
                has_index: e.error.index.is_some() as i32,
                index: e.error.index.unwrap_or(0),
                has_bound: e.error.bound.is_some() as i32,
                bound: e.error.bound.unwrap_or(0),
                dim: e.error.dim.map_or(-1, i64::from),
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error_with_a_message() {
        let st = guard("vr_test", || panic!("boom"));
        assert_eq!(st, VrStatus::VR_INTERNAL_ERROR);
        let msg = unsafe { std::ffi::CStr::from_ptr(last_message()) }.to_str().unwrap().to_string();
        assert!(msg.contains("vr_test panicked: boom"), "{msg}");
        assert_eq!(guard("vr_test", || Ok(())), VrStatus::VR_OK);
        assert_eq!(unsafe { std::ffi::CStr::from_ptr(last_message()) }.to_bytes(), b"");
    }

    #[test]
    fn every_error_kind_has_its_status() {
        assert_eq!(status_of(ErrorKind::OutOfBounds), VrStatus::VR_OUT_OF_BOUNDS);
        assert_eq!(status_of(ErrorKind::Parse), VrStatus::VR_PARSE_ERROR);
        assert_eq!(status_of(ErrorKind::Internal), VrStatus::VR_INTERNAL_ERROR);
    }
}
