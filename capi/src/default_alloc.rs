//! The library's own result arrays, used when a host registers no `alloc_array` hook
//! (C programs, quick experiments): an array compiled code created is handed over as is
//! (its block taken out of the call's arena: no copy); `vr_array_free` frees it. A
//! registry of live arrays (data address -> block) means that freeing a descriptor this
//! library did not hand out (a view of an argument, a host array, a double free) does
//! nothing instead of corrupting memory.

use crate::types::VrArray;
use std::alloc::Layout;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use velociraptor::cpu::OwnedBlock;

/// data address -> (block start, block layout).
fn live() -> std::sync::MutexGuard<'static, HashMap<usize, (usize, Layout)>> {
    static LIVE: OnceLock<Mutex<HashMap<usize, (usize, Layout)>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Hand `block`, which holds the elements at `out.data`, to the host; `owner` stays null.
pub fn adopt(out: &mut VrArray, block: OwnedBlock) {
    let (start, layout) = block.into_raw();
    live().insert(out.data as usize, (start as usize, layout));
    out.owner = std::ptr::null_mut();
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
    live().insert(data as usize, (data as usize, layout));
    out.data = data as *mut _;
    out.owner = std::ptr::null_mut();
    0
}

/// Free an array from [`alloc`] or [`adopt`]; false (and nothing done) for any other.
pub fn free(a: &mut VrArray) -> bool {
    let Some((start, layout)) = live().remove(&(a.data as usize)) else {
        return false;
    };
    // SAFETY: allocated with this layout (by `alloc` or the arena), removed from the
    // registry, so freed exactly once.
    unsafe { OwnedBlock::free_raw(start as *mut u8, layout) };
    a.data = std::ptr::null_mut();
    true
}
