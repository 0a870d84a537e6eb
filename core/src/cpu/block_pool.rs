//! The arena's large blocks: mapped from the kernel, and kept for the next call when
//! freed.
//!
//! A compiled function that returns or uses a large array gets a fresh block for it on
//! every call. Through glibc, a block of this size is mapped (or, once glibc's dynamic
//! mmap threshold has risen to the size of the last mapping freed, at most 32 MiB, taken
//! from the heap top, which is trimmed again when it is freed), so each call paid a page
//! fault and the kernel's zeroing for every 4 KiB of it: R's `rosen_der` on 4e6 doubles
//! (a 32 MB result) ran 18-20 ms per call against C's 4 ms (bench/RESULTS.md, "Large
//! arena blocks from calloc").
//!
//! So large blocks bypass glibc: [`map`] maps them with `mmap` (fresh zero pages,
//! 2 MiB-aligned, the largest advised to huge pages, see [`ADVISE_HUGE_FROM`]; a kept
//! block is memory of its own, returned to the kernel when it leaves the pool, and
//! glibc's heuristics for the host's own allocations never see it), and
//! [`give`] keeps a freed one for a later [`take`] of a similar size, which zeroes only
//! the bytes asked for (its pages are mapped already). Bounded: at most [`MAX_BLOCKS`]
//! blocks and [`MAX_BYTES`] bytes are kept (a block that does not fit is unmapped at
//! once), a block is reused only for a request of at least half its size (a small array
//! does not pin a huge block), and [`trim`] unmaps everything (`vr_context_destroy`).
//! Counted: [`stats`] (reused, kept, bytes kept now).

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

/// Large blocks start on a huge page and are multiples of one; their layouts have this
/// alignment, by which [`crate::cpu::abi::free_block`] tells them from the small.
pub const HUGE_PAGE: usize = 2 << 20;

/// Blocks at least this long are advised to huge pages (MADV_HUGEPAGE, 512 times fewer
/// faults on first touch). The pool keeps few of them, so they are faulted in again on
/// later calls: R's black_scholes_vec at 1e7 (28 temporaries of 80 MB) ran 1099 ms per
/// call unadvised, 539 ms advised. Smaller blocks are kept and reused, and advising them
/// only risks a stall on first touch: where the kernel's defrag setting is `madvise`
/// (Debian's), an advised fault with no free huge page compacts memory first, and
/// black_scholes_vec's first run at 1e6 (28 fresh 8 MB blocks) took 322-364 ms (system
/// 277-342 ms) in two of three processes, 111-116 ms unadvised.
pub const ADVISE_HUGE_FROM: usize = MAX_BYTES / MAX_BLOCKS;

/// A new block of at least `bytes` bytes, zero, mapped from the kernel; its layout's size
/// is the mapped length, its alignment [`HUGE_PAGE`]. None when the kernel refuses.
pub fn map(bytes: usize) -> Option<(NonNull<u8>, Layout)> {
    let len = bytes.max(1).checked_next_multiple_of(HUGE_PAGE)?;
    let over = len.checked_add(HUGE_PAGE)?;
    // SAFETY: an anonymous private mapping of `over` bytes, no address asked for.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    // Keep the huge-page-aligned `len` bytes inside the mapping, unmap the rest.
    let raw = raw as usize;
    let start = raw.next_multiple_of(HUGE_PAGE);
    // SAFETY: both ranges lie inside the mapping just made and outside the part kept.
    unsafe {
        if start > raw {
            libc::munmap(raw as *mut libc::c_void, start - raw);
        }
        let end = start + len;
        if raw + over > end {
            libc::munmap(end as *mut libc::c_void, raw + over - end);
        }
        if len >= ADVISE_HUGE_FROM {
            // A hint: nothing changes where transparent huge pages are off.
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    let layout = Layout::from_size_align(len, HUGE_PAGE).ok()?;
    Some((NonNull::new(start as *mut u8)?, layout))
}

/// Unmap a block from [`map`].
///
/// # Safety
/// `block` and `layout` come from [`map`]; the block is not used after this.
unsafe fn unmap(block: NonNull<u8>, layout: Layout) {
    libc::munmap(block.as_ptr() as *mut libc::c_void, layout.size());
}

/// A kept block with room for `size` bytes, the smallest that fits and is at most twice
/// `size`, zeroed over its first `size` bytes.
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
    drop(p);
    REUSED.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the block is mapped, `size` <= its length, and no one else refers to it.
    unsafe { std::ptr::write_bytes(block.as_ptr(), 0, size) };
    Some((block, layout))
}

/// Keep `block` for a later [`take`], or unmap it when the pool is full.
///
/// # Safety
/// `block` and `layout` come from [`map`] (or [`take`]); the block is not used after
/// this, and is given back once.
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
    unmap(block, layout);
}

/// Unmap every kept block.
pub fn trim() {
    let blocks = {
        let mut p = pool();
        p.bytes = 0;
        std::mem::take(&mut p.blocks)
    };
    for (block, layout) in blocks {
        // SAFETY: the pool owned these mapped blocks alone.
        unsafe { unmap(block, layout) };
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
