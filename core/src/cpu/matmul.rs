//! The matrix-multiply kernel that compiled code calls for `matmul`: one entry,
//! [`vr_cpu_matmul`], mapped into the JIT by address like the allocator.
//!
//! Every rank combination is one general product `dst (m x n) = a (m x k) * b (k x n)`
//! with arbitrary element strides (rows and columns of a strided view, negative or zero
//! ones included), so views are multiplied where they lie, without packing here:
//! - f32, f64, c64 and c128 go first to OpenBLAS's `?gemm`, loaded at run time
//!   ([`crate::cpu::blas`]: the module doc there says which library, which operands and
//!   how many threads). Measured side by side (`vr-bench-matmul`, bench/RESULTS.md),
//!   the `gemm` crate alone reaches only about 0.75 of `dgemm` at n = 2000 on this
//!   project's machine, below issue 3's 0.8 target.
//! - When BLAS is absent or cannot take the operands (no unit stride in either
//!   dimension, negative or zero strides, extents beyond `i32`, BLAS busy in another
//!   thread), the `gemm` crate does the product (blocked, packed, FMA micro-kernels
//!   chosen at run time for the host CPU; complex kernels included).
//!   Neither adds in k-ascending order and both may fuse products:
//!   docs/vrir-semantics.md leaves both unspecified for floats.
//! - i32 / i64 use a simple exact loop with wrapping arithmetic (a ring: the order does
//!   not change the result), rows of `dst` accumulated k-outer for locality.
//!
//! `parallel` lets the kernel use several threads (the `cpu-par` backend turns it on;
//! serial code passes 0): the call's thread count for BLAS, rayon's pool for `gemm`.

use crate::cpu::abi::CallCtx;
use crate::cpu::blas::{self, BlasElem, Strided};
use num_complex::Complex;
use crate::vrir::types::ScalarType;

/// One operand or the destination: first element and element strides.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<T> {
    pub ptr: *const T,
    /// Elements between consecutive rows.
    pub rs: isize,
    /// Elements between consecutive columns.
    pub cs: isize,
}

/// Element type codes of [`vr_cpu_matmul`]: the position in [`ScalarType::ALL`].
pub fn elem_code(t: ScalarType) -> i64 {
    ScalarType::ALL
        .iter()
        .position(|x| *x == t)
        .expect("every scalar type is in ALL") as i64
}

/// Products below this many multiply-adds stay serial even when `parallel` is asked for:
/// waking the pool costs more than it saves.
const PARALLEL_MIN_FLOPS: usize = 1 << 18;

/// `dst = a * b` for floats through `gemm` (dst is written, never read).
///
/// # Safety
/// The three matrices address valid elements for every (row, column) in their extents;
/// `dst` does not overlap `a` or `b`.
pub unsafe fn gemm_float<T: 'static + Copy + Default>(
    m: usize,
    n: usize,
    k: usize,
    dst: MatRef<T>,
    a: MatRef<T>,
    b: MatRef<T>,
    one: T,
    parallel: bool,
) {
    let dst_p = dst.ptr as *mut T;
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                *dst_p.offset(i as isize * dst.rs + j as isize * dst.cs) = T::default();
            }
        }
        return;
    }
    let parallelism = if parallel && m.saturating_mul(n).saturating_mul(k) >= PARALLEL_MIN_FLOPS {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    gemm::gemm(
        m,
        n,
        k,
        dst_p,
        dst.cs,
        dst.rs,
        false,
        a.ptr,
        a.cs,
        a.rs,
        b.ptr,
        b.cs,
        b.rs,
        T::default(),
        one,
        false,
        false,
        false,
        parallelism,
    );
}

/// `dst = a * b` for floats and complex numbers: BLAS when it takes the operands (with
/// `threads` threads), else the `gemm` crate (on rayon's pool when `threads > 1`).
///
/// # Safety
/// As for [`gemm_float`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn float_product<T: BlasElem + Default>(
    m: usize,
    n: usize,
    k: usize,
    dst: MatRef<T>,
    a: MatRef<T>,
    b: MatRef<T>,
    one: T,
    threads: usize,
) {
    let threads = if m.saturating_mul(n).saturating_mul(k) >= PARALLEL_MIN_FLOPS {
        threads
    } else {
        1
    };
    let strided = |p: MatRef<T>, rows: usize, cols: usize| Strided {
        ptr: p.ptr,
        rows,
        cols,
        rs: p.rs,
        cs: p.cs,
    };
    if m > 0
        && n > 0
        && k > 0
        && blas::try_gemm(strided(dst, m, n), strided(a, m, k), strided(b, k, n), threads)
    {
        return;
    }
    gemm_float(m, n, k, dst, a, b, one, threads > 1);
}

/// Integer element arithmetic the exact loop needs (wrapping, as VRIR integers do).
pub trait WrappingElem: Copy + Default {
    fn wrapping_mul_add(self, x: Self, y: Self) -> Self;
}

impl WrappingElem for i32 {
    fn wrapping_mul_add(self, x: i32, y: i32) -> i32 {
        self.wrapping_add(x.wrapping_mul(y))
    }
}

impl WrappingElem for i64 {
    fn wrapping_mul_add(self, x: i64, y: i64) -> i64 {
        self.wrapping_add(x.wrapping_mul(y))
    }
}

/// `dst = a * b` for integers: exact with wrap-around, whatever the order.
///
/// # Safety
/// As for [`gemm_float`].
pub unsafe fn exact_int<T: WrappingElem>(
    m: usize,
    n: usize,
    k: usize,
    dst: MatRef<T>,
    a: MatRef<T>,
    b: MatRef<T>,
) {
    let dst_p = dst.ptr as *mut T;
    let at = |p: MatRef<T>, i: usize, j: usize| p.ptr.offset(i as isize * p.rs + j as isize * p.cs);
    for i in 0..m {
        for j in 0..n {
            *dst_p.offset(i as isize * dst.rs + j as isize * dst.cs) = T::default();
        }
        // k outer, j inner: walks a row of b and of dst (contiguous for row-major).
        for p in 0..k {
            let x = *at(a, i, p);
            for j in 0..n {
                let d = dst_p.offset(i as isize * dst.rs + j as isize * dst.cs);
                *d = (*d).wrapping_mul_add(x, *at(b, p, j));
            }
        }
    }
}

/// Called by generated code for every `matmul`: `dst (m x n) = a (m x k) * b (k x n)`,
/// strides in elements, element type `elem` (see [`elem_code`]). Extents were checked by
/// the caller. Returns 0, or 1 after noting why in the arena's `failure` (the caller then
/// records `ErrorCode::AllocFailed`, which reports that message): an element type this
/// kernel does not know, or a panic inside the kernel (none is expected; no panic may
/// cross into generated code).
///
/// # Safety
/// `ctx` is the call's [`CallCtx`]; the pointers address every element of the extents
/// with the given strides; `dst` is a fresh array that overlaps neither operand.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn vr_cpu_matmul(
    ctx: *mut CallCtx,
    elem: i64,
    m: i64,
    n: i64,
    k: i64,
    dst: *mut u8,
    dst_rs: i64,
    dst_cs: i64,
    a: *const u8,
    a_rs: i64,
    a_cs: i64,
    b: *const u8,
    b_rs: i64,
    b_cs: i64,
    parallel: i32,
) -> i32 {
    let (m, n, k) = (m.max(0) as usize, n.max(0) as usize, k.max(0) as usize);
    let t = ScalarType::ALL.get(elem as usize).copied();
    // BLAS threads (see `crate::cpu::blas`): one for the serial backend and inside a
    // parfor worker (the pool is busy there), else the call's thread count.
    let threads = match ctx.as_ref() {
        _ if parallel == 0 => 1,
        Some(c) if !c.shared_arena.is_null() => 1,
        Some(c) => c.threads.max(1),
        None => crate::cpu::parallel::default_threads(),
    };
    let run = move || {
        fn mr<T>(p: *const u8, rs: i64, cs: i64) -> MatRef<T> {
            MatRef {
                ptr: p as *const T,
                rs: rs as isize,
                cs: cs as isize,
            }
        }
        let (d, x, y) = ((dst, dst_rs, dst_cs), (a, a_rs, a_cs), (b, b_rs, b_cs));
        macro_rules! product {
            ($kernel:ident, $t:ty $(, $extra:expr)*) => {
                $kernel::<$t>(
                    m,
                    n,
                    k,
                    mr(d.0, d.1, d.2),
                    mr(x.0, x.1, x.2),
                    mr(y.0, y.1, y.2)
                    $(, $extra)*
                )
            };
        }
        // SAFETY: the caller's contract (see above).
        unsafe {
            match t {
                Some(ScalarType::F64) => product!(float_product, f64, 1.0, threads),
                Some(ScalarType::F32) => product!(float_product, f32, 1.0, threads),
                Some(ScalarType::C128) => {
                    product!(float_product, Complex<f64>, Complex::new(1.0, 0.0), threads)
                }
                Some(ScalarType::C64) => {
                    product!(float_product, Complex<f32>, Complex::new(1.0, 0.0), threads)
                }
                Some(ScalarType::I64) => product!(exact_int, i64),
                Some(ScalarType::I32) => product!(exact_int, i32),
                other => return Err(format!("matmul kernel: no kernel for {other:?}")),
            }
        }
        Ok(())
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .unwrap_or_else(|_| Err("matmul kernel panicked".into()));
    match outcome {
        Ok(()) => 0,
        Err(msg) => {
            if let Some(ctx) = ctx.as_mut() {
                ctx.arena.failure = Some(msg);
            }
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row-major 2x3 times a column-major view 3x2, integers: exact, wrapping.
    #[test]
    fn integer_product_is_exact_and_wraps() {
        let a: [i32; 6] = [1, 2, 3, 4, 5, i32::MAX];
        let b: [i32; 6] = [1, 0, 1, 0, 2, 1]; // column-major 3x2: cols [1,0,1], [0,2,1]
        let mut d = [0i32; 4];
        unsafe {
            exact_int(
                2,
                2,
                3,
                MatRef {
                    ptr: d.as_mut_ptr(),
                    rs: 2,
                    cs: 1,
                },
                MatRef {
                    ptr: a.as_ptr(),
                    rs: 3,
                    cs: 1,
                },
                MatRef {
                    ptr: b.as_ptr(),
                    rs: 1,
                    cs: 3,
                },
            )
        };
        assert_eq!(
            d,
            [
                4,
                7,
                4i32.wrapping_add(i32::MAX),
                10i32.wrapping_add(i32::MAX)
            ]
        );
    }

    /// Negative and zero strides reach the float kernel unchanged.
    #[test]
    fn float_product_with_negative_and_zero_strides() {
        // a: rows of [1,2],[3,4] read bottom-up; b: a column [5,6] repeated (cs = 0).
        let a = [1.0f64, 2.0, 3.0, 4.0];
        let b = [5.0f64, 6.0];
        let mut d = [0.0f64; 4];
        unsafe {
            gemm_float(
                2,
                2,
                2,
                MatRef {
                    ptr: d.as_mut_ptr(),
                    rs: 2,
                    cs: 1,
                },
                MatRef {
                    ptr: a.as_ptr().add(2),
                    rs: -2,
                    cs: 1,
                },
                MatRef {
                    ptr: b.as_ptr(),
                    rs: 1,
                    cs: 0,
                },
                1.0,
                false,
            )
        };
        assert_eq!(d, [39.0, 39.0, 17.0, 17.0]);
    }

    #[test]
    fn empty_inner_extent_gives_zeros() {
        let mut d = [7.0f32; 2];
        unsafe {
            gemm_float(
                1,
                2,
                0,
                MatRef {
                    ptr: d.as_mut_ptr(),
                    rs: 2,
                    cs: 1,
                },
                MatRef {
                    ptr: std::ptr::null(),
                    rs: 0,
                    cs: 1,
                },
                MatRef {
                    ptr: std::ptr::null(),
                    rs: 2,
                    cs: 1,
                },
                1.0,
                false,
            )
        };
        assert_eq!(d, [0.0, 0.0]);
    }
}
