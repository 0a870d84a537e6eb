//! Residency across calls: device copies of host arrays that the host vouches do not
//! change between calls (`HostArray::stable`, the C API's `VR_ARRAY_STABLE`), kept on the
//! process's device after a call so that the next call reading the same bytes uploads
//! nothing (issue 19: a GPU section called in a loop from R with the same data moves it
//! once).
//!
//! An entry is a host byte range `[lo, hi)` and a buffer holding exactly those bytes.
//! Ownership moves: a call takes the entries of its stable arguments out of the cache
//! (VRRuntime adopts them as rows fresh on both sides) and puts back, at its end, the
//! rows of stable arguments that no task or device copy wrote and whose both sides
//! still agree. So a buffer belongs to one call or to the cache, never to two at once.
//!
//! Invalidation: the host calls [`forget`] (C API `vr_array_changed`) before it changes
//! or frees the memory of an array it passed as stable; the R adapter never changes
//! them (it marks them not mutable, so R copies on modification) and forgets them when
//! it stops keeping them alive. The cache holds at most [`limit`] bytes (oldest entries
//! evicted first). `VR_GPU_RESIDENT=off` turns residency off, within calls too (every
//! section then brings everything home and forgets it, as before).

use opencl3::memory::Buffer;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

struct Entry {
    lo: usize,
    hi: usize,
    buf: Buffer<u8>,
}

#[derive(Default)]
struct Cache {
    /// Oldest first.
    entries: Vec<Entry>,
    bytes: usize,
}

fn cache() -> &'static Mutex<Cache> {
    static C: OnceLock<Mutex<Cache>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(Cache::default()))
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    cache().lock().unwrap_or_else(|p| p.into_inner())
}

/// Counts for tests and `vr_stats`: arrays found resident at the start of a call, and
/// entries dropped by [`forget`] or evicted.
pub static HITS: AtomicU64 = AtomicU64::new(0);
pub static FORGOTTEN: AtomicU64 = AtomicU64::new(0);

/// Residency on (the default) or off (`VR_GPU_RESIDENT=off`, or `0`/`no`/`false`), read
/// at every call so that a benchmark can compare both in one process.
pub fn enabled() -> bool {
    !matches!(
        std::env::var("VR_GPU_RESIDENT").ok().as_deref(),
        Some("off" | "0" | "no" | "false")
    )
}

/// Most bytes the cache keeps on the device: `VR_GPU_RESIDENT_MB` megabytes, else 1 GiB.
pub fn limit() -> usize {
    std::env::var("VR_GPU_RESIDENT_MB")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(1 << 30, |mb| mb.saturating_mul(1 << 20))
}

/// The buffer holding exactly host bytes `[lo, hi)`, taken out of the cache.
pub fn take(lo: usize, hi: usize) -> Option<Buffer<u8>> {
    let mut c = lock();
    let k = c.entries.iter().position(|e| e.lo == lo && e.hi == hi)?;
    let e = c.entries.remove(k);
    c.bytes -= e.hi - e.lo;
    HITS.fetch_add(1, Ordering::Relaxed);
    Some(e.buf)
}

/// Whether the cache holds a copy of exactly `[lo, hi)`.
pub fn contains(lo: usize, hi: usize) -> bool {
    lock().entries.iter().any(|e| e.lo == lo && e.hi == hi)
}

/// Keep `buf`, a device copy of host bytes `[lo, hi)`, for later calls. Entries that
/// overlap the range are dropped (they describe older contents of those bytes), then
/// the oldest ones until the cache fits its limit.
pub fn put(lo: usize, hi: usize, buf: Buffer<u8>) {
    let max = limit();
    if hi <= lo || hi - lo > max {
        return;
    }
    let mut c = lock();
    drop_overlapping(&mut c, lo, hi);
    while c.bytes + (hi - lo) > max && !c.entries.is_empty() {
        let e = c.entries.remove(0);
        c.bytes -= e.hi - e.lo;
        FORGOTTEN.fetch_add(1, Ordering::Relaxed);
    }
    c.bytes += hi - lo;
    c.entries.push(Entry { lo, hi, buf });
}

fn drop_overlapping(c: &mut Cache, lo: usize, hi: usize) {
    let before = c.entries.len();
    c.entries.retain(|e| !(e.lo < hi && lo < e.hi));
    c.bytes = c.entries.iter().map(|e| e.hi - e.lo).sum();
    FORGOTTEN.fetch_add((before - c.entries.len()) as u64, Ordering::Relaxed);
}

/// Host bytes `[lo, hi)` change or are freed: every device copy of any of them is
/// dropped. Returns how many entries were.
pub fn forget(lo: usize, hi: usize) -> usize {
    let mut c = lock();
    let before = c.entries.len();
    drop_overlapping(&mut c, lo, hi.max(lo + 1));
    before - c.entries.len()
}

/// Drop every entry (tests, and hosts that lost track).
pub fn forget_all() {
    let mut c = lock();
    FORGOTTEN.fetch_add(c.entries.len() as u64, Ordering::Relaxed);
    c.entries.clear();
    c.bytes = 0;
}

/// Entries and bytes kept now.
pub fn held() -> (usize, usize) {
    let c = lock();
    (c.entries.len(), c.bytes)
}
