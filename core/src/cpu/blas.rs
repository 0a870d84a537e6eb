//! OpenBLAS loaded at run time: the fast path of `matmul` for f32, f64, c64 and c128.
//!
//! Why: the `gemm` crate reaches about 0.75 of OpenBLAS's `dgemm` at n = 2000 on this
//! project's machine (bench/RESULTS.md), below issue 3's 0.8 target; calling OpenBLAS
//! itself gives its speed by construction. It is loaded with `dlopen` (libloading), not
//! linked, so a machine without it still works: every product then goes to the `gemm`
//! crate ([`crate::cpu::matmul`]), which also stays the kernel for operands BLAS cannot
//! take (no unit stride in either dimension, negative or zero strides, extents beyond
//! `i32`).
//!
//! Libraries tried, in order: `libopenblas.so.0` (Debian's libopenblas0, installed by
//! scripts/setup.sh), then `libblas.so.3` if it is OpenBLAS under another name (Debian's
//! alternatives; recognised by `openblas_set_num_threads`). Any other BLAS is skipped: the
//! reference (netlib) BLAS is several times slower than the `gemm` crate, and a BLAS whose
//! thread count we cannot set would break the serial backend's promise of one thread.
//! `VR_BLAS=off` (or `0`, `none`) skips loading: the `gemm` crate does every product.
//!
//! Threads (the decision issue 3 asks to write down): the `cpu` backend calls BLAS with
//! one thread (`openblas_set_num_threads(1)` before the call); `cpu-par` with the call's
//! thread count (`VR_THREADS` or the API, default every core), except inside a parfor
//! worker (the pool is already busy: one thread there) and for products below
//! [`crate::cpu::matmul`]'s parallel threshold. OpenBLAS's thread count is one global
//! setting, so setting it and calling `?gemm` happen under one lock; a caller that finds
//! the lock taken (another thread is inside BLAS, e.g. matmuls in parallel parfor
//! iterations) does not wait but uses the `gemm` crate. Another user of the same
//! OpenBLAS in the process (a host that links it, as R may) sees the count we set last.
//!
//! Results: `?gemm` adds in its own order and may fuse multiply-adds, as the `gemm` crate
//! does; docs/vrir-semantics.md leaves the order of a float matmul's additions unspecified.

use libloading::Library;
use num_complex::Complex;
use std::ffi::c_void;
use std::sync::{Mutex, OnceLock};

/// CBLAS enumeration values (cblas.h), also used by `vr-bench-matmul`.
pub const CBLAS_ROW_MAJOR: i32 = 101;
pub const CBLAS_COL_MAJOR: i32 = 102;
pub const CBLAS_NO_TRANS: i32 = 111;
pub const CBLAS_TRANS: i32 = 112;

/// `cblas_?gemm`: alpha and beta of type `S`, matrices of elements `P`.
pub type Gemm<S, P> = unsafe extern "C" fn(
    i32,
    i32,
    i32,
    i32,
    i32,
    i32,
    S,
    *const P,
    i32,
    *const P,
    i32,
    S,
    *mut P,
    i32,
);

/// `cblas_sgemm` / `cblas_dgemm`: alpha and beta by value.
pub type RealGemm<T> = Gemm<T, T>;

/// `cblas_cgemm` / `cblas_zgemm`: alpha and beta by pointer.
type ComplexGemm = Gemm<*const c_void, c_void>;

/// `openblas_set_num_threads`.
pub type SetThreads = unsafe extern "C" fn(i32);

/// The loaded library and the entries `matmul` uses.
pub struct Blas {
    /// Kept open for the process: the function pointers below point into it.
    _lib: Library,
    /// The file name it was loaded from (reported by the benchmark).
    pub name: &'static str,
    sgemm: RealGemm<f32>,
    dgemm: RealGemm<f64>,
    cgemm: ComplexGemm,
    zgemm: ComplexGemm,
    set_threads: SetThreads,
    /// Held while the thread count is set and a product runs.
    in_use: Mutex<()>,
}

/// The BLAS of this process, loaded on first use; `None` when none fits (see the module
/// doc), and then the `gemm` crate does every product.
pub fn blas() -> Option<&'static Blas> {
    static LOADED: OnceLock<Option<Blas>> = OnceLock::new();
    LOADED.get_or_init(load).as_ref()
}

fn disabled_by_env() -> bool {
    std::env::var("VR_BLAS")
        .map(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "none"))
        .unwrap_or(false)
}

fn load() -> Option<Blas> {
    if disabled_by_env() {
        return None;
    }
    ["libopenblas.so.0", "libblas.so.3"]
        .into_iter()
        .find_map(|name| open(name).ok())
}

fn open(name: &'static str) -> Result<Blas, libloading::Error> {
    // SAFETY: loading OpenBLAS runs its initialiser, which only sets up its thread pool;
    // the symbol types are those of cblas.h and OpenBLAS's openblas_config.h.
    unsafe {
        let lib = Library::new(name)?;
        let set_threads = *lib.get::<SetThreads>(b"openblas_set_num_threads\0")?;
        let sgemm = *lib.get::<RealGemm<f32>>(b"cblas_sgemm\0")?;
        let dgemm = *lib.get::<RealGemm<f64>>(b"cblas_dgemm\0")?;
        let cgemm = *lib.get::<ComplexGemm>(b"cblas_cgemm\0")?;
        let zgemm = *lib.get::<ComplexGemm>(b"cblas_zgemm\0")?;
        Ok(Blas {
            _lib: lib,
            name,
            sgemm,
            dgemm,
            cgemm,
            zgemm,
            set_threads,
            in_use: Mutex::new(()),
        })
    }
}

/// One matrix as the `matmul` kernel sees it: `rows x cols`, element (i, j) at
/// `ptr + i * rs + j * cs` (strides in elements).
#[derive(Clone, Copy, Debug)]
pub struct Strided<T> {
    pub ptr: *const T,
    pub rows: usize,
    pub cols: usize,
    pub rs: isize,
    pub cs: isize,
}

/// How BLAS reads a matrix in a given storage order: transposed or not, and the
/// leading dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlasOperand {
    pub trans: bool,
    pub ld: i32,
}

/// How `m` is described to BLAS in `order` (`col_major` false: CBLAS row-major), or
/// `None` when it cannot be: BLAS needs a unit stride along one dimension and a positive
/// leading dimension at least the other extent. A dimension of extent 1 has no stride
/// requirement (its stride is never used).
pub fn describe<T>(m: &Strided<T>, col_major: bool) -> Option<BlasOperand> {
    // In the order's terms: "outer" = rows for row-major, columns for column-major.
    let (outer_len, inner_len, outer_stride, inner_stride) = if col_major {
        (m.cols, m.rows, m.cs, m.rs)
    } else {
        (m.rows, m.cols, m.rs, m.cs)
    };
    let fits = |ld: isize, needed: usize| {
        (ld >= needed.max(1) as isize && ld <= i32::MAX as isize).then_some(ld as i32)
    };
    // As stored: inner elements adjacent, outer ones `ld` apart.
    if inner_stride == 1 || inner_len <= 1 {
        let ld = if outer_len <= 1 {
            inner_len.max(1) as isize
        } else {
            outer_stride
        };
        if let Some(ld) = fits(ld, inner_len) {
            return Some(BlasOperand { trans: false, ld });
        }
    }
    // Transposed: outer elements adjacent, inner ones `ld` apart.
    if outer_stride == 1 || outer_len <= 1 {
        let ld = if inner_len <= 1 {
            outer_len.max(1) as isize
        } else {
            inner_stride
        };
        if let Some(ld) = fits(ld, outer_len) {
            return Some(BlasOperand { trans: true, ld });
        }
    }
    None
}

/// Element types with a BLAS `?gemm`.
pub trait BlasElem: Copy + 'static {
    /// # Safety
    /// The arguments describe valid matrices for `cblas_?gemm`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn call(
        blas: &Blas,
        order: i32,
        ta: i32,
        tb: i32,
        m: i32,
        n: i32,
        k: i32,
        a: *const Self,
        lda: i32,
        b: *const Self,
        ldb: i32,
        c: *mut Self,
        ldc: i32,
    );
}

/// `BlasElem` for `$t` through `blas.$entry`, alpha = 1 and beta = 0 passed as `$pass`
/// says (real `?gemm`s take them by value, complex ones by pointer).
macro_rules! blas_elem {
    ($t:ty, $entry:ident, $pass:ident, $one:expr, $zero:expr) => {
        impl BlasElem for $t {
            unsafe fn call(
                blas: &Blas,
                order: i32,
                ta: i32,
                tb: i32,
                m: i32,
                n: i32,
                k: i32,
                a: *const $t,
                lda: i32,
                b: *const $t,
                ldb: i32,
                c: *mut $t,
                ldc: i32,
            ) {
                let (one, zero): ($t, $t) = ($one, $zero);
                (blas.$entry)(
                    order,
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    $pass!(one),
                    a as _,
                    lda,
                    b as _,
                    ldb,
                    $pass!(zero),
                    c as _,
                    ldc,
                )
            }
        }
    };
}

macro_rules! by_value {
    ($x:ident) => {
        $x
    };
}

macro_rules! by_pointer {
    ($x:ident) => {
        &$x as *const _ as *const c_void
    };
}

blas_elem!(f32, sgemm, by_value, 1.0, 0.0);
blas_elem!(f64, dgemm, by_value, 1.0, 0.0);
blas_elem!(Complex<f32>, cgemm, by_pointer, Complex::new(1.0, 0.0), Complex::new(0.0, 0.0));
blas_elem!(Complex<f64>, zgemm, by_pointer, Complex::new(1.0, 0.0), Complex::new(0.0, 0.0));

/// `dst (m x n) = a (m x k) * b (k x n)` through BLAS with `threads` threads. Returns
/// false, having touched nothing, when no BLAS is loaded, an operand or the destination
/// cannot be described to BLAS, an extent exceeds `i32`, or another thread is inside
/// BLAS; the caller then uses the `gemm` crate. Extents of 0 are the caller's to handle
/// (BLAS is only asked for m, n, k >= 1).
///
/// # Safety
/// The three matrices address valid elements for every (row, column) in their extents;
/// `dst` does not overlap `a` or `b`.
pub unsafe fn try_gemm<T: BlasElem>(
    dst: Strided<T>,
    a: Strided<T>,
    b: Strided<T>,
    threads: usize,
) -> bool {
    let Some(blas) = blas() else { return false };
    let (m, n, k) = (a.rows, b.cols, a.cols);
    let small = |x: usize| (1..=i32::MAX as usize).contains(&x);
    if !(small(m) && small(n) && small(k)) {
        return false;
    }
    // The destination decides the order: row-major needs its rows contiguous,
    // column-major its columns (BLAS writes C untransposed).
    let order = [false, true]
        .into_iter()
        .find(|&col| describe(&dst, col).is_some_and(|d| !d.trans));
    let Some(col_major) = order else { return false };
    let (Some(dc), Some(da), Some(db)) = (
        describe(&dst, col_major),
        describe(&a, col_major),
        describe(&b, col_major),
    ) else {
        return false;
    };
    let Ok(_in_use) = blas.in_use.try_lock() else {
        return false;
    };
    // Set on every call, not only on a change: another user of the same library in the
    // process (a host, a benchmark) may have changed it since.
    (blas.set_threads)(threads.clamp(1, i32::MAX as usize) as i32);
    let trans = |t: bool| if t { CBLAS_TRANS } else { CBLAS_NO_TRANS };
    T::call(
        blas,
        if col_major {
            CBLAS_COL_MAJOR
        } else {
            CBLAS_ROW_MAJOR
        },
        trans(da.trans),
        trans(db.trans),
        m as i32,
        n as i32,
        k as i32,
        a.ptr,
        da.ld,
        b.ptr,
        db.ld,
        dst.ptr as *mut T,
        dc.ld,
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(rows: usize, cols: usize, rs: isize, cs: isize) -> Strided<f64> {
        Strided {
            ptr: std::ptr::null(),
            rows,
            cols,
            rs,
            cs,
        }
    }

    #[test]
    fn row_major_matrix_is_untransposed_in_row_order_and_transposed_in_column_order() {
        let m = mat(3, 4, 4, 1);
        assert_eq!(describe(&m, false), Some(BlasOperand { trans: false, ld: 4 }));
        assert_eq!(describe(&m, true), Some(BlasOperand { trans: true, ld: 4 }));
    }

    #[test]
    fn column_major_view_with_padding_keeps_its_leading_dimension() {
        // Every other column of a 10-row column-major matrix: columns 20 apart.
        let m = mat(10, 3, 1, 20);
        assert_eq!(describe(&m, true), Some(BlasOperand { trans: false, ld: 20 }));
        assert_eq!(describe(&m, false), Some(BlasOperand { trans: true, ld: 20 }));
    }

    #[test]
    fn no_unit_stride_negative_or_zero_strides_are_refused() {
        assert_eq!(describe(&mat(3, 3, 6, 2), false), None);
        assert_eq!(describe(&mat(3, 3, 6, 2), true), None);
        assert_eq!(describe(&mat(3, 3, -3, 1), false), None);
        assert_eq!(describe(&mat(3, 3, 0, 1), false), None);
        // Overlapping rows (ld below the row length) cannot be described either.
        assert_eq!(describe(&mat(3, 3, 2, 1), false), None);
    }

    #[test]
    fn extent_one_ignores_its_stride() {
        // A 1-D vector as a 1 x k row (the row stride is 0) and as a k x 1 column.
        assert_eq!(
            describe(&mat(1, 5, 0, 1), false),
            Some(BlasOperand { trans: false, ld: 5 })
        );
        assert_eq!(
            describe(&mat(5, 1, 1, 0), false),
            Some(BlasOperand { trans: false, ld: 1 })
        );
        // A strided vector (stride 3) as a k x 1 column: rows 3 apart, ld 3.
        assert_eq!(
            describe(&mat(5, 1, 3, 0), false),
            Some(BlasOperand { trans: false, ld: 3 })
        );
    }
}
