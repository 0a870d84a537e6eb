//! R values to C-API values and back. Double, integer and complex vectors, matrices and
//! arrays cross as descriptors pointing into R's memory (column-major, no copy); R's
//! logicals are 32-bit and VRIR's bool is one byte, so logical arrays cross as a byte
//! copy (an NA in them is refused: compiled code has no logical NA).
//!
//! The type of an argument (its part of the specialization signature): element type
//! from the vector type; rank = length(dim) when it has a dim attribute, else 0 for a
//! vector of length 1 (an R scalar) and 1 for any other length.

use crate::failure::{Failure, Phase};
use crate::hooks::{col_strides, data_of, sexptype_of};
use extendr_ffi::{
    R_ClassSymbol, R_DimSymbol, R_NaInt, R_NilValue, R_ReleaseObject, Rf_allocVector, Rf_getAttrib, Rf_protect,
    Rf_setAttrib, Rf_unprotect, Rf_xlength, COMPLEX, INTEGER, LOGICAL, RAW, REAL, SEXP, SEXPTYPE, TYPEOF,
};
use velociraptor::{ErrorKind, VrError};
use velociraptor_capi::*;

/// One argument's part of a signature: C-API element type and rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArgSig {
    pub elem: i32,
    pub rank: u32,
}

impl ArgSig {
    pub fn describe(self) -> String {
        let t = match self.elem {
            VR_F64 => "double",
            VR_I32 => "integer",
            VR_BOOL => "logical",
            VR_C128 => "complex",
            _ => "?",
        };
        match self.rank {
            0 => format!("{t} scalar"),
            1 => format!("{t} vector"),
            2 => format!("{t} matrix"),
            r => format!("{t} array[{r}]"),
        }
    }
}

fn unsupported(msg: String) -> Failure {
    Failure::new(Phase::Compile, VrError::new(ErrorKind::Unsupported, msg))
}

/// The signature entry of argument `x` (named `what` in messages).
///
/// # Safety
/// `x` is a live R object.
pub unsafe fn arg_sig(x: SEXP, what: &dyn Fn() -> String) -> Result<ArgSig, Failure> {
    let elem = match TYPEOF(x) {
        SEXPTYPE::REALSXP => VR_F64,
        SEXPTYPE::INTSXP => VR_I32,
        SEXPTYPE::LGLSXP => VR_BOOL,
        SEXPTYPE::CPLXSXP => VR_C128,
        t => return Err(unsupported(format!("argument {} is of R type {t:?}: only double, integer, logical and complex vectors, matrices and arrays compile", what()))),
    };
    if Rf_getAttrib(x, R_ClassSymbol) != R_NilValue {
        return Err(unsupported(format!("argument {} has a class attribute (a factor or another object): only plain vectors, matrices and arrays compile", what())));
    }
    let dim = Rf_getAttrib(x, R_DimSymbol);
    let rank = if dim != R_NilValue {
        let r = Rf_xlength(dim) as u32;
        if r as usize > VR_MAX_NDIMS {
            return Err(unsupported(format!("argument {} has {r} dimensions (at most {VR_MAX_NDIMS})", what())));
        }
        r
    } else if Rf_xlength(x) == 1 {
        0
    } else {
        1
    };
    if rank == 0 && elem == VR_C128 {
        return Err(unsupported(format!(
            "argument {} is a complex scalar: complex scalars cannot cross the C API yet (a complex vector can)",
            what()
        )));
    }
    Ok(ArgSig { elem, rank })
}

/// Storage the call needs besides the R objects (logical arrays as bytes).
#[derive(Default)]
pub struct Scratch {
    bytes: Vec<Vec<u8>>,
}

fn empty_array() -> VrArray {
    VrArray {
        data: std::ptr::null_mut(),
        elem: VR_F64,
        ndims: 0,
        dims: [0; VR_MAX_NDIMS],
        strides: [0; VR_MAX_NDIMS],
        layout: VR_LAYOUT_COL,
        flags: 0,
        owner: std::ptr::null_mut(),
    }
}

/// The C-API value of argument `x` whose signature entry is `sig`.
///
/// # Safety
/// `x` is a live R object (kept alive by the caller for the whole call).
pub unsafe fn to_value(x: SEXP, sig: ArgSig, what: &dyn Fn() -> String, scratch: &mut Scratch) -> Result<VrValue, Failure> {
    let mut v = VrValue { kind: VR_KIND_SCALAR, elem: sig.elem, scalar: VrScalar { as_i64: 0 }, array: empty_array() };
    let na_logical = || unsupported(format!("argument {} holds a logical NA: compiled code has no logical NA", what()));
    if sig.rank == 0 {
        match sig.elem {
            VR_F64 => v.scalar.as_f64 = *REAL(x),
            VR_I32 => v.scalar.as_i32 = *INTEGER(x),
            VR_BOOL => {
                let b = *LOGICAL(x);
                if b == R_NaInt {
                    return Err(na_logical());
                }
                v.scalar.as_bool = (b != 0) as u8;
            }
            _ => return Err(unsupported(format!("argument {}: complex scalar", what()))),
        }
        return Ok(v);
    }
    v.kind = VR_KIND_ARRAY;
    let a = &mut v.array;
    a.elem = sig.elem;
    a.ndims = sig.rank as i32;
    let n = sig.rank as usize;
    let dim = Rf_getAttrib(x, R_DimSymbol);
    if dim != R_NilValue {
        let d = INTEGER(dim);
        for k in 0..n {
            a.dims[k] = *d.add(k) as i64;
        }
    } else {
        a.dims[0] = Rf_xlength(x) as i64;
    }
    let dims = a.dims;
    col_strides(&dims[..n], &mut a.strides[..n]);
    a.layout = VR_LAYOUT_COL;
    a.flags = VR_ARRAY_WRITEABLE;
    a.owner = x as *mut std::ffi::c_void;
    a.data = match sig.elem {
        VR_BOOL => {
            let len = Rf_xlength(x) as usize;
            let src = std::slice::from_raw_parts(LOGICAL(x), len);
            if src.contains(&R_NaInt) {
                return Err(na_logical());
            }
            let mut bytes: Vec<u8> = src.iter().map(|&b| (b != 0) as u8).collect();
            let p = bytes.as_mut_ptr();
            scratch.bytes.push(bytes);
            p as *mut std::ffi::c_void
        }
        // INTEGER() also materializes an ALTREP compact sequence (`1:n`).
        VR_I32 => INTEGER(x) as *mut std::ffi::c_void,
        VR_F64 => REAL(x) as *mut std::ffi::c_void,
        _ => COMPLEX(x) as *mut std::ffi::c_void,
    };
    Ok(v)
}

fn elem_bytes(elem: i32) -> usize {
    match elem {
        VR_BOOL => 1,
        VR_I32 | VR_F32 => 4,
        VR_F64 | VR_I64 | VR_C64 => 8,
        _ => 16,
    }
}

/// A result value as an R object (protected by the returned `Robj`). `args` are the
/// argument objects: a result whose owner is one of them is a view of it and is copied
/// into a new vector; any other array was allocated by the hooks (and preserved there).
///
/// # Safety
/// `v` is a result `vr_call` just wrote; its memory is alive.
pub unsafe fn from_value(v: &VrValue, args: &[SEXP]) -> Result<extendr_api::Robj, Failure> {
    use extendr_api::{GetSexp, Robj};
    if v.kind == VR_KIND_SCALAR {
        return Ok(match v.elem {
            VR_F64 => Robj::from(v.scalar.as_f64),
            VR_I32 => {
                let i = v.scalar.as_i32;
                // i32::MIN is R's NA_integer_; compiled code never produces NA.
                Robj::from(i)
            }
            VR_BOOL => Robj::from(v.scalar.as_bool != 0),
            VR_I64 => Robj::from(v.scalar.as_i64 as f64),
            VR_F32 => Robj::from(v.scalar.as_f32 as f64),
            e => return Err(Failure::internal(format!("a scalar result of element type {e}"))),
        });
    }
    let a = &v.array;
    let n = a.ndims.clamp(0, VR_MAX_NDIMS as i32) as usize;
    let count: i64 = a.dims[..n].iter().map(|d| (*d).max(0)).product();
    let owner = a.owner as SEXP;
    let fresh = !owner.is_null() && !args.contains(&owner);
    let Some(t) = sexptype_of(a.elem) else {
        return Err(Failure::internal(format!("a result array of element type {}", a.elem)));
    };
    // The vector holding the result's elements in column-major order.
    let x: SEXP = if fresh {
        Rf_protect(owner);
        R_ReleaseObject(owner);
        owner
    } else {
        let x = Rf_protect(Rf_allocVector(t, count as isize));
        copy_to_col_major(a, n, count, data_of(x, t) as *mut u8);
        x
    };
    let out = if a.elem == VR_BOOL {
        let l = Rf_protect(Rf_allocVector(SEXPTYPE::LGLSXP, count as isize));
        let src = RAW(x);
        let dst = LOGICAL(l);
        for k in 0..count as usize {
            *dst.add(k) = *src.add(k) as i32;
        }
        Rf_unprotect(1);
        l
    } else {
        x
    };
    let robj = Robj::from_sexp(out);
    Rf_unprotect(1);
    if n >= 2 {
        let dim = Rf_protect(Rf_allocVector(SEXPTYPE::INTSXP, n as isize));
        for k in 0..n {
            *INTEGER(dim).add(k) = a.dims[k] as i32;
        }
        Rf_setAttrib(robj.get(), R_DimSymbol, dim);
        Rf_unprotect(1);
    }
    Ok(robj)
}

/// Copy the elements of `a` (any strides) into `dst` in column-major order.
unsafe fn copy_to_col_major(a: &VrArray, n: usize, count: i64, dst: *mut u8) {
    let size = elem_bytes(a.elem);
    let mut idx = [0i64; VR_MAX_NDIMS];
    for k in 0..count as usize {
        let off: i64 = (0..n).map(|j| idx[j] * a.strides[j]).sum();
        std::ptr::copy_nonoverlapping((a.data as *const u8).offset((off * size as i64) as isize), dst.add(k * size), size);
        for j in 0..n {
            idx[j] += 1;
            if idx[j] < a.dims[j] {
                break;
            }
            idx[j] = 0;
        }
    }
}
