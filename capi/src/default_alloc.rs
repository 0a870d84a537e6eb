//! The library's own allocator for result arrays, used when a host registers no
//! `alloc_array` hook (C programs, quick experiments); `vr_array_free` frees them. A
//! registry of live allocations (data address -> layout) means that freeing a descriptor
//! this allocator did not fill (a view of an argument, a host array, a double free) does
//! nothing instead of corrupting memory.

use crate::types::VrArray;
use std::alloc::Layout;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

fn live() -> std::sync::MutexGuard<'static, HashMap<usize, Layout>> {
    static LIVE: OnceLock<Mutex<HashMap<usize, Layout>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Give `out` zeroed room for `bytes` bytes (64-byte aligned); `owner` stays null.
/// 0 on success.
pub fn alloc(out: &mut VrArray, bytes: usize) -> i32 {
    let Ok(layout) = Layout::from_size_align(bytes.max(1), 64) else {
        return 1;
    };
    // SAFETY: the layout has a non-zero size.
    let data = unsafe { std::alloc::alloc_zeroed(layout) };
    if data.is_null() {
        return 1;
    }
    live().insert(data as usize, layout);
    out.data = data as *mut _;
    out.owner = std::ptr::null_mut();
    0
}

/// Free an array from [`alloc`]; false (and nothing done) for any other descriptor.
pub fn free(a: &mut VrArray) -> bool {
    let Some(layout) = live().remove(&(a.data as usize)) else {
        return false;
    };
    // SAFETY: allocated by `alloc` with this layout, and removed from the registry, so
    // freed exactly once.
    unsafe { std::alloc::dealloc(a.data as *mut u8, layout) };
    a.data = std::ptr::null_mut();
    true
}
