//! Large arena blocks kept for the next call instead of being freed.
//!
//! A compiled function that returns or uses a large array gets a fresh block for it on
//! every call. Fresh blocks of this size come from the kernel through glibc (mmap, or the
//! heap top, which glibc trims again when the block is freed), so each call pays a page
//! fault and the kernel's zeroing for every 4 KiB of it, and glibc's dynamic mmap
//! threshold (raised to the size of the last freed mapping, at most 32 MiB) moves arrays
//! of 4-32 MiB onto the heap top, which is grown and trimmed on every call: R's
//! `rosen_der` on 4e6 doubles (a 32 MB result) ran 18-20 ms per call against C's 4 ms
//! (bench/RESULTS.md, "Large arena blocks from calloc"). Blocks of at least
//! `LARGE_BLOCK` bytes freed by an arena or by a host that was handed one go here
//! instead, and an allocation of a similar size takes one back, zeroing only the bytes it
//! asked for (its pages are already mapped).
//!
//! Bounded: at most [`MAX_BLOCKS`] blocks and [`MAX_BYTES`] bytes are kept (a block that
//! does not fit is freed at once), a block is reused only for a request of at least half
//! its size (a small array does not pin a huge block), and [`trim`] frees everything
//! (`vr_context_destroy`). Counted: [`stats`] (reused, kept, freed).

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Most blocks kept at once.
pub const MAX_BLOCKS: usize = 16;
/// Most bytes kept at once (the memory a process may hold between calls for this).
pub const MAX_BYTES: usize = 512 << 20;

struct Pool {
    blocks: Vec<(NonNull<u8>, Layout)>,
    bytes: usize,
}

// SAFETY: the pool owns plain heap memory no one else refers to.
unsafe impl Send for Pool {}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    blocks: Vec::new(),
    bytes: 0,
});
static REUSED: AtomicU64 = AtomicU64::new(0);
static KEPT: AtomicU64 = AtomicU64::new(0);

fn pool() -> std::sync::MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A kept block whose layout has room for `size` bytes (a large block's layout: size
/// including its alignment bytes, alignment 16), the smallest that fits and is at most
/// twice `size`; its contents are whatever its last user left.
pub fn take(size: usize) -> Option<(NonNull<u8>, Layout)> {
    let mut p = pool();
    let best = p
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, (_, l))| l.size() >= size && l.size() / 2 <= size)
        .min_by_key(|(_, (_, l))| l.size())
        .map(|(k, _)| k)?;
    let (block, layout) = p.blocks.swap_remove(best);
    p.bytes -= layout.size();
    REUSED.fetch_add(1, Ordering::Relaxed);
    Some((block, layout))
}

/// Keep `block` for a later [`take`], or free it when the pool is full.
///
/// # Safety
/// `block` was allocated by the global allocator with `layout`, is not used after this,
/// and is given back once.
pub unsafe fn give(block: NonNull<u8>, layout: Layout) {
    {
        let mut p = pool();
        if p.blocks.len() < MAX_BLOCKS && p.bytes + layout.size() <= MAX_BYTES {
            p.bytes += layout.size();
            p.blocks.push((block, layout));
            KEPT.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    std::alloc::dealloc(block.as_ptr(), layout);
}

/// Free every kept block.
pub fn trim() {
    let blocks = {
        let mut p = pool();
        p.bytes = 0;
        std::mem::take(&mut p.blocks)
    };
    for (block, layout) in blocks {
        // SAFETY: the pool owned these blocks alone, with these layouts.
        unsafe { std::alloc::dealloc(block.as_ptr(), layout) };
    }
}

/// Counts since the process started: blocks taken back, blocks kept when given; and the
/// bytes kept now.
pub fn stats() -> (u64, u64, usize) {
    (
        REUSED.load(Ordering::Relaxed),
        KEPT.load(Ordering::Relaxed),
        pool().bytes,
    )
}
