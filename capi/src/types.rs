//! The `repr(C)` types of the ABI: status codes, type codes, the array descriptor, call
//! values, the host hooks and the error record. Values that come *from* the host (type
//! codes, layouts, flags) are plain integers with named constants, never Rust enums, so
//! that an unknown value from C is an error we report, not undefined behaviour.

use std::os::raw::{c_char, c_void};

/// Every entry point returns one of these. `VR_OK` is 0; anything else leaves a
/// thread-local error readable through `vr_last_error`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VrStatus {
    VR_OK = 0,
    /// Malformed VRIR text or JSON.
    VR_PARSE_ERROR = 1,
    /// The verifier rejected the module, or the argument types do not match the signature.
    VR_TYPE_ERROR = 2,
    /// A construct, value, backend or language this build cannot compile or run.
    VR_UNSUPPORTED = 3,
    VR_OUT_OF_BOUNDS = 4,
    VR_DIVISION_BY_ZERO = 5,
    /// Operand shapes that do not conform.
    VR_SHAPE_MISMATCH = 6,
    /// Any other run-time failure of the program (invalid cast, empty reduction, ...).
    VR_RUNTIME_ERROR = 7,
    /// Wrong arguments handed to the API (null pointers, counts, types at call time).
    VR_INVALID_ARGUMENT = 8,
    VR_DEVICE_ERROR = 9,
    /// A bug in Velociraptor (a caught panic included).
    VR_INTERNAL_ERROR = 10,
    /// The host interrupted the call (`vr_request_interrupt`, or its own flag).
    VR_INTERRUPTED = 11,
}

/// Most dimensions an array crossing the ABI may have.
pub const VR_MAX_NDIMS: usize = 16;

/// Element types (`VrArray::elem`, `VrValue::elem`, `VrType::elem`).
pub const VR_BOOL: i32 = 0;
pub const VR_I32: i32 = 1;
pub const VR_I64: i32 = 2;
pub const VR_F32: i32 = 3;
pub const VR_F64: i32 = 4;
pub const VR_C64: i32 = 5;
pub const VR_C128: i32 = 6;

/// Layouts (`VrArray::layout`, `VrType::layout`).
pub const VR_LAYOUT_ROW: i32 = 0;
pub const VR_LAYOUT_COL: i32 = 1;
pub const VR_LAYOUT_STRIDED: i32 = 2;

/// `VrArray::flags`: compiled code may write the elements.
pub const VR_ARRAY_WRITEABLE: u32 = 1;
/// `VrArray::flags`: the host vouches that the elements hold what they held when it last
/// passed this memory with this flag, unless it has called `vr_array_changed` on them
/// since (before writing or freeing them): a device copy an earlier `backend=gpu` call
/// left may be reused instead of uploading again. Ignored for arguments the function
/// may write, and for ones that overlap a writable argument.
pub const VR_ARRAY_STABLE: u32 = 2;

/// `VrValue::kind` and `VrType::kind`.
pub const VR_KIND_SCALAR: i32 = 0;
pub const VR_KIND_ARRAY: i32 = 1;

/// `VrHostHooks::arg_convention`.
pub const VR_BY_REFERENCE: i32 = 0;
pub const VR_BY_VALUE: i32 = 1;

/// `VrHostHooks::random` kinds of draw (R's C functions in parentheses).
/// Uniform on the open interval (0, 1) (`unif_rand()`); `arg` unused.
pub const VR_RANDOM_UNIF: i32 = 0;
/// Standard normal (`norm_rand()`); `arg` unused.
pub const VR_RANDOM_NORM: i32 = 1;
/// Standard exponential (`exp_rand()`); `arg` unused.
pub const VR_RANDOM_EXP: i32 = 2;
/// A whole number uniform on 0 ... ceil(arg) - 1, as a double (`R_unif_index(arg)`).
pub const VR_RANDOM_INDEX: i32 = 3;

/// `vr_function_dump` formats.
pub const VR_DUMP_VRIR_TEXT: i32 = 0;
pub const VR_DUMP_VRIR_JSON: i32 = 1;
pub const VR_DUMP_LLVM_IR: i32 = 2;
pub const VR_DUMP_EXPLAIN: i32 = 3;

/// `vr_module_load` formats.
pub const VR_FORMAT_AUTO: i32 = 0;
pub const VR_FORMAT_TEXT: i32 = 1;
pub const VR_FORMAT_JSON: i32 = 2;

/// An array in host memory. `data` points at element (0, ..., 0); element
/// (i0, ..., ik) is at `data + sum(i_j * strides[j]) * element size` (strides in
/// elements, negative or zero allowed). Only the first `ndims` entries of `dims` and
/// `strides` are read. Bool elements are one byte, 0 or 1; complex ones two floats.
/// `owner` is the host's own handle on the array (an R SEXP, a Python object...),
/// never dereferenced by the library; it is handed back to the hooks.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VrArray {
    pub data: *mut c_void,
    pub elem: i32,
    pub ndims: i32,
    pub dims: [i64; VR_MAX_NDIMS],
    pub strides: [i64; VR_MAX_NDIMS],
    /// `VR_LAYOUT_ROW` / `VR_LAYOUT_COL`: contiguous in that order (strides must agree);
    /// `VR_LAYOUT_STRIDED`: any strides.
    pub layout: i32,
    /// `VR_ARRAY_WRITEABLE` or 0.
    pub flags: u32,
    pub owner: *mut c_void,
}

/// The bits of a scalar; which member is meant follows from the element type.
#[repr(C)]
#[derive(Clone, Copy)]
pub union VrScalar {
    /// Bool: 0 or 1.
    pub as_bool: u8,
    pub as_i32: i32,
    pub as_i64: i64,
    pub as_f32: f32,
    pub as_f64: f64,
    /// Complex: re then im, as every host stores complex numbers.
    pub as_c64: [f32; 2],
    pub as_c128: [f64; 2],
}

/// One argument or result: a scalar (`kind == VR_KIND_SCALAR`, `elem` and `scalar`) or an
/// array (`kind == VR_KIND_ARRAY`, `array`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct VrValue {
    pub kind: i32,
    pub elem: i32,
    pub scalar: VrScalar,
    pub array: VrArray,
}

/// A parameter or result type: a scalar of `elem`, or an array of `elem`, `ndims`
/// dimensions and `layout`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VrType {
    pub kind: i32,
    pub elem: i32,
    pub ndims: i32,
    pub layout: i32,
}

/// Allocate a result array: `out` arrives with `elem`, `ndims`, `dims` and `layout`
/// filled in; the hook sets `data` (room for every element; may be null when there are
/// none), `strides` (in elements; any strides) and `owner`, and returns 0 (non-zero:
/// the call fails with VR_RUNTIME_ERROR "the host could not allocate ...").
pub type VrAllocArrayFn = Option<unsafe extern "C" fn(user_data: *mut c_void, out: *mut VrArray) -> i32>;
/// Free an array `alloc_array` returned, when a failing call does not hand it out.
pub type VrReleaseArrayFn = Option<unsafe extern "C" fn(user_data: *mut c_void, array: *mut VrArray)>;
/// Take / drop one reference on a host object (a result that is a view of an argument
/// shares the argument's owner).
pub type VrRefFn = Option<unsafe extern "C" fn(user_data: *mut c_void, owner: *mut c_void)>;
/// Told when a call fails, after the library undid what it did for that call (released
/// and decref'ed partial results); `status` is the call's status.
pub type VrOnErrorFn = Option<unsafe extern "C" fn(user_data: *mut c_void, status: VrStatus)>;
/// Draw one random number of `kind` (`VR_RANDOM_*`; `arg` is the bound of
/// `VR_RANDOM_INDEX`) from the host's generator into `out` and return 0; non-zero
/// refuses (the call fails with VR_UNSUPPORTED naming the draw). Called once per draw,
/// in program order, on the thread that called `vr_call` (draws never run in parallel
/// code).
pub type VrRandomFn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, kind: i32, arg: f64, out: *mut f64) -> i32>;

/// The glue a host registers on a context (`vr_context_set_hooks`). Every hook may be
/// null; hooks may be called from any thread that calls a compiled function, at the
/// same time, so they must be thread-safe (or the host calls from one thread only).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct VrHostHooks {
    pub user_data: *mut c_void,
    /// Null: result arrays come from the library's allocator; free them with
    /// `vr_array_free`.
    pub alloc_array: VrAllocArrayFn,
    pub release_array: VrReleaseArrayFn,
    pub incref: VrRefFn,
    pub decref: VrRefFn,
    pub on_error: VrOnErrorFn,
    /// `VR_BY_REFERENCE` (compiled code writes the caller's arrays) or `VR_BY_VALUE`
    /// (a parameter the function may write is copied before the call; the caller's
    /// array never changes).
    pub arg_convention: i32,
    /// Null: random draws (`runif`, `rnorm`, ... compiled) come from the library's
    /// built-in stream, R's default generator (seed it with `vr_random_seed`).
    pub random: VrRandomFn,
}

/// The last error of this thread (`vr_last_error`). Strings stay valid until the next
/// API call on this thread; null when the error does not name one.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VrErrorInfo {
    pub status: VrStatus,
    pub message: *const c_char,
    pub function: *const c_char,
    pub variable: *const c_char,
    /// Source line, or -1.
    pub line: i64,
    /// Whether `index` / `bound` / `dim` hold a value.
    pub has_index: i32,
    pub index: i64,
    pub has_bound: i32,
    pub bound: i64,
    /// 0-based dimension, or -1.
    pub dim: i64,
}

/// Counters of a context's compile cache (`vr_context_stats`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VrCacheStats {
    /// Functions compiled by LLVM.
    pub compiles: u64,
    /// Requests answered from this process's specialization cache.
    pub memory_hits: u64,
    /// Requests answered with machine code from the on-disk cache.
    pub disk_hits: u64,
    /// Entries written to the on-disk cache.
    pub disk_writes: u64,
    /// On-disk entries found corrupt, truncated or foreign (then rebuilt).
    pub disk_rejects: u64,
    /// Cache directories and entries not used because someone other than this user (or
    /// root) could have written them; `vr_context_cache_status` says why.
    pub disk_untrusted: u64,
}

impl std::fmt::Debug for VrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("VrValue");
        d.field("kind", &self.kind).field("elem", &self.elem);
        if self.kind == VR_KIND_ARRAY {
            d.field("array", &self.array);
        } else {
            // SAFETY: every member is plain bits; shown as raw bits.
            d.field("scalar_bits", &unsafe { self.scalar.as_i64 });
        }
        d.finish()
    }
}
