//! `vr_call`: host descriptors in, host arrays out.
//!
//! Arguments: each `VrValue` becomes a `HostArg` pointing at the host's memory (no
//! copy). Under the by-value convention, an array the function may write
//! (`analysis::param_writes`) is copied first, so the caller's array never changes; under
//! by-reference, a read-only array for such a parameter is refused.
//!
//! Results: a scalar is written into its `VrValue`. An array that is a view of an
//! argument the host passed comes back as that view, sharing the argument's `owner`
//! (one `incref`). An array the call created is copied once into an array from the
//! host's `alloc_array` hook; when the host registered none, the memory compiled code
//! wrote is handed over as is (no copy) and freed by `vr_array_free`.
//! If anything fails after some results were produced, they are released (`decref` or
//! `release_array`) before `on_error` runs, so a failing call leaves nothing behind.

use crate::context::{Hooks, VrFunction};
use crate::error::invalid;
use crate::types::*;
use std::os::raw::c_void;
use velociraptor::cpu::RawResult;
use velociraptor::runtime::host::{copy_strided, elem_size, ArgConvention, HostArg, HostArray};
use velociraptor::runtime::value::Scalar;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};
use velociraptor::{VrError, VrResult};

pub fn elem_from_code(code: i32) -> VrResult<ScalarType> {
    match code {
        VR_BOOL => Ok(ScalarType::Bool),
        VR_I32 => Ok(ScalarType::I32),
        VR_I64 => Ok(ScalarType::I64),
        VR_F32 => Ok(ScalarType::F32),
        VR_F64 => Ok(ScalarType::F64),
        VR_C64 => Ok(ScalarType::C64),
        VR_C128 => Ok(ScalarType::C128),
        other => Err(invalid(format!("unknown element type code {other} (VR_BOOL = 0 ... VR_C128 = 6)"))),
    }
}

pub fn elem_code(t: ScalarType) -> i32 {
    match t {
        ScalarType::Bool => VR_BOOL,
        ScalarType::I32 => VR_I32,
        ScalarType::I64 => VR_I64,
        ScalarType::F32 => VR_F32,
        ScalarType::F64 => VR_F64,
        ScalarType::C64 => VR_C64,
        ScalarType::C128 => VR_C128,
    }
}

pub fn layout_from_code(code: i32) -> VrResult<Layout> {
    match code {
        VR_LAYOUT_ROW => Ok(Layout::Row),
        VR_LAYOUT_COL => Ok(Layout::Col),
        VR_LAYOUT_STRIDED => Ok(Layout::Strided),
        other => Err(invalid(format!(
            "unknown layout code {other} (VR_LAYOUT_ROW = 0, VR_LAYOUT_COL = 1, VR_LAYOUT_STRIDED = 2)"
        ))),
    }
}

pub fn layout_code(l: Layout) -> i32 {
    match l {
        Layout::Row => VR_LAYOUT_ROW,
        Layout::Col => VR_LAYOUT_COL,
        Layout::Strided => VR_LAYOUT_STRIDED,
    }
}

fn check_ndims(ndims: i32) -> VrResult<usize> {
    usize::try_from(ndims)
        .ok()
        .filter(|n| (1..=VR_MAX_NDIMS).contains(n))
        .ok_or_else(|| invalid(format!("ndims {ndims} outside 1..={VR_MAX_NDIMS}")))
}

/// The array a descriptor describes.
pub fn host_array(a: &VrArray) -> VrResult<HostArray> {
    let n = check_ndims(a.ndims)?;
    Ok(HostArray {
        data: a.data as *mut u8,
        ty: ArrayType::new(elem_from_code(a.elem)?, n as u32, layout_from_code(a.layout)?),
        dims: a.dims[..n].to_vec(),
        strides: a.strides[..n].to_vec(),
        writeable: a.flags & VR_ARRAY_WRITEABLE != 0,
        stable: a.flags & VR_ARRAY_STABLE != 0,
    })
}

fn scalar_of(v: &VrValue) -> VrResult<Scalar> {
    // SAFETY: every member of the union is plain bits; which one is meant is `elem`.
    unsafe {
        Ok(match elem_from_code(v.elem)? {
            ScalarType::Bool => Scalar::Bool(v.scalar.as_bool != 0),
            ScalarType::I32 => Scalar::I32(v.scalar.as_i32),
            ScalarType::I64 => Scalar::I64(v.scalar.as_i64),
            ScalarType::F32 => Scalar::F32(v.scalar.as_f32),
            ScalarType::F64 => Scalar::F64(v.scalar.as_f64),
            ScalarType::C64 => {
                let [re, im] = v.scalar.as_c64;
                Scalar::C64(velociraptor::num_complex::Complex32::new(re, im))
            }
            ScalarType::C128 => {
                let [re, im] = v.scalar.as_c128;
                Scalar::C128(velociraptor::num_complex::Complex64::new(re, im))
            }
        })
    }
}

fn empty_array() -> VrArray {
    VrArray {
        data: std::ptr::null_mut(),
        elem: VR_F64,
        ndims: 0,
        dims: [0; VR_MAX_NDIMS],
        strides: [0; VR_MAX_NDIMS],
        layout: VR_LAYOUT_ROW,
        flags: 0,
        owner: std::ptr::null_mut(),
    }
}

fn scalar_value(s: Scalar) -> VrValue {
    let (elem, scalar) = match s {
        Scalar::Bool(b) => (VR_BOOL, VrScalar { as_bool: b as u8 }),
        Scalar::I32(v) => (VR_I32, VrScalar { as_i32: v }),
        Scalar::I64(v) => (VR_I64, VrScalar { as_i64: v }),
        Scalar::F32(v) => (VR_F32, VrScalar { as_f32: v }),
        Scalar::F64(v) => (VR_F64, VrScalar { as_f64: v }),
        Scalar::C64(c) => (VR_C64, VrScalar { as_c64: [c.re, c.im] }),
        Scalar::C128(c) => (VR_C128, VrScalar { as_c128: [c.re, c.im] }),
    };
    VrValue { kind: VR_KIND_SCALAR, elem, scalar, array: empty_array() }
}

/// Storage of a by-value copy: 16-byte units, so any element type is aligned.
struct PrivateCopy {
    _storage: Vec<u128>,
}

/// A contiguous private copy of `a` (row-major unless the declared type is col).
fn private_copy(a: &HostArray) -> (HostArray, PrivateCopy) {
    let layout = if a.ty.layout == Layout::Col { Layout::Col } else { Layout::Row };
    let size = elem_size(a.ty.elem);
    let bytes = a.element_count() * size;
    let mut storage = vec![0u128; bytes.div_ceil(16).max(1)];
    let strides = velociraptor::runtime::host::contiguous_strides(&a.dims, layout);
    let data = storage.as_mut_ptr() as *mut u8;
    // SAFETY: the host vouches for `a`; `storage` holds every element of the copy.
    unsafe { copy_strided(size, &a.dims, a.data, &a.strides, data, &strides) };
    let copy = HostArray {
        data,
        ty: ArrayType { layout: if a.ty.layout == Layout::Strided { Layout::Strided } else { layout }, ..a.ty },
        dims: a.dims.clone(),
        strides,
        writeable: true,
        stable: false,
    };
    (copy, PrivateCopy { _storage: storage })
}

/// What has been handed out so far, undone if the call fails later.
struct Produced<'h> {
    hooks: &'h Hooks,
    /// (owner, from alloc_array) for each array result handed out.
    arrays: Vec<(VrArray, bool)>,
}

impl Produced<'_> {
    fn undo(&mut self) {
        let h = &self.hooks.0;
        for (mut a, allocated) in self.arrays.drain(..) {
            // SAFETY: hooks are the host's, called as its contract says.
            unsafe {
                if allocated {
                    match h.release_array {
                        Some(release) => release(h.user_data, &mut a),
                        None if h.alloc_array.is_none() => {
                            crate::default_alloc::free(&mut a);
                        }
                        None => {}
                    }
                } else if let Some(decref) = h.decref {
                    decref(h.user_data, a.owner);
                }
            }
        }
    }
}

/// Call `f` with `args`, writing `results`.
///
/// # Safety
/// `args` / `results` come from the host and are valid for their lengths; every array
/// descriptor describes live memory.
pub unsafe fn call(f: &VrFunction, args: &[VrValue], results: &mut [VrValue]) -> VrResult<()> {
    let hooks = f.ctx.hooks();
    let out = call_inner(f, &hooks, args, results);
    if let Err(e) = &out {
        if let Some(on_error) = hooks.0.on_error {
            on_error(hooks.0.user_data, crate::error::status_of(e.kind));
        }
    }
    out
}

unsafe fn call_inner(
    f: &VrFunction,
    hooks: &Hooks,
    args: &[VrValue],
    results: &mut [VrValue],
) -> VrResult<()> {
    let spec = &f.spec;
    let sig = spec.signature();
    let name = sig.name.as_str();
    if results.len() != sig.results.len() {
        return Err(invalid(format!(
            "`{name}` returns {} results but room for {} was given",
            sig.results.len(),
            results.len()
        ))
        .with_function(name));
    }
    let convention = hooks.convention()?;
    let mut host_args = Vec::with_capacity(args.len());
    // Arrays the host passed and that compiled code sees in place: (span, index).
    let mut in_place: Vec<((usize, usize), usize)> = Vec::new();
    let mut copies = Vec::new();
    for (i, v) in args.iter().enumerate() {
        let pname = sig.params.get(i).map_or("?", |p| p.name.as_str());
        let arg = match v.kind {
            VR_KIND_SCALAR => HostArg::Scalar(scalar_of(v)?),
            VR_KIND_ARRAY => {
                let a = host_array(&v.array)
                    .map_err(|e| invalid(format!("argument `{pname}`: {}", e.message)).with_function(name))?;
                let written = spec.writes.get(i).copied().unwrap_or(false);
                if written && convention == ArgConvention::ByValue {
                    let (copy, keep) = private_copy(&a);
                    copies.push(keep);
                    HostArg::Array(copy)
                } else {
                    if written && !a.writeable {
                        return Err(invalid(format!(
                            "argument `{pname}` is read-only (no VR_ARRAY_WRITEABLE) but `{name}` may write it"
                        ))
                        .with_function(name));
                    }
                    if let Some(span) = a.byte_span() {
                        in_place.push((span, i));
                    }
                    HostArg::Array(a)
                }
            }
            other => {
                return Err(invalid(format!(
                    "argument `{pname}`: unknown value kind {other} (VR_KIND_SCALAR = 0, VR_KIND_ARRAY = 1)"
                ))
                .with_function(name))
            }
        };
        host_args.push(arg);
    }
    // Stable only where nothing the call may write shares its bytes.
    let written_spans: Vec<(usize, usize)> = in_place
        .iter()
        .filter(|(_, i)| spec.writes.get(*i).copied().unwrap_or(true))
        .map(|(span, _)| *span)
        .collect();
    for (i, arg) in host_args.iter_mut().enumerate() {
        if let HostArg::Array(a) = arg {
            if a.stable {
                let written = spec.writes.get(i).copied().unwrap_or(true);
                let overlaps = a
                    .byte_span()
                    .is_some_and(|(lo, hi)| written_spans.iter().any(|(l, h)| *l < hi && lo < *h));
                a.stable = !written && !overlaps;
            }
        }
    }

    let mut produced = Produced { hooks, arrays: Vec::new() };
    let outcome = spec.compiled.call_host(name, &host_args, hooks.random(), |mut raw| {
        // `raw` (and the memory blocks its arrays own) lives until every result is
        // delivered: a later result may be a view into an earlier one's block.
        for (k, r) in raw.iter_mut().enumerate() {
            results[k] = match r {
                RawResult::Scalar(s) => scalar_value(*s),
                RawResult::Array(a) => {
                    let (arr, allocated) = deliver_array(hooks, a, args, &in_place)?;
                    produced.arrays.push((arr, allocated));
                    VrValue { kind: VR_KIND_ARRAY, elem: arr.elem, scalar: VrScalar { as_i64: 0 }, array: arr }
                }
            };
        }
        Ok(())
    });
    drop(copies);
    if outcome.is_err() {
        produced.undo();
    }
    outcome
}

/// One array result as a host array: a view of an argument shares its owner; anything
/// else is copied into a new host array.
unsafe fn deliver_array(
    hooks: &Hooks,
    a: &mut velociraptor::cpu::RawArray,
    args: &[VrValue],
    in_place: &[((usize, usize), usize)],
) -> VrResult<(VrArray, bool)> {
    let n = a.ty.ndims as usize;
    if n > VR_MAX_NDIMS {
        return Err(invalid(format!("a result of {n} dimensions (at most {VR_MAX_NDIMS} cross the C API)")));
    }
    let mut out = empty_array();
    out.elem = elem_code(a.ty.elem);
    out.ndims = n as i32;
    out.dims[..n].copy_from_slice(&a.dims);
    let size = elem_size(a.ty.elem);
    let count: usize = a.dims.iter().map(|d| (*d).max(0) as usize).product();
    let p = a.data as usize;
    if count > 0 {
        if let Some((_, i)) = in_place.iter().find(|((lo, hi), i)| {
            p >= *lo && p < *hi && elem_code(a.ty.elem) == args[*i].array.elem
        }) {
            let src = &args[*i].array;
            out.data = a.data as *mut c_void;
            out.strides[..n].copy_from_slice(&a.strides);
            out.layout = layout_code(a.ty.layout);
            out.flags = src.flags;
            out.owner = src.owner;
            if let Some(incref) = hooks.0.incref {
                incref(hooks.0.user_data, src.owner);
            }
            return Ok((out, false));
        }
    }
    // Created by the call, and the host has no allocator: hand the memory over as is.
    if hooks.0.alloc_array.is_none() {
        if let Some(block) = a.block.take() {
            out.data = a.data as *mut c_void;
            out.strides[..n].copy_from_slice(&a.strides);
            out.layout = layout_code(a.ty.layout);
            out.flags = VR_ARRAY_WRITEABLE;
            crate::default_alloc::adopt(&mut out, block);
            return Ok((out, true));
        }
    }
    // A new host array, contiguous in the result type's order (row for strided).
    let layout = if a.ty.layout == Layout::Col { Layout::Col } else { Layout::Row };
    out.layout = layout_code(layout);
    out.flags = VR_ARRAY_WRITEABLE;
    let want = velociraptor::runtime::host::contiguous_strides(&a.dims, layout);
    out.strides[..n].copy_from_slice(&want);
    let status = match hooks.0.alloc_array {
        Some(alloc) => alloc(hooks.0.user_data, &mut out),
        None => crate::default_alloc::alloc(&mut out, count * size),
    };
    if status != 0 || (out.data.is_null() && count > 0) {
        return Err(VrError::runtime(format!(
            "the host could not allocate a result array of dims {:?} (alloc_array returned {status})",
            a.dims
        )));
    }
    copy_strided(size, &a.dims, a.data, &a.strides, out.data as *mut u8, &out.strides[..n]);
    Ok((out, true))
}
