//! The stack calls into recursive modules run on.
//!
//! Generated code stops recursion at `abi::MAX_CALL_DEPTH` frames; those frames need more
//! stack than a host's thread may have (R's main thread: 8 MiB, part of it used by R).
//! So such calls switch to a 1 GiB stack on the calling thread (`psm::on_stack`). The
//! region is mapped once per thread and reused: pages are committed only when touched,
//! and a mapping per call (`stacker::grow`) cost 35 us, a thread per call 0.4 ms. A
//! guard page below it turns an overflow into a fault rather than a silent overwrite.

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use std::cell::RefCell;

/// Stack for calls into recursive modules: room for `abi::MAX_CALL_DEPTH` frames.
pub(super) const STACK_BYTES: usize = 1 << 30;

/// A mapped stack region; its lowest page is the guard page.
struct MappedStack {
    base: *mut u8,
    len: usize,
    page: usize,
}

impl MappedStack {
    fn map() -> VrResult<MappedStack> {
        // SAFETY: plain anonymous mappings; failures are checked.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
            let len = STACK_BYTES + page;
            let base = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return Err(VrError::new(
                    ErrorKind::Runtime,
                    "cpu backend: cannot map a stack for a recursive function",
                ));
            }
            if libc::mprotect(base, page, libc::PROT_NONE) != 0 {
                libc::munmap(base, len);
                return Err(VrError::new(
                    ErrorKind::Runtime,
                    "cpu backend: cannot protect the guard page of a recursive function's stack",
                ));
            }
            Ok(MappedStack { base: base as *mut u8, len, page })
        }
    }
}

impl Drop for MappedStack {
    fn drop(&mut self) {
        // SAFETY: mapped by `map`, unmapped once, when the thread exits.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

thread_local! {
    /// This thread's stack, mapped on first use; borrowed while code runs on it.
    static STACK: RefCell<Option<MappedStack>> = const { RefCell::new(None) };
}

/// Run `f` on this thread's large stack (already on it: where it is).
pub(super) fn on_large_stack(f: impl FnOnce() -> i32) -> VrResult<i32> {
    STACK.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // A call made while this thread runs on the large stack is already on it.
            return Ok(f());
        };
        if slot.is_none() {
            *slot = Some(MappedStack::map()?);
        }
        let s = slot.as_ref().expect("mapped above");
        // SAFETY: [base + page, base + len) is mapped read-write and page-aligned, with a
        // guard page below it (x86-64 and aarch64 stacks grow down); it is used by this
        // thread only, and by one call at a time (the RefCell borrow).
        Ok(unsafe { psm::on_stack(s.base.add(s.page), s.len - s.page, f) })
    })
}
