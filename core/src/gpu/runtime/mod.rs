//! VRRuntime: who holds the freshest copy of every array a GPU section touches, and the
//! transfers that keep both sides right (velociraptor-cc2014 section 5, the 2013 report).
//!
//! The compiled CPU code and the generated kernels never move data themselves; they tell
//! the runtime what they are about to read or write and it answers with a device buffer
//! (for a task) or makes host memory fresh (for CPU code). Its tables:
//!
//! - the **buffer table**: one device buffer per host address range. Arrays are found by
//!   the bytes they cover, not by name, so two views of one array (and any aliases) land in
//!   the same buffer at their own offsets; a range that overlaps several buffers without
//!   fitting in one merges them (after bringing their data home). Each buffer knows which
//!   side holds the freshest data (host, device or both) and the last task that may have
//!   written it.
//! - the **variable table**: per variable name, the range, buffer and offset it was last
//!   bound to, with that buffer's last writer and freshest side (what `explain` shows and
//!   the tests inspect).
//! - the **shape table**: per variable, the extents it had when last seen, updated at
//!   enqueue (a task's result has its extents before any data exists on the host).
//! - the **task queue**: tasks are enqueued in order on the device's queue and never
//!   waited for at enqueue; a host access waits only when the buffer it needs may still
//!   be written (the in-order queue makes "everything before" the dependency).
//!
//! Protocol. `bind` before a task: a buffer the task reads is uploaded only when the host
//! holds the only fresh copy; a buffer it writes becomes device-fresh when the task is
//! enqueued (`launched`). `host_access` before CPU code: a buffer whose freshest copy is on
//! the device is downloaded (once; then both sides are fresh); a CPU write makes the
//! device copy stale. `end_section` downloads what only the device holds; with residency
//! on ([`Runtime::set_resident`]) the rows stay, both sides fresh, for the next section of
//! the call (the planner reports every CPU write outside sections too, as a `host_access`
//! write or a [`Runtime::forget_all`]); with it off every row is forgotten.
//!
//! Across calls: [`Runtime::adopt`] enters a buffer kept from an earlier call for a host
//! range the host vouches has not changed since (the engine's cross-call cache,
//! `gpu::resident`), and [`Runtime::take_clean`] hands such a row back at the end of the
//! call when the device never wrote it and both sides still agree.
//!
//! Copy-on-potential-write: `lazy_copy(dst, src)` records that `dst` must equal `src`
//! without copying anything; tasks that only read `dst` read `src`'s buffer. The copy is
//! made (on the device when `src` is there, else in host memory) the first time either
//! side may be written, or when the CPU reads `dst`.
//!
//! The device is a trait ([`Device`]) so that the tables are tested without OpenCL (a fake
//! device counts transfers); `gpu::opencl` implements it on an OpenCL queue.

#[cfg(test)]
mod tests;

use crate::runtime::offload::HostArray;
use std::collections::HashMap;

/// A device operation that failed, and whether the CPU can take the work over
/// (docs/gpu.md, "When the device fails").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceError {
    /// What failed, with the OpenCL error's name.
    pub message: String,
    /// The device ran out of memory or resources, or was lost (not a bug of ours): the
    /// engine gives the device up for the call and the CPU carries on.
    pub fault: bool,
    /// Reported while waiting for commands already enqueued (a download, a finish):
    /// those may have run partly, so no copy only the device holds is trusted after it.
    pub waited: bool,
}

impl DeviceError {
    /// A failure that is not a device fault (a bug of ours: reported as internal).
    pub fn internal(message: impl Into<String>) -> DeviceError {
        DeviceError {
            message: message.into(),
            fault: false,
            waited: false,
        }
    }
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the runtime needs from a device: buffers, transfers and a queue to wait on.
pub trait Device {
    type Buffer;
    /// A buffer of `bytes` (contents unspecified).
    fn alloc(&mut self, bytes: usize) -> Result<Self::Buffer, DeviceError>;
    /// Enqueue a copy of host bytes into the buffer at `offset`. The host bytes must stay
    /// unchanged until the queue is finished.
    fn upload(
        &mut self,
        buf: &Self::Buffer,
        offset: usize,
        host: *const u8,
        bytes: usize,
    ) -> Result<(), DeviceError>;
    /// Copy buffer bytes into host memory, after every command enqueued before; returns
    /// when they are there.
    fn download(
        &mut self,
        buf: &Self::Buffer,
        offset: usize,
        host: *mut u8,
        bytes: usize,
    ) -> Result<(), DeviceError>;
    /// Enqueue a device-side copy.
    fn copy(
        &mut self,
        src: &Self::Buffer,
        src_offset: usize,
        dst: &Self::Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<(), DeviceError>;
    /// Wait for every command enqueued so far.
    fn finish(&mut self) -> Result<(), DeviceError>;
}

/// Which side holds the freshest copy of a buffer's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fresh {
    Host,
    Device,
    Both,
}

/// How a task uses an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    /// Reads some elements and may write some (a parfor's arrays): uploaded first so
    /// that the elements it does not write keep their values.
    ReadWrite,
    /// Writes every element before reading any (a library kernel's fresh result): no
    /// upload.
    Overwrite,
}

impl Access {
    fn writes(self) -> bool {
        self != Access::Read
    }
}

/// One row of the buffer table.
#[derive(Debug)]
struct BufferEntry<B> {
    lo: usize,
    hi: usize,
    buf: B,
    fresh: Fresh,
    last_writer: Option<u64>,
    /// A task or a device copy wrote it at some point (its bytes are then the call's,
    /// never handed to the cross-call cache).
    written_on_device: bool,
}

/// One row of the variable table.
#[derive(Clone, Debug, PartialEq)]
pub struct VarEntry {
    pub lo: usize,
    pub hi: usize,
    /// Buffer-table row it was bound to (None: only seen by the CPU).
    pub buffer: Option<usize>,
    /// Element offset of the array's element (0, ..., 0) in that buffer.
    pub offset: i64,
    pub last_writer: Option<u64>,
    pub fresh: Fresh,
}

/// A deferred copy (copy-on-potential-write): `dst` must hold what `src` held.
#[derive(Clone, Copy, Debug)]
struct LazyCopy {
    dst: (usize, usize),
    src: (usize, usize),
}

/// Counts of what moved, for `explain`, the transfer tests and the benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub uploads: u64,
    pub upload_bytes: u64,
    pub downloads: u64,
    pub download_bytes: u64,
    pub device_copies: u64,
    pub host_copies: u64,
    pub tasks: u64,
    /// Bytes only the device held that were dropped unread at the end of a section
    /// (dead temporaries, arrays no variable refers to any more).
    pub discarded_bytes: u64,
}

/// Where a task finds an array: a buffer-table row and the element offset of element
/// (0, ..., 0) in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub buffer: usize,
    pub offset: i64,
}

/// Bytes whose only fresh copy was on a device that was given up ([`Runtime::abandon`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lost {
    pub lo: usize,
    pub hi: usize,
    /// Variables bound to these bytes in the current section (sorted; may be empty).
    pub vars: Vec<String>,
    /// The task that last wrote them, when known.
    pub writer: Option<String>,
}

/// One task as the queue recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRecord {
    pub id: u64,
    pub name: String,
    pub writes: Vec<usize>,
}

pub struct Runtime<D: Device> {
    dev: D,
    buffers: Vec<Option<BufferEntry<D::Buffer>>>,
    vars: HashMap<String, VarEntry>,
    shapes: HashMap<String, Vec<i64>>,
    lazy: Vec<LazyCopy>,
    tasks: Vec<TaskRecord>,
    /// Commands were enqueued since the last wait (uploads read host memory until done).
    queued: bool,
    stats: Stats,
    /// A small buffer bound for arrays without elements (OpenCL has no empty buffers).
    empty: Option<usize>,
    /// Rows outlive the end of a section (residency within a call).
    resident: bool,
}

type Res<T> = Result<T, DeviceError>;

impl<D: Device> Runtime<D> {
    pub fn new(dev: D) -> Runtime<D> {
        Runtime {
            dev,
            buffers: Vec::new(),
            vars: HashMap::new(),
            shapes: HashMap::new(),
            lazy: Vec::new(),
            tasks: Vec::new(),
            queued: false,
            stats: Stats::default(),
            empty: None,
            resident: false,
        }
    }

    /// Keep rows across sections (both sides fresh after the end of a section). Only
    /// sound when every CPU write between sections is reported (`host_access` with
    /// `write`, or `forget_all`): the GPU planner does so in every function that runs
    /// sections.
    pub fn set_resident(&mut self, on: bool) {
        self.resident = on;
    }

    /// Enter `buf`, a device copy of host bytes `[lo, hi)` that the caller vouches are
    /// unchanged since it was made, as a row fresh on both sides. Refused (false, the
    /// buffer dropped) when a row already overlaps the range.
    pub fn adopt(&mut self, lo: usize, hi: usize, buf: D::Buffer) -> bool {
        if lo >= hi || !self.overlapping(lo, hi).is_empty() {
            return false;
        }
        let entry = BufferEntry {
            lo,
            hi,
            buf,
            fresh: Fresh::Both,
            last_writer: None,
            written_on_device: false,
        };
        match self.buffers.iter().position(|b| b.is_none()) {
            Some(k) if Some(k) != self.empty => self.buffers[k] = Some(entry),
            _ => self.buffers.push(Some(entry)),
        }
        true
    }

    /// The buffer of the row covering exactly `[lo, hi)`, taken out of the table, when
    /// both sides hold the same bytes and no task or device copy ever wrote it (a copy
    /// the next call may [`Runtime::adopt`]).
    pub fn take_clean(&mut self, lo: usize, hi: usize) -> Option<D::Buffer> {
        if !self.lazy_touching(lo, hi, true, true).is_empty() {
            return None;
        }
        let k = self.buffers.iter().position(|b| {
            b.as_ref().is_some_and(|e| {
                e.lo == lo && e.hi == hi && e.fresh == Fresh::Both && !e.written_on_device
            })
        })?;
        if Some(k) == self.empty {
            return None;
        }
        self.buffers[k].take().map(|e| e.buf)
    }

    /// CPU code may write any array (it reaches arrays the planner cannot name, through
    /// a tuple): every row comes home and is forgotten.
    pub fn forget_all(&mut self) -> Res<()> {
        while !self.lazy.is_empty() {
            self.materialize(0)?;
        }
        for k in 0..self.buffers.len() {
            if self.buffers[k].is_some() && Some(k) != self.empty {
                self.bring_home(k)?;
            }
        }
        self.wait_if_queued()?;
        for (k, b) in self.buffers.iter_mut().enumerate() {
            if Some(k) != self.empty {
                *b = None;
            }
        }
        self.vars.clear();
        Ok(())
    }

    pub fn device(&mut self) -> &mut D {
        &mut self.dev
    }

    pub fn device_ref(&self) -> &D {
        &self.dev
    }

    pub fn buffer(&self, b: usize) -> &D::Buffer {
        &self.buffers[b].as_ref().expect("live buffer").buf
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The variable table's row for `name`.
    pub fn var(&self, name: &str) -> Option<&VarEntry> {
        self.vars.get(name)
    }

    /// The shape table's extents for `name`.
    pub fn shape(&self, name: &str) -> Option<&[i64]> {
        self.shapes.get(name).map(|v| v.as_slice())
    }

    /// Live buffers (rows of the buffer table in use).
    /// No buffer and no deferred copy: a host access has nothing to bring home or to
    /// mark stale.
    pub fn holds_nothing(&self) -> bool {
        self.lazy.is_empty() && self.buffers.iter().all(|b| b.is_none())
    }

    pub fn buffer_count(&self) -> usize {
        self.buffers.iter().filter(|b| b.is_some()).count()
    }

    pub fn tasks(&self) -> &[TaskRecord] {
        &self.tasks
    }

    /// Record a variable's extents (at enqueue, before any data exists).
    pub fn set_shape(&mut self, name: &str, dims: &[i64]) {
        self.shapes.insert(name.to_string(), dims.to_vec());
    }

    /// Rows overlapping `[lo, hi)`.
    fn overlapping(&self, lo: usize, hi: usize) -> Vec<usize> {
        self.buffers
            .iter()
            .enumerate()
            .filter_map(|(k, b)| b.as_ref().filter(|b| b.lo < hi && lo < b.hi).map(|_| k))
            .collect()
    }

    /// Make the host copy of row `k` fresh (download when only the device has it).
    fn bring_home(&mut self, k: usize) -> Res<()> {
        let e = self.buffers[k].as_mut().expect("live buffer");
        if e.fresh == Fresh::Device {
            let bytes = e.hi - e.lo;
            self.dev.download(&e.buf, 0, e.lo as *mut u8, bytes)?;
            e.fresh = Fresh::Both;
            self.stats.downloads += 1;
            self.stats.download_bytes += bytes as u64;
            // A download waits for everything enqueued before it.
            self.queued = false;
        }
        Ok(())
    }

    /// Make the device copy of row `k` fresh (upload when only the host has it).
    fn send_to_device(&mut self, k: usize) -> Res<()> {
        let e = self.buffers[k].as_mut().expect("live buffer");
        if e.fresh == Fresh::Host {
            let bytes = e.hi - e.lo;
            self.dev.upload(&e.buf, 0, e.lo as *const u8, bytes)?;
            e.fresh = Fresh::Both;
            self.stats.uploads += 1;
            self.stats.upload_bytes += bytes as u64;
            self.queued = true;
        }
        Ok(())
    }

    /// The row whose range holds `[lo, hi)`, made if needed: overlapping rows that do not
    /// hold it are brought home and merged into one row covering them all.
    fn row_for(&mut self, lo: usize, hi: usize) -> Res<usize> {
        let over = self.overlapping(lo, hi);
        if let [k] = over.as_slice() {
            let e = self.buffers[*k].as_ref().expect("live buffer");
            if e.lo <= lo && hi <= e.hi {
                return Ok(*k);
            }
        }
        let (mut nlo, mut nhi) = (lo, hi);
        for k in &over {
            self.bring_home(*k)?;
            let e = self.buffers[*k].take().expect("live buffer");
            nlo = nlo.min(e.lo);
            nhi = nhi.max(e.hi);
        }
        let buf = self.dev.alloc(nhi - nlo)?;
        let entry = BufferEntry {
            lo: nlo,
            hi: nhi,
            buf,
            fresh: Fresh::Host,
            last_writer: None,
            written_on_device: false,
        };
        match self.buffers.iter().position(|b| b.is_none()) {
            Some(k) if Some(k) != self.empty => {
                self.buffers[k] = Some(entry);
                Ok(k)
            }
            _ => {
                self.buffers.push(Some(entry));
                Ok(self.buffers.len() - 1)
            }
        }
    }

    fn empty_row(&mut self) -> Res<usize> {
        if let Some(k) = self.empty {
            return Ok(k);
        }
        let buf = self.dev.alloc(16)?;
        self.buffers.push(Some(BufferEntry {
            lo: 0,
            hi: 0,
            buf,
            fresh: Fresh::Both,
            last_writer: None,
            written_on_device: false,
        }));
        let k = self.buffers.len() - 1;
        self.empty = Some(k);
        Ok(k)
    }

    /// Deferred copies touching `[lo, hi)` as destination (`as_dst`) or as source.
    fn lazy_touching(&self, lo: usize, hi: usize, as_dst: bool, as_src: bool) -> Vec<usize> {
        self.lazy
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                (as_dst && c.dst.0 < hi && lo < c.dst.1) || (as_src && c.src.0 < hi && lo < c.src.1)
            })
            .map(|(k, _)| k)
            .collect()
    }

    /// Make deferred copy `k` real: on the device when its source is fresh there, else in
    /// host memory.
    /// The entry leaves the list only once the copy is made: a device failure part-way
    /// keeps it, so that [`Runtime::abandon`] still makes it in host memory.
    fn materialize(&mut self, k: usize) -> Res<()> {
        let c = self.lazy[k];
        let bytes = c.src.1 - c.src.0;
        let src_rows = self.overlapping(c.src.0, c.src.1);
        // Where the source has a valid device copy, copy there (the copy's readers were
        // tasks); otherwise in host memory.
        let src_on_device = !src_rows.is_empty()
            && src_rows.iter().all(|r| {
                self.buffers[*r]
                    .as_ref()
                    .is_some_and(|e| e.fresh != Fresh::Host)
            });
        if src_on_device {
            let s = self.row_for(c.src.0, c.src.1)?;
            self.send_to_device(s)?;
            let d = self.row_for(c.dst.0, c.dst.1)?;
            let d_range = {
                let e = self.buffers[d].as_ref().expect("live");
                (e.lo, e.hi)
            };
            if d_range != c.dst {
                // Part of a larger row: the rest of it must be right on the device too.
                self.send_to_device(d)?;
            }
            let s_lo = self.buffers[s].as_ref().expect("live").lo;
            // Two different rows (the ranges are disjoint arrays): borrow both.
            let src_buf: *const D::Buffer = &self.buffers[s].as_ref().expect("live").buf;
            let dst_buf: *const D::Buffer = &self.buffers[d].as_ref().expect("live").buf;
            // SAFETY: both point into live rows of `buffers`, not moved during the call.
            unsafe {
                self.dev.copy(
                    &*src_buf,
                    c.src.0 - s_lo,
                    &*dst_buf,
                    c.dst.0 - d_range.0,
                    bytes,
                )?;
            }
            self.queued = true;
            let e = self.buffers[d].as_mut().expect("live");
            e.fresh = Fresh::Device;
            e.written_on_device = true;
            self.stats.device_copies += 1;
            self.lazy.remove(k);
        } else {
            // Host memory holds the source: copy there, and the destination's device
            // copy (if any) is stale.
            for r in self.overlapping(c.dst.0, c.dst.1) {
                self.host_write_row(r)?;
            }
            self.wait_if_queued()?;
            // SAFETY: both ranges are live host arrays of `bytes` bytes, disjoint.
            unsafe {
                std::ptr::copy_nonoverlapping(c.src.0 as *const u8, c.dst.0 as *mut u8, bytes);
            }
            self.stats.host_copies += 1;
            self.lazy.remove(k);
        }
        Ok(())
    }

    fn materialize_touching(
        &mut self,
        lo: usize,
        hi: usize,
        as_dst: bool,
        as_src: bool,
    ) -> Res<()> {
        while let Some(k) = self.lazy_touching(lo, hi, as_dst, as_src).first().copied() {
            self.materialize(k)?;
        }
        Ok(())
    }

    /// The CPU is about to write row `r`'s bytes: bring them home, the device copy is
    /// then stale.
    fn host_write_row(&mut self, r: usize) -> Res<()> {
        self.bring_home(r)?;
        self.buffers[r].as_mut().expect("live").fresh = Fresh::Host;
        Ok(())
    }

    fn wait_if_queued(&mut self) -> Res<()> {
        if self.queued {
            self.dev.finish()?;
            self.queued = false;
        }
        Ok(())
    }

    /// Bind array variable `name` for a task that uses it as `access`: the buffer and
    /// offset the kernel gets. Uploads only when the host holds the only fresh copy and
    /// the task reads.
    pub fn bind(&mut self, name: &str, arr: &HostArray, access: Access) -> Res<Bound> {
        self.shapes.insert(name.to_string(), arr.dims.clone());
        let (lo, hi) = arr.byte_range();
        if lo == hi {
            let k = self.empty_row()?;
            return Ok(Bound {
                buffer: k,
                offset: 0,
            });
        }
        let es = arr.elem_size() as i64;
        if access.writes() {
            // Copies that read these bytes are made before they change, and a pending
            // copy into them is moot for an overwrite or needed for a read-write.
            self.materialize_touching(lo, hi, false, true)?;
            if access == Access::Overwrite {
                self.lazy.retain(|c| !(c.dst.0 < hi && lo < c.dst.1));
            } else {
                self.materialize_touching(lo, hi, true, false)?;
            }
        } else if let Some(c) = self
            .lazy
            .iter()
            .find(|c| c.dst.0 == lo && c.dst.1 == hi)
            .copied()
        {
            // A read of a deferred copy reads its source's bytes.
            let k = self.row_for(c.src.0, c.src.1)?;
            self.send_to_device(k)?;
            let e = self.buffers[k].as_ref().expect("live");
            let offset = (arr.data as i64 - (c.dst.0 as i64 - c.src.0 as i64) - e.lo as i64) / es;
            self.note_var(name, lo, hi, k, offset);
            return Ok(Bound { buffer: k, offset });
        } else {
            self.materialize_touching(lo, hi, true, false)?;
        }
        let k = self.row_for(lo, hi)?;
        if access != Access::Overwrite {
            self.send_to_device(k)?;
        } else {
            let e = self.buffers[k].as_ref().expect("live");
            if (e.lo, e.hi) != (lo, hi) {
                // Part of a larger row: the rest must stay right on the device.
                self.send_to_device(k)?;
            }
        }
        let e = self.buffers[k].as_ref().expect("live");
        let offset = (arr.data as i64 - e.lo as i64) / es;
        self.note_var(name, lo, hi, k, offset);
        Ok(Bound { buffer: k, offset })
    }

    fn note_var(&mut self, name: &str, lo: usize, hi: usize, k: usize, offset: i64) {
        let e = self.buffers[k].as_ref().expect("live");
        self.vars.insert(
            name.to_string(),
            VarEntry {
                lo,
                hi,
                buffer: Some(k),
                offset,
                last_writer: e.last_writer,
                fresh: e.fresh,
            },
        );
    }

    /// A task named `name` was enqueued that may write `writes`: they become fresh on the
    /// device only. Returns the task's number.
    pub fn launched(&mut self, name: &str, writes: &[usize]) -> u64 {
        self.stats.tasks += 1;
        let id = self.stats.tasks;
        for k in writes {
            if let Some(e) = self.buffers[*k].as_mut() {
                if Some(*k) != self.empty {
                    e.fresh = Fresh::Device;
                    e.last_writer = Some(id);
                    e.written_on_device = true;
                }
            }
        }
        for v in self.vars.values_mut() {
            if let Some(b) = v.buffer {
                if writes.contains(&b) {
                    v.fresh = Fresh::Device;
                    v.last_writer = Some(id);
                }
            }
        }
        self.queued = true;
        self.tasks.push(TaskRecord {
            id,
            name: name.to_string(),
            writes: writes.to_vec(),
        });
        id
    }

    /// CPU code is about to read (and, when `write`, write) `arr`: its bytes are made
    /// fresh in host memory; a write makes the device copy stale.
    pub fn host_access(&mut self, arr: &HostArray, write: bool) -> Res<()> {
        let (lo, hi) = arr.byte_range();
        if lo == hi {
            return Ok(());
        }
        // A pending copy into these bytes is made now (the CPU sees them); one out of
        // them is made before the CPU changes them.
        self.materialize_touching(lo, hi, true, write)?;
        for r in self.overlapping(lo, hi) {
            if write {
                self.host_write_row(r)?;
            } else {
                self.bring_home(r)?;
            }
        }
        // Uploads still queued read host memory: wait before the CPU writes it.
        if write {
            self.wait_if_queued()?;
        }
        Ok(())
    }

    /// A new array `dst` equal to `src` (same bytes): deferred until either may be written
    /// or the CPU reads `dst`. Both must be contiguous ranges of the same length.
    pub fn lazy_copy(&mut self, dst: &HostArray, src: &HostArray) -> bool {
        let (d, s) = (dst.byte_range(), src.byte_range());
        let contiguous =
            |a: &HostArray, r: (usize, usize)| (r.1 - r.0) as i64 == a.len() * a.elem_size() as i64;
        if d.1 - d.0 != s.1 - s.0 || !contiguous(dst, d) || !contiguous(src, s) || d.0 == d.1 {
            return false;
        }
        // The copy's bytes are the source's bytes in the same order only when both have
        // the same strides (one layout).
        if dst.strides != src.strides || dst.data as usize != d.0 || src.data as usize != s.0 {
            return false;
        }
        // A deferred copy of a deferred copy reads the first source.
        let s = match self.lazy.iter().find(|c| c.dst == s) {
            Some(c) => c.src,
            None => s,
        };
        self.lazy.push(LazyCopy { dst: d, src: s });
        true
    }

    /// The section ends, and code after it reads only the bytes of `keep` (None: any):
    /// deferred copies into them are made and the others dropped; rows that hold none of
    /// them are dropped without bringing them home (dead temporaries, arrays no variable
    /// refers to any more); then [`Runtime::end_section`].
    pub fn end_section_keeping(&mut self, keep: Option<&[HostArray]>) -> Res<()> {
        if let Some(keep) = keep {
            let ranges: Vec<(usize, usize)> = keep
                .iter()
                .map(|a| a.byte_range())
                .filter(|r| r.0 < r.1)
                .collect();
            let kept = |lo: usize, hi: usize| ranges.iter().any(|r| r.0 < hi && lo < r.1);
            let mut k = 0;
            while k < self.lazy.len() {
                let c = self.lazy[k];
                if kept(c.dst.0, c.dst.1) {
                    self.materialize(k)?;
                } else {
                    k += 1;
                }
            }
            self.lazy.clear();
            for r in 0..self.buffers.len() {
                if Some(r) == self.empty {
                    continue;
                }
                let Some(e) = self.buffers[r].as_ref() else {
                    continue;
                };
                if !kept(e.lo, e.hi) {
                    if e.fresh == Fresh::Device {
                        self.stats.discarded_bytes += (e.hi - e.lo) as u64;
                    }
                    self.buffers[r] = None;
                }
            }
        }
        self.end_section()
    }

    /// The section ends: every byte only the device holds comes home, pending copies are
    /// made, and the variable and shape tables are cleared; the buffer table too unless
    /// residency is on (then every row stays, fresh on both sides, for the next section).
    pub fn end_section(&mut self) -> Res<()> {
        while !self.lazy.is_empty() {
            self.materialize(0)?;
        }
        for k in 0..self.buffers.len() {
            if self.buffers[k].is_some() && Some(k) != self.empty {
                self.bring_home(k)?;
            }
        }
        self.wait_if_queued()?;
        if !self.resident {
            for (k, b) in self.buffers.iter_mut().enumerate() {
                if Some(k) != self.empty {
                    *b = None;
                }
            }
        }
        self.vars.clear();
        self.shapes.clear();
        Ok(())
    }

    /// The device is given up (it ran out of memory or was lost): make host memory hold
    /// every array's freshest bytes so that CPU code can carry on, and empty every table.
    /// Rows only the device holds are downloaded while `download` is true and until one
    /// download fails; deferred copies are then made in host memory. What could not come
    /// home is answered: those bytes existed only on the device, and no CPU code can
    /// recompute them (the tasks that wrote them are past). Waits for both queues before
    /// returning, so that no upload still reads host memory the CPU is about to write.
    pub fn abandon(&mut self, mut download: bool) -> Vec<Lost> {
        let mut lost: Vec<Lost> = Vec::new();
        for k in 0..self.buffers.len() {
            if Some(k) == self.empty {
                continue;
            }
            let Some(e) = self.buffers[k].as_ref() else {
                continue;
            };
            if e.fresh != Fresh::Device {
                continue;
            }
            if download && self.bring_home(k).is_ok() {
                continue;
            }
            // After a failed download nothing the device holds is trusted.
            download = false;
            let e = self.buffers[k].as_ref().expect("live");
            lost.push(self.lost_range(e.lo, e.hi, e.last_writer));
        }
        let _ = self.dev.finish();
        let lazy = std::mem::take(&mut self.lazy);
        for c in lazy {
            if let Some(l) = lost.iter().find(|l| l.lo < c.src.1 && c.src.0 < l.hi) {
                let writer = l.writer.clone();
                let mut l = self.lost_range(c.dst.0, c.dst.1, None);
                l.writer = writer;
                lost.push(l);
                continue;
            }
            // SAFETY: both ranges are live host arrays of the same length, disjoint (a
            // deferred copy's source and its new array); the source's bytes are home.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    c.src.0 as *const u8,
                    c.dst.0 as *mut u8,
                    c.src.1 - c.src.0,
                );
            }
            self.stats.host_copies += 1;
        }
        self.buffers.clear();
        self.empty = None;
        self.vars.clear();
        self.shapes.clear();
        self.queued = false;
        lost
    }

    /// `[lo, hi)` described by the variables bound to it and the task that wrote it.
    fn lost_range(&self, lo: usize, hi: usize, writer: Option<u64>) -> Lost {
        let mut vars: Vec<String> = self
            .vars
            .iter()
            .filter(|(_, v)| v.lo < hi && lo < v.hi)
            .map(|(n, _)| n.clone())
            .filter(|n| !n.is_empty())
            .collect();
        vars.sort();
        let writer = writer.and_then(|id| {
            self.tasks
                .iter()
                .find(|t| t.id == id)
                .map(|t| t.name.clone())
        });
        Lost {
            lo,
            hi,
            vars,
            writer,
        }
    }

    /// For the placement model: of the bytes of `[lo, hi)`, how many the device lacks
    /// (a task there would upload them) and how many only the device holds (the CPU
    /// would download them). A pending deferred copy counts as on the device.
    pub fn bytes_to_move(&self, lo: usize, hi: usize) -> (u64, u64) {
        let (mut covered, mut device_lacks, mut host_lacks) = (0u64, 0u64, 0u64);
        for e in self.buffers.iter().flatten() {
            let (a, b) = (e.lo.max(lo), e.hi.min(hi));
            if a >= b {
                continue;
            }
            let n = (b - a) as u64;
            covered += n;
            match e.fresh {
                Fresh::Host => device_lacks += n,
                Fresh::Device => host_lacks += n,
                Fresh::Both => {}
            }
        }
        let pending = self.lazy.iter().any(|l| l.dst.0 < hi && lo < l.dst.1);
        let uncovered = ((hi - lo) as u64).saturating_sub(covered);
        if pending {
            (device_lacks, host_lacks + uncovered)
        } else {
            (device_lacks + uncovered, host_lacks)
        }
    }

    /// Whether any buffer may hold data the host lacks (a host read must sync).
    pub fn device_holds_anything(&self) -> bool {
        !self.lazy.is_empty()
            || self
                .buffers
                .iter()
                .flatten()
                .any(|e| e.fresh == Fresh::Device)
    }
}
