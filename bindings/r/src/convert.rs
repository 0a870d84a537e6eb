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
    R_CHAR, R_ClassSymbol, R_DimSymbol, R_NaInt, R_NaString, R_NamesSymbol, R_NilValue, R_ReleaseObject, Rf_allocVector,
    Rf_getAttrib, Rf_protect, Rf_setAttrib, Rf_unprotect, Rf_xlength, COMPLEX, INTEGER, LOGICAL, RAW, REAL,
    SEXP, SEXPTYPE, STRING_ELT, TYPEOF, VECTOR_ELT,
};
use velociraptor::frontend::types::{AnyTy, Field, ListTy, Ty};
use velociraptor::vrir::ScalarType;
use velociraptor::{ErrorKind, VrError};
use velociraptor_capi::*;

/// One argument's part of a signature: a vector, matrix or array (C-API element type
/// and rank), a list (a data frame: `frame`) of such parts with their names, or a value
/// compiled code cannot read (what it is, for the diagnostic if the function reads it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgSig {
    Value { elem: i32, rank: u32 },
    List { frame: bool, fields: Vec<(Option<String>, ArgSig)> },
    Opaque(String),
}

/// The most elements a list argument may have, nested lists included (each one is a
/// parameter of the compiled function); a larger list is opaque.
const MAX_LIST_ELEMENTS: usize = 256;
/// The deepest nesting of lists read; deeper lists are opaque.
const MAX_LIST_DEPTH: usize = 8;

impl ArgSig {
    pub fn describe(&self) -> String {
        match self {
            ArgSig::Value { elem, rank } => {
                let t = match *elem {
                    VR_F64 => "double",
                    VR_I32 => "integer",
                    VR_BOOL => "logical",
                    VR_C128 => "complex",
                    _ => "?",
                };
                match rank {
                    0 => format!("{t} scalar"),
                    1 => format!("{t} vector"),
                    2 => format!("{t} matrix"),
                    r => format!("{t} array[{r}]"),
                }
            }
            ArgSig::List { frame, fields } => {
                let items: Vec<String> = fields
                    .iter()
                    .map(|(n, t)| match n.as_deref().filter(|n| !n.is_empty()) {
                        Some(n) => format!("{n} = {}", t.describe()),
                        None => t.describe(),
                    })
                    .collect();
                format!("{}({})", if *frame { "data.frame" } else { "list" }, items.join(", "))
            }
            ArgSig::Opaque(what) => what.clone(),
        }
    }

    /// The front end's type for this part.
    pub fn any_ty(&self) -> AnyTy {
        match self {
            ArgSig::Value { elem, rank } => {
                let elem = match *elem {
                    VR_F64 => ScalarType::F64,
                    VR_I32 => ScalarType::I32,
                    VR_BOOL => ScalarType::Bool,
                    _ => ScalarType::C128,
                };
                AnyTy::Value(Ty::array(elem, *rank))
            }
            ArgSig::List { frame, fields } => AnyTy::List(ListTy {
                frame: *frame,
                fields: fields.iter().map(|(n, t)| Field { name: n.clone(), ty: t.any_ty() }).collect(),
            }),
            ArgSig::Opaque(w) => AnyTy::Opaque(w.clone()),
        }
    }

    fn count(&self) -> usize {
        match self {
            ArgSig::List { fields, .. } => fields.iter().map(|(_, t)| 1 + t.count()).sum(),
            _ => 0,
        }
    }
}

fn unsupported(msg: String) -> Failure {
    Failure::new(Phase::Compile, VrError::new(ErrorKind::Unsupported, msg))
}

/// What an R object compiled code cannot read is, in words.
unsafe fn what_it_is(x: SEXP) -> String {
    let class = Rf_getAttrib(x, R_ClassSymbol);
    if class != R_NilValue && TYPEOF(class) == SEXPTYPE::STRSXP && Rf_xlength(class) > 0 {
        return format!("an object of class `{}`", char_of(STRING_ELT(class, 0)));
    }
    match TYPEOF(x) {
        SEXPTYPE::STRSXP => "a character vector".into(),
        SEXPTYPE::NILSXP => "NULL".into(),
        SEXPTYPE::CLOSXP | SEXPTYPE::BUILTINSXP | SEXPTYPE::SPECIALSXP => "a function".into(),
        SEXPTYPE::ENVSXP => "an environment".into(),
        SEXPTYPE::RAWSXP => "a raw vector".into(),
        SEXPTYPE::VECSXP => "a list".into(),
        t => format!("an R object of type {t:?}"),
    }
}

unsafe fn char_of(c: SEXP) -> String {
    std::ffi::CStr::from_ptr(R_CHAR(c)).to_string_lossy().into_owned()
}

/// The signature entry of argument `x` (named `what` in messages): vectors, matrices and
/// arrays of R's four numeric types, lists and data frames of them; anything else is
/// opaque (compiling fails, naming it, only if the function reads it).
///
/// # Safety
/// `x` is a live R object.
pub unsafe fn arg_sig(x: SEXP, what: &dyn Fn() -> String) -> Result<ArgSig, Failure> {
    sig_at(x, what, 0)
}

unsafe fn sig_at(x: SEXP, what: &dyn Fn() -> String, depth: usize) -> Result<ArgSig, Failure> {
    let elem = match TYPEOF(x) {
        SEXPTYPE::REALSXP => VR_F64,
        SEXPTYPE::INTSXP => VR_I32,
        SEXPTYPE::LGLSXP => VR_BOOL,
        SEXPTYPE::CPLXSXP => VR_C128,
        SEXPTYPE::VECSXP => return list_sig(x, what, depth),
        _ => return Ok(ArgSig::Opaque(what_it_is(x))),
    };
    if Rf_getAttrib(x, R_ClassSymbol) != R_NilValue {
        // A factor, a Date, ...: its numbers mean something else.
        return Ok(ArgSig::Opaque(what_it_is(x)));
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
    Ok(ArgSig::Value { elem, rank })
}

unsafe fn list_sig(x: SEXP, what: &dyn Fn() -> String, depth: usize) -> Result<ArgSig, Failure> {
    let class = Rf_getAttrib(x, R_ClassSymbol);
    let frame = class != R_NilValue
        && TYPEOF(class) == SEXPTYPE::STRSXP
        && (0..Rf_xlength(class)).any(|k| char_of(STRING_ELT(class, k)) == "data.frame");
    if (class != R_NilValue && !frame) || depth >= MAX_LIST_DEPTH {
        return Ok(ArgSig::Opaque(what_it_is(x)));
    }
    let n = Rf_xlength(x) as usize;
    if n > MAX_LIST_ELEMENTS {
        return Ok(ArgSig::Opaque(format!("a list of {n} elements (compiled code takes lists of at most {MAX_LIST_ELEMENTS})")));
    }
    let names = Rf_getAttrib(x, R_NamesSymbol);
    let mut fields = Vec::with_capacity(n);
    for k in 0..n {
        let name = if names != R_NilValue && TYPEOF(names) == SEXPTYPE::STRSXP {
            let c = STRING_ELT(names, k as isize);
            (c != R_NaString).then(|| char_of(c))
        } else {
            None
        };
        let sub = sig_at(VECTOR_ELT(x, k as isize), what, depth + 1)?;
        // In a data frame, a column compiled code holds is a vector even of one row.
        let sub = match sub {
            ArgSig::Value { elem, rank: 0 } if frame => ArgSig::Value { elem, rank: 1 },
            s => s,
        };
        fields.push((name, sub));
    }
    let sig = ArgSig::List { frame, fields };
    if sig.count() > MAX_LIST_ELEMENTS {
        return Ok(ArgSig::Opaque(format!("a list of {} elements in all (compiled code takes lists of at most {MAX_LIST_ELEMENTS})", sig.count())));
    }
    Ok(sig)
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
pub unsafe fn to_value(x: SEXP, elem: i32, rank: u32, what: &dyn Fn() -> String, scratch: &mut Scratch) -> Result<VrValue, Failure> {
    let mut v = VrValue { kind: VR_KIND_SCALAR, elem, scalar: VrScalar { as_i64: 0 }, array: empty_array() };
    let na_logical = || unsupported(format!("argument {} holds a logical NA: compiled code has no logical NA", what()));
    if rank == 0 {
        match elem {
            VR_F64 => v.scalar.as_f64 = *REAL(x),
            VR_I32 => v.scalar.as_i32 = *INTEGER(x),
            VR_BOOL => {
                let b = *LOGICAL(x);
                if b == R_NaInt {
                    return Err(na_logical());
                }
                v.scalar.as_bool = (b != 0) as u8;
            }
            _ => {
                let z = *COMPLEX(x);
                v.scalar.as_c128 = [z.r, z.i];
            }
        }
        return Ok(v);
    }
    v.kind = VR_KIND_ARRAY;
    let a = &mut v.array;
    a.elem = elem;
    a.ndims = rank as i32;
    let n = rank as usize;
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
    a.data = match elem {
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

/// The C-API values of argument `x` whose signature entry is `sig`: one for a vector,
/// matrix or array, a list's elements in order (nested lists included), none for an
/// opaque value. `objs` gets the R vector behind each value.
///
/// # Safety
/// `x` is a live R object (kept alive by the caller for the whole call) matching `sig`.
pub unsafe fn push_values(x: SEXP, sig: &ArgSig, what: &dyn Fn() -> String, scratch: &mut Scratch, values: &mut Vec<VrValue>, objs: &mut Vec<SEXP>) -> Result<(), Failure> {
    match sig {
        ArgSig::Value { elem, rank } => {
            values.push(to_value(x, *elem, *rank, what, scratch)?);
            objs.push(x);
        }
        ArgSig::List { fields, .. } => {
            for (k, (_, s)) in fields.iter().enumerate() {
                push_values(VECTOR_ELT(x, k as isize), s, what, scratch, values, objs)?;
            }
        }
        ArgSig::Opaque(_) => {}
    }
    Ok(())
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
            VR_C128 => {
                let [re, im] = v.scalar.as_c128;
                Robj::from(extendr_api::prelude::Rcplx::from((re, im)))
            }
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
