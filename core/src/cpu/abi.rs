//! The binary interface between Rust and generated code: `repr(C)` structures whose
//! layout the code generator mirrors, and the `extern "C"` run-time helpers that
//! generated code calls (mapped into the JIT by address, so no symbol lookup is needed).
//!
//! Calling convention of every generated internal function (see codegen):
//! `i32 f(ptr ctx, ptr out_0, ..., <params>)`: scalars as LLVM scalars (bool as `i1`),
//! arrays as `ptr` to [`ArrayDesc`]; results are written through the out pointers (bool
//! as one byte); 0 means OK, non-zero that an error was recorded in `ctx`.
//!
//! Threads: a [`CallCtx`] is used by one thread at a time. A parallel loop gives each
//! chunk of iterations a context of its own whose `shared_arena` points to the call's
//! arena behind a `Mutex` (see `cpu::parallel`); [`vr_cpu_alloc_array`] allocates there,
//! so every helper that generated code calls is safe from several threads at once.

use crate::runtime::error::{ErrorKind, VrError};
use crate::vrir::types::ScalarType;

/// One array argument as generated code sees it. `data` points at element (0, ..., 0);
/// `dims` and `strides` hold one `i64` per dimension, strides counted in elements (they
/// may be negative or zero). The descriptor and both vectors outlive the call.
#[repr(C)]
#[derive(Debug)]
pub struct ArrayDesc {
    pub data: *mut u8,
    pub dims: *const i64,
    pub strides: *const i64,
}

/// What went wrong, as the code generator encodes it in the `code` argument of
/// [`vr_cpu_record_error`].
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    OutOfBounds = 1,
    DivisionByZero = 2,
    InvalidCast = 3,
    ZeroStep = 4,
    MissingReturn = 5,
    Unassigned = 6,
    NegativeExponent = 7,
    RecursionTooDeep = 8,
    ZeroStepIndex = 9,
    /// `index`: the negative extent as evaluated.
    NegativeDimension = 10,
    /// The arena refused an allocation; its message is in [`Arena::failure`].
    AllocFailed = 11,
    /// `index` / `bound`: the two ranks; `note_values`: both shapes, one after the other;
    /// the note `matmul` words it as matmul's inner-extent mismatch.
    ShapeMismatch = 12,
    /// `index`: the `ReduceOp` (`amin` or `amax`).
    EmptyReduction = 13,
    /// A mask index whose length differs from its axis: `index` the length, `bound` the
    /// extent, `dim` the axis.
    MaskLength = 14,
    /// An array stored through an indexing whose extents differ from the selection's:
    /// `index` / `bound` the two ranks; `note_values`: both shapes, one after the other.
    SelectionShape = 15,
    /// A random draw failed (the host's generator refused); its message is in
    /// [`Arena::failure`]. Reported as `ErrorKind::Unsupported`.
    RandomFailed = 16,
    /// The parallel-loop runtime failed (see `cpu::parallel`); its message is in
    /// [`Arena::failure`]. Reported as `ErrorKind::Internal`.
    ParallelFailure = 32,
    /// The host's interrupt flag was set (see `cpu::interrupt`).
    Interrupted = 33,
    /// An offload engine reported an error; it is in `CallCtx::offload` (see
    /// `cpu::offload`).
    Offload = 34,
}

impl ErrorCode {
    pub fn from_i32(c: i32) -> Option<ErrorCode> {
        use ErrorCode::*;
        [
            OutOfBounds,
            DivisionByZero,
            InvalidCast,
            ZeroStep,
            MissingReturn,
            Unassigned,
            NegativeExponent,
            RecursionTooDeep,
            ZeroStepIndex,
            NegativeDimension,
            AllocFailed,
            ShapeMismatch,
            EmptyReduction,
            MaskLength,
            SelectionShape,
            RandomFailed,
            ParallelFailure,
            Interrupted,
            Offload,
        ]
        .into_iter()
        .find(|k| *k as i32 == c)
    }
}

/// Nested calls allowed before "recursion too deep" (the interpreter's limit).
pub const MAX_CALL_DEPTH: i64 = crate::interp::MAX_CALL_DEPTH as i64;

/// Per-call context: the call depth and the first error recorded by generated code.
/// Names point into constant strings of the compiled module, which outlives every call.
/// Generated code reads and writes `depth` (offset 0) and nothing else.
#[repr(C)]
#[derive(Debug)]
pub struct CallCtx {
    /// Nesting depth of generated functions; each function increments it on entry.
    pub depth: i64,
    /// 0 while no error was recorded, else an [`ErrorCode`].
    pub code: i32,
    /// Source line, or -1.
    pub line: i64,
    pub index: i64,
    pub bound: i64,
    /// Dimension (0-based), or -1.
    pub dim: i64,
    pub function: *const u8,
    pub function_len: usize,
    /// Variable name (empty when none).
    pub variable: *const u8,
    pub variable_len: usize,
    /// A constant text that completes the message: for out-of-bounds errors the shape of
    /// the access (`S` a scalar index, `Rab` a range with start present a = 1, stop
    /// present b = 1, `G` a gather, `M` a mask, comma-separated), whose values are in
    /// `note_values` (start, stop, step of a range; a gather's length and its first
    /// [`NOTE_GATHER_ITEMS`] items); for "recursion too deep" the callee's name.
    pub note: *const u8,
    pub note_len: usize,
    /// Copied at record time: generated code keeps them in its frame, gone after return.
    pub note_values: [i64; MAX_NOTE_VALUES],
    /// Storage of every array the call creates (never touched by generated code directly:
    /// only through [`vr_cpu_alloc_array`]).
    pub arena: Arena,
    /// Threads a parfor may use (1: parfor runs serially on the calling thread).
    pub threads: usize,
    /// Inside a parallel parfor (a worker's context, see `cpu::parallel`): the call's
    /// arena, shared by every worker; allocations go there under the lock, so arrays
    /// made by one iteration live until the end of the call. Null outside parfors.
    pub shared_arena: *const std::sync::Mutex<Arena>,
    /// Entries into a function's no-alias version during this call (see
    /// `codegen/entry_versions.rs`); only entry wrappers touch it.
    pub noalias_entries: u64,
    /// The offload engine's session for this call (`cpu::offload`); None in parfor
    /// workers and for modules compiled without an engine.
    pub offload: Option<Box<super::offload::OffloadCall>>,
    /// The host's random generator for this call (`cpu::random`); None: the process's
    /// built-in stream.
    pub random: Option<crate::runtime::rng::HostRandom>,
}

/// Values of a note kept (3 per range index, 9 per gather: enough for 10 dimensions).
pub const MAX_NOTE_VALUES: usize = 96;

/// Items of a gather index that an out-of-bounds message shows (the interpreter's limit).
pub const NOTE_GATHER_ITEMS: usize = 8;

/// How many values a note's shape names (see [`CallCtx::note`]).
fn note_value_count(shape: &str) -> usize {
    shape
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|item| {
            let b = item.as_bytes();
            if b[0] == b'S' {
                1
            } else if b[0] == b'G' {
                1 + NOTE_GATHER_ITEMS
            } else if b[0] == b'M' {
                0
            } else {
                1 + (b.get(1) == Some(&b'1')) as usize + (b.get(2) == Some(&b'1')) as usize
            }
        })
        .sum()
}

impl Default for CallCtx {
    fn default() -> Self {
        CallCtx {
            depth: 0,
            code: 0,
            line: -1,
            index: 0,
            bound: 0,
            dim: -1,
            function: std::ptr::null(),
            function_len: 0,
            variable: std::ptr::null(),
            variable_len: 0,
            note: std::ptr::null(),
            note_len: 0,
            note_values: [0; MAX_NOTE_VALUES],
            arena: Arena::default(),
            threads: 1,
            shared_arena: std::ptr::null(),
            noalias_entries: 0,
            offload: None,
            random: None,
        }
    }
}

impl CallCtx {
    /// The recorded error as the interpreter would report it, or None. `index_base` is
    /// the module's (for the range printed in out-of-bounds messages).
    pub fn error(&self, index_base: u8) -> Option<VrError> {
        let code = ErrorCode::from_i32(self.code)?;
        // SAFETY: the pointers were recorded from the module's constant strings, which
        // live as long as the compiled module that is running this call.
        let text = |p: *const u8, n: usize| -> String {
            if p.is_null() || n == 0 {
                String::new()
            } else {
                String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p, n) }).into_owned()
            }
        };
        let function = text(self.function, self.function_len);
        let note = text(self.note, self.note_len);
        let variable = text(self.variable, self.variable_len);
        let mut e = match code {
            ErrorCode::OutOfBounds => {
                let name = if variable.is_empty() {
                    "array"
                } else {
                    variable.as_str()
                };
                let lo = index_base as i64;
                let hi = self.bound + lo;
                let access = self.show_access(&note);
                let mut e = VrError::new(
                    ErrorKind::OutOfBounds,
                    format!(
                        "{name}[{access}]: index {} out of bounds {lo}..{hi} in dimension {}",
                        self.index, self.dim
                    ),
                );
                e.index = Some(self.index);
                e.bound = Some(self.bound);
                e.dim = u32::try_from(self.dim).ok();
                e
            }
            ErrorCode::DivisionByZero => {
                VrError::new(ErrorKind::DivisionByZero, "division by zero")
            }
            ErrorCode::InvalidCast => {
                // index: the value's f64 bits; bound / dim: source / target ScalarType.
                let x = f64::from_bits(self.index as u64);
                let ty = |k: i64| {
                    ScalarType::ALL
                        .get(k as usize)
                        .copied()
                        .unwrap_or(ScalarType::F64)
                };
                let (from, to) = (ty(self.bound), ty(self.dim));
                let shown = if from == ScalarType::F32 {
                    (x as f32).to_string()
                } else {
                    x.to_string()
                };
                VrError::runtime(format!(
                    "invalid cast: {from} value {shown} does not fit {to}"
                ))
            }
            ErrorCode::ZeroStep => VrError::runtime("zero step in a range"),
            ErrorCode::ZeroStepIndex => VrError::runtime("zero step in a range index"),
            ErrorCode::MissingReturn => {
                VrError::runtime("missing return: the function ended without returning its results")
            }
            ErrorCode::Unassigned => {
                VrError::runtime(format!("use of unassigned variable `{variable}`"))
            }
            ErrorCode::NegativeExponent => {
                VrError::runtime(format!("negative integer exponent {} in pow", self.index))
            }
            ErrorCode::NegativeDimension => {
                VrError::runtime(format!("negative dimension {}", self.index))
            }
            ErrorCode::AllocFailed => VrError::runtime(
                self.arena
                    .failure
                    .clone()
                    .unwrap_or_else(|| "cannot allocate an array".into()),
            ),
            ErrorCode::Offload => {
                // The engine's error carries every field already.
                return Some(
                    self.offload
                        .as_ref()
                        .and_then(|o| o.error.clone())
                        .unwrap_or_else(|| {
                            VrError::new(ErrorKind::Internal, "offload engine failed")
                        }),
                );
            }
            ErrorCode::RandomFailed => VrError::new(
                ErrorKind::Unsupported,
                self.arena
                    .failure
                    .clone()
                    .unwrap_or_else(|| "a random draw failed".into()),
            ),
            ErrorCode::Interrupted => VrError::new(
                ErrorKind::Interrupted,
                "interrupted: the host asked the call to stop (user interrupt)",
            ),
            ErrorCode::ParallelFailure => VrError::new(
                ErrorKind::Internal,
                format!(
                    "cpu backend: parallel loop: {}",
                    self.arena.failure.as_deref().unwrap_or("failed")
                ),
            ),
            ErrorCode::ShapeMismatch => {
                let (ra, rb) = (self.index.max(0) as usize, self.bound.max(0) as usize);
                let vals = &self.note_values;
                let shape = |r: std::ops::Range<usize>| -> Vec<usize> {
                    vals.get(r)
                        .unwrap_or(&[])
                        .iter()
                        .map(|d| *d as usize)
                        .collect()
                };
                let (sa, sb) = (shape(0..ra), shape(ra..ra + rb));
                let message = if note == crate::cpu::codegen::MATMUL_NOTE {
                    // Inner extents: A's last, B's first (as the interpreter words it).
                    let ka = sa.last().copied().unwrap_or(0);
                    let kb = sb.first().copied().unwrap_or(0);
                    format!(
                        "matmul of shapes {sa:?} and {sb:?}: inner extents {ka} and {kb} differ"
                    )
                } else {
                    format!("operands of shapes {sa:?} and {sb:?}")
                };
                VrError::new(ErrorKind::ShapeMismatch, message)
            }
            ErrorCode::MaskLength => {
                let name = if variable.is_empty() {
                    "array"
                } else {
                    variable.as_str()
                };
                let mut e = VrError::new(
                    ErrorKind::ShapeMismatch,
                    format!(
                        "{name}: mask of length {} for dimension {} of extent {}",
                        self.index, self.dim, self.bound
                    ),
                );
                e.bound = Some(self.bound);
                e.dim = u32::try_from(self.dim).ok();
                e
            }
            ErrorCode::SelectionShape => {
                let name = if variable.is_empty() {
                    "array"
                } else {
                    variable.as_str()
                };
                let (ra, rb) = (self.index.max(0) as usize, self.bound.max(0) as usize);
                let vals = &self.note_values;
                let shape = |r: std::ops::Range<usize>| -> Vec<usize> {
                    vals.get(r)
                        .unwrap_or(&[])
                        .iter()
                        .map(|d| *d as usize)
                        .collect()
                };
                VrError::new(
                    ErrorKind::ShapeMismatch,
                    format!(
                        "{name}: assigning an array of shape {:?} to a selection of shape {:?}",
                        shape(0..ra),
                        shape(ra..ra + rb)
                    ),
                )
            }
            ErrorCode::EmptyReduction => VrError::runtime(format!(
                "empty reduction: {} of an array with no elements",
                if self.index == crate::vrir::ast::ReduceOp::Min as i64 {
                    "amin"
                } else {
                    "amax"
                }
            )),
            ErrorCode::RecursionTooDeep => VrError::runtime(format!(
                "recursion too deep: calling `{note}` would exceed {MAX_CALL_DEPTH} nested calls"
            )),
        };
        if !variable.is_empty() {
            e = e.with_variable(&variable);
        }
        Some(
            e.with_function(&function)
                .with_line(u32::try_from(self.line).ok()),
        )
    }
}

impl CallCtx {
    /// The access as the program wrote it (`2, 0:_:-1`), from the note's shape and values,
    /// formatted as the interpreter does.
    fn show_access(&self, shape: &str) -> String {
        let mut k = 0usize;
        let mut next = || {
            let v = self.note_values.get(k).copied().unwrap_or(0);
            k += 1;
            v
        };
        let mut items = Vec::new();
        for item in shape.split(',').filter(|s| !s.is_empty()) {
            let b = item.as_bytes();
            if b[0] == b'S' {
                items.push(next().to_string());
            } else if b[0] == b'G' {
                let n = next();
                let shown: Vec<String> =
                    (0..NOTE_GATHER_ITEMS).map(|_| next().to_string()).collect();
                items.push(if n <= NOTE_GATHER_ITEMS as i64 {
                    format!("[{}]", shown[..n.max(0) as usize].join(", "))
                } else {
                    format!("[{n} indices]")
                });
            } else if b[0] == b'M' {
                items.push("mask".to_string());
            } else {
                let start = (b.get(1) == Some(&b'1')).then(&mut next);
                let stop = (b.get(2) == Some(&b'1')).then(&mut next);
                let step = next();
                let end = |x: Option<i64>| x.map_or("_".to_string(), |v| v.to_string());
                items.push(if step == 1 {
                    format!("{}:{}", end(start), end(stop))
                } else {
                    format!("{}:{}:{step}", end(start), end(stop))
                });
            }
        }
        items.join(", ")
    }
}

/// The constant part of a check site's error, one record per distinct site in the
/// compiled module (`codegen::CodeGen::error_site`): what [`vr_cpu_record_error`] takes
/// apart from the context and the values known only at run time.
#[repr(C)]
#[derive(Debug)]
pub struct ErrorSite {
    pub code: i32,
    pub function: *const u8,
    pub function_len: i64,
    pub line: i64,
    pub variable: *const u8,
    pub variable_len: i64,
    pub note: *const u8,
    pub note_len: i64,
}

/// Called by generated code when a run-time check fails: [`vr_cpu_record_error`] with the
/// constant fields read from the site's record. Why a record: compile latency (issue 18).
/// A call of 13 arguments per check site (R growcut has 258 before optimization) was a
/// large part of the code LLVM's passes, instruction selection and register allocation
/// visit; this call has 6, the constants behind one pointer.
///
/// # Safety
/// `ctx` as for [`vr_cpu_record_error`]; `site` is null or a record of the compiled
/// module (its strings constants of that module).
pub unsafe extern "C" fn vr_cpu_record_error_at(
    ctx: *mut CallCtx,
    site: *const ErrorSite,
    index: i64,
    bound: i64,
    dim: i64,
    note_values: *const i64,
) {
    let Some(s) = site.as_ref() else { return };
    vr_cpu_record_error(
        ctx,
        s.code,
        s.function,
        s.function_len,
        s.line,
        s.variable,
        s.variable_len,
        index,
        bound,
        dim,
        s.note,
        s.note_len,
        note_values,
    );
}

/// Called by generated code when a run-time check fails. Keeps the first error only (a
/// caller that propagates a failed status never records a second one, but be safe).
///
/// # Safety
/// `ctx` is the [`CallCtx`] handed to the entry wrapper; the strings are constants of the
/// compiled module.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn vr_cpu_record_error(
    ctx: *mut CallCtx,
    code: i32,
    function: *const u8,
    function_len: i64,
    line: i64,
    variable: *const u8,
    variable_len: i64,
    index: i64,
    bound: i64,
    dim: i64,
    note: *const u8,
    note_len: i64,
    note_values: *const i64,
) {
    let Some(ctx) = ctx.as_mut() else { return };
    if ctx.code != 0 {
        return;
    }
    *ctx = CallCtx {
        arena: std::mem::take(&mut ctx.arena),
        threads: ctx.threads,
        shared_arena: ctx.shared_arena,
        noalias_entries: ctx.noalias_entries,
        offload: ctx.offload.take(),
        random: ctx.random,
        depth: ctx.depth,
        code,
        line,
        index,
        bound,
        dim,
        function,
        function_len: function_len.max(0) as usize,
        variable,
        variable_len: variable_len.max(0) as usize,
        note,
        note_len: note_len.max(0) as usize,
        note_values: [0; MAX_NOTE_VALUES],
    };
    let shapes = [
        ErrorCode::ShapeMismatch as i32,
        ErrorCode::SelectionShape as i32,
    ];
    if shapes.contains(&ctx.code) && !note_values.is_null() {
        let n = (index.max(0) + bound.max(0)).min(MAX_NOTE_VALUES as i64) as usize;
        ctx.note_values[..n].copy_from_slice(std::slice::from_raw_parts(note_values, n));
    }
    if ctx.code == ErrorCode::OutOfBounds as i32 && !note.is_null() && !note_values.is_null() {
        let shape = std::slice::from_raw_parts(note, ctx.note_len);
        let n = note_value_count(std::str::from_utf8(shape).unwrap_or("")).min(MAX_NOTE_VALUES);
        ctx.note_values[..n].copy_from_slice(std::slice::from_raw_parts(note_values, n));
    }
}

/// Bytes one call may allocate by default before failing with a run-time error.
pub const DEFAULT_ALLOC_LIMIT: u64 = 8 << 30;

/// Alignment of every arena block (a cache line; enough for any vector load).
const ARENA_ALIGN: usize = 64;

/// The storage of the arrays one top-level call creates: zeroed, 64-byte-aligned blocks,
/// each a descriptor, its dims and strides, then the elements. Everything is freed when
/// the arena is dropped, at the end of the call (not earlier: the known limit of this
/// design, bounded by `limit`).
#[derive(Debug)]
pub struct Arena {
    /// Each block, its layout, and the payload's bytes (those asked for: a large block
    /// taken back from `block_pool` may be larger).
    blocks: Vec<(std::ptr::NonNull<u8>, std::alloc::Layout, usize)>,
    /// Bytes allocated so far in this call.
    pub allocated: u64,
    /// Most bytes the call may allocate.
    pub limit: u64,
    /// Why the last allocation failed (read by [`CallCtx::error`]).
    pub failure: Option<String>,
}

impl Default for Arena {
    fn default() -> Self {
        Arena {
            blocks: Vec::new(),
            allocated: 0,
            limit: DEFAULT_ALLOC_LIMIT,
            failure: None,
        }
    }
}

// SAFETY: the blocks are plain heap memory owned by the arena alone; a parallel parfor
// hands the arena from thread to thread behind a Mutex (see `cpu::parallel`).
unsafe impl Send for Arena {}

/// Blocks of at least this many bytes are mapped from the kernel by `block_pool` (whose
/// pages are zero already, where an aligned `alloc_zeroed` zeroes every byte itself,
/// touching each page twice) and kept there for the next call when freed.
pub(crate) const LARGE_BLOCK: usize = 4 << 20;

/// Free an arena block (one of [`Arena`]'s, or one detached from it): a large block goes
/// back to `block_pool`, which keeps it for a later call or unmaps it.
///
/// # Safety
/// `block` was allocated by an arena with `layout` and is freed once.
pub unsafe fn free_block(block: std::ptr::NonNull<u8>, layout: std::alloc::Layout) {
    if layout.align() == super::block_pool::HUGE_PAGE {
        super::block_pool::give(block, layout);
    } else {
        std::alloc::dealloc(block.as_ptr(), layout);
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for (p, layout, _) in self.blocks.drain(..) {
            // SAFETY: allocated by `alloc` with exactly this layout, freed once.
            unsafe { free_block(p, layout) };
        }
    }
}

/// Bytes from a block's start to its elements: descriptor, dims, strides, padding.
pub fn arena_header_bytes(ndims: usize) -> usize {
    (std::mem::size_of::<ArrayDesc>() + 16 * ndims).next_multiple_of(ARENA_ALIGN)
}

impl Arena {
    /// Take over `other`'s blocks and count their bytes (a parfor worker's arena merged
    /// into the call's: its arrays live until the end of the call).
    pub fn absorb(&mut self, mut other: Arena) {
        self.allocated = self.allocated.saturating_add(other.allocated);
        self.blocks.append(&mut other.blocks);
    }

    /// Move this arena's blocks (and their byte count) into a new arena, leaving the
    /// limit and the failure message here.
    pub fn take_blocks(&mut self) -> Arena {
        let mut taken = Arena::default();
        taken.blocks = std::mem::take(&mut self.blocks);
        taken.allocated = std::mem::take(&mut self.allocated);
        taken
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// A zeroed block of `bytes`, or the reason why not (over the limit, out of memory).
    fn alloc(&mut self, bytes: usize) -> Result<*mut u8, String> {
        let total = self.allocated.saturating_add(bytes as u64);
        if total > self.limit {
            return Err(format!(
                "compiled code allocated more than {} bytes in one call",
                self.limit
            ));
        }
        let cannot = || format!("cannot allocate {bytes} bytes");
        let (p, layout) = if bytes >= LARGE_BLOCK {
            super::block_pool::take(bytes)
                .or_else(|| super::block_pool::map(bytes))
                .ok_or_else(cannot)?
        } else {
            let layout =
                std::alloc::Layout::from_size_align(bytes.max(1), ARENA_ALIGN).map_err(|_| cannot())?;
            // SAFETY: the layout has a non-zero size.
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            (std::ptr::NonNull::new(p).ok_or_else(cannot)?, layout)
        };
        self.blocks.push((p, layout, bytes));
        self.allocated = total;
        Ok(p.as_ptr())
    }

    /// Take the block holding address `p` out of the arena: the caller now owns it and
    /// frees it with [`free_block`] (the C API hands result arrays to hosts this way,
    /// without a copy).
    pub fn detach_block(&mut self, p: *const u8) -> Option<(std::ptr::NonNull<u8>, std::alloc::Layout)> {
        let (k, _, _) = self.block_of(p)?;
        let (block, layout, _) = self.blocks.swap_remove(k);
        Some((block, layout))
    }

    /// The block holding address `p`: its number, where its payload (the descriptor
    /// written by [`Self::new_array`], then the elements) starts, and the payload's bytes.
    pub fn block_of(&self, p: *const u8) -> Option<(usize, *const u8, usize)> {
        let a = p as usize;
        self.blocks.iter().enumerate().find_map(|(k, (b, _, len))| {
            let (start, len) = (b.as_ptr() as usize, *len);
            (a >= start && a <= start + len).then_some((k, start as *const u8, len))
        })
    }

    /// A new contiguous array of `dims` (each checked non-negative by the caller) with
    /// `elem_size`-byte elements, column-major when `col`, else row-major: its descriptor
    /// (in the same block), or the reason why not.
    pub(crate) fn new_array(
        &mut self,
        dims: &[i64],
        elem_size: usize,
        col: bool,
    ) -> Result<*mut ArrayDesc, String> {
        let udims: Vec<usize> = dims.iter().map(|d| *d as usize).collect();
        let count = crate::interp::element_count(&udims).map_err(|e| e.message)?;
        let header = arena_header_bytes(dims.len());
        let bytes = count
            .checked_mul(elem_size)
            .and_then(|b| b.checked_add(header))
            .ok_or_else(|| format!("array of dimensions {udims:?} is too large"))?;
        let block = self.alloc(bytes)?;
        let layout = if col {
            crate::vrir::types::Layout::Col
        } else {
            crate::vrir::types::Layout::Row
        };
        let strides = crate::runtime::value::contiguous_strides(&udims, layout);
        let n = dims.len();
        // SAFETY: the block holds the header (descriptor, n dims, n strides) and is
        // 64-byte aligned, so every field is aligned.
        unsafe {
            let desc = block as *mut ArrayDesc;
            let dims_p = block.add(std::mem::size_of::<ArrayDesc>()) as *mut i64;
            let strides_p = dims_p.add(n);
            for k in 0..n {
                *dims_p.add(k) = dims[k];
                *strides_p.add(k) = strides[k] as i64;
            }
            *desc = ArrayDesc {
                data: block.add(header),
                dims: dims_p,
                strides: strides_p,
            };
            Ok(desc)
        }
    }
}

/// Called by generated code to create an array: zeroed storage of `ndims` extents at
/// `dims` (checked non-negative), `elem_size` bytes each, column-major when `col` is
/// non-zero. Returns its descriptor, or null after noting why in the arena (the caller
/// then records `ErrorCode::AllocFailed` with its function and line).
///
/// # Safety
/// `ctx` is the call's [`CallCtx`]; `dims` points to `ndims` values.
pub unsafe extern "C" fn vr_cpu_alloc_array(
    ctx: *mut CallCtx,
    ndims: i64,
    dims: *const i64,
    elem_size: i64,
    col: i32,
) -> *mut ArrayDesc {
    let Some(ctx) = ctx.as_mut() else {
        return std::ptr::null_mut();
    };
    let dims = if ndims > 0 {
        std::slice::from_raw_parts(dims, ndims as usize)
    } else {
        &[]
    };
    let made = if ctx.shared_arena.is_null() {
        ctx.arena
            .new_array(dims, elem_size.max(1) as usize, col != 0)
    } else {
        // A parfor worker: the call's arena, shared by all workers (see `shared_arena`).
        let shared = &*ctx.shared_arena;
        let mut arena = shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        arena.new_array(dims, elem_size.max(1) as usize, col != 0)
    };
    match made {
        Ok(d) => d,
        Err(msg) => {
            ctx.arena.failure = Some(msg);
            std::ptr::null_mut()
        }
    }
}

/// `n` copies of the `size`-byte element at `elem` (1, 4, 8 or 16 bytes: the memory
/// types of VRIR's scalars) into `data`: the body of `(fill T v dims...)` and `ones`
/// (`codegen/alloc.rs`). A call, not an inline loop per `fill`: R's recycling guards put
/// one `fill` on each side of every vector operation, and LLVM vectorized each inline
/// loop (compile latency, issue 18). The same bytes are stored either way.
///
/// # Safety
/// `data` holds `n` elements of `size` bytes; `elem` points to one.
pub unsafe extern "C" fn vr_cpu_fill(data: *mut u8, n: i64, elem: *const u8, size: i64) {
    unsafe fn fill_with<T: Copy>(data: *mut u8, n: usize, elem: *const u8) {
        let v = (elem as *const T).read_unaligned();
        let p = data as *mut T;
        for i in 0..n {
            p.add(i).write_unaligned(v);
        }
    }
    let n = n.max(0) as usize;
    match size {
        1 => std::ptr::write_bytes(data, *elem, n),
        2 => fill_with::<u16>(data, n, elem),
        4 => fill_with::<u32>(data, n, elem),
        8 => fill_with::<u64>(data, n, elem),
        16 => fill_with::<u128>(data, n, elem),
        _ => {
            let size = size.max(0) as usize;
            for i in 0..n {
                std::ptr::copy_nonoverlapping(elem, data.add(i * size), size);
            }
        }
    }
}

/// Integer power with wrapping multiplication, for a non-negative exponent (the
/// generated code checks the sign first). Arithmetic modulo 2^64 is a ring, so squaring
/// gives exactly the wrapped value of the mathematical power.
pub extern "C" fn vr_cpu_ipow_i64(base: i64, mut exp: i64) -> i64 {
    let (mut acc, mut b) = (1i64, base);
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        exp >>= 1;
    }
    acc
}

pub extern "C" fn vr_cpu_ipow_i32(base: i32, exp: i32) -> i32 {
    vr_cpu_ipow_i64(base as i64, exp as i64) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small and large arrays (the large mapped by block_pool): the
    /// descriptor at the payload's start, elements 64-byte aligned and zero, the block
    /// found from the elements' address with the payload's exact bytes, and a detached
    /// large block freed with the layout it was made with.
    #[test]
    fn arena_blocks_small_and_large() {
        let mut arena = Arena::default();
        for n in [10i64, (LARGE_BLOCK / 8) as i64 + 7] {
            let desc = arena.new_array(&[n], 8, true).expect("allocates");
            // SAFETY: the descriptor and its n elements were just made by the arena.
            let (data, dims) = unsafe { ((*desc).data, *(*desc).dims) };
            assert_eq!(dims, n);
            assert_eq!(data as usize % ARENA_ALIGN, 0);
            let zeros = unsafe { std::slice::from_raw_parts(data as *const f64, n as usize) };
            assert!(zeros.iter().all(|x| *x == 0.0));
            let (_, start, bytes) = arena.block_of(data).expect("its block");
            assert_eq!(start, desc as *const u8);
            assert_eq!(bytes, arena_header_bytes(1) + 8 * n as usize);
        }
        let (block, _, _) = *arena.blocks.last().expect("two blocks");
        let (p, layout) = arena.detach_block(block.as_ptr()).expect("detached");
        assert_eq!(p.as_ptr() as usize % (2 << 20), 0, "a large block starts on a 2 MiB boundary");
        // SAFETY: the block and layout the arena made; it no longer owns it.
        unsafe { free_block(p, layout) };
        assert_eq!(arena.blocks.len(), 1);
    }

    /// A large block freed by one call's arena is taken back by the next allocation of
    /// its size (the pool's reuse count grows: by this test's allocation, or by another
    /// test's that took the block first), and comes back zeroed although the first
    /// call left every byte set.
    #[test]
    fn large_blocks_kept_for_the_next_call_come_back_zeroed() {
        let n = (LARGE_BLOCK / 8) as i64 + 1001;
        let elements = |arena: &mut Arena| {
            let desc = arena.new_array(&[n], 8, true).expect("allocates");
            // SAFETY: the arena just made the descriptor and its n elements.
            unsafe { std::slice::from_raw_parts_mut((*desc).data as *mut u64, n as usize) }
        };
        let mut first = Arena::default();
        elements(&mut first).fill(u64::MAX);
        let (reused_before, _, _) = super::super::block_pool::stats();
        drop(first);
        let mut second = Arena::default();
        let again = elements(&mut second);
        assert!(again.iter().all(|x| *x == 0), "a kept block is zeroed again");
        let (reused_after, _, _) = super::super::block_pool::stats();
        assert!(reused_after > reused_before, "{reused_before} -> {reused_after}");
        let (_, _, bytes) = second.block_of(again.as_ptr() as *const u8).expect("its block");
        assert_eq!(bytes, arena_header_bytes(1) + 8 * n as usize, "the bytes asked for");
    }

    /// Every code the generator can emit decodes to an error (a forgotten one would come
    /// back as "failed without recording an error").
    #[test]
    fn every_error_code_decodes() {
        for c in (1..=16).chain([32, 33, 34]) {
            let code = ErrorCode::from_i32(c).expect("known code");
            assert_eq!(code as i32, c);
            let ctx = CallCtx {
                code: c,
                ..CallCtx::default()
            };
            assert!(ctx.error(0).is_some());
        }
        assert_eq!(ErrorCode::from_i32(17), None);
    }
}
