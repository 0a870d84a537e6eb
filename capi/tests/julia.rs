//! The C API as Velociraptor.jl uses it through `@ccall` (julia-package/src): Julia source
//! compiled with `vr_compile_source(ctx, "julia", ...)`, arrays handed over in place
//! (column-major, by reference: the function's writes land in the caller's memory, no
//! copy), results from the library's allocator, and errors in Julia's words with
//! function, line, variable, index and bound in `vr_last_error`. Everything below the
//! package's `@ccall` line, tested where Julia is not installed. Expected values by hand.

use std::ffi::{CStr, CString};
use std::os::raw::c_void;
use std::ptr::null_mut;
use velociraptor_capi::*;

const SRC: &str = "using LinearAlgebra

function scale!(x::Vector{Float64}, a)
    for i in eachindex(x)
        x[i] *= a
    end
    return nothing
end

function col_sums(A)
    m, n = size(A)
    s = zeros(n)
    for j in 1:n, i in 1:m
        s[j] += A[i, j]
    end
    return s, sum(s)
end

function get(x, i)
    return x[i]
end

@vr_not_a_macro_we_know
halve(n) = n ÷ 2
";

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn context() -> *mut VrContext {
    let (k, v) = (cstr("cache_dir"), cstr("off"));
    let (kp, vp) = ([k.as_ptr()], [v.as_ptr()]);
    let mut ctx = null_mut();
    assert_eq!(vr_context_create(kp.as_ptr(), vp.as_ptr(), 1, &mut ctx), VrStatus::VR_OK);
    let hooks = VrHostHooks {
        user_data: null_mut(),
        alloc_array: None,
        release_array: None,
        incref: None,
        decref: None,
        on_error: None,
        arg_convention: VR_BY_REFERENCE,
        random: None,
    };
    assert_eq!(vr_context_set_hooks(ctx, &hooks), VrStatus::VR_OK);
    ctx
}

fn compile(ctx: *mut VrContext, name: &str, types: &[VrType]) -> Result<*mut VrFunction, (VrStatus, String)> {
    let (lang, src, n) = (cstr("julia"), cstr(SRC), cstr(name));
    let mut f = null_mut();
    let st = vr_compile_source(ctx, lang.as_ptr(), src.as_ptr(), n.as_ptr(), types.as_ptr(), types.len(), &mut f);
    if st == VrStatus::VR_OK {
        Ok(f)
    } else {
        Err((st, unsafe { CStr::from_ptr(vr_last_error_message()) }.to_string_lossy().into_owned()))
    }
}

fn empty() -> VrValue {
    VrValue {
        kind: VR_KIND_SCALAR,
        elem: VR_F64,
        scalar: VrScalar { as_i64: 0 },
        array: VrArray {
            data: null_mut(),
            elem: VR_F64,
            ndims: 0,
            dims: [0; VR_MAX_NDIMS],
            strides: [0; VR_MAX_NDIMS],
            layout: VR_LAYOUT_COL,
            flags: 0,
            owner: null_mut(),
        },
    }
}

fn scalar_f64(v: f64) -> VrValue {
    VrValue { scalar: VrScalar { as_f64: v }, ..empty() }
}

fn scalar_i64(v: i64) -> VrValue {
    VrValue { elem: VR_I64, scalar: VrScalar { as_i64: v }, ..empty() }
}

/// A Julia `Array{Float64}` as Velociraptor.jl passes it: its own memory, column-major.
fn array(data: &mut [f64], dims: &[i64]) -> VrValue {
    let mut v = empty();
    v.kind = VR_KIND_ARRAY;
    v.array.data = data.as_mut_ptr() as *mut c_void;
    v.array.ndims = dims.len() as i32;
    v.array.dims[..dims.len()].copy_from_slice(dims);
    let mut stride = 1;
    for (k, d) in dims.iter().enumerate() {
        v.array.strides[k] = stride;
        stride *= d;
    }
    v.array.flags = VR_ARRAY_WRITEABLE;
    v
}

fn t_array(ndims: i32) -> VrType {
    VrType { kind: VR_KIND_ARRAY, elem: VR_F64, ndims, layout: VR_LAYOUT_COL }
}

fn t_scalar(elem: i32) -> VrType {
    VrType { kind: VR_KIND_SCALAR, elem, ndims: 0, layout: 0 }
}

#[test]
fn julia_functions_write_the_callers_arrays_in_place() {
    let ctx = context();
    let f = compile(ctx, "scale!", &[t_array(1), t_scalar(VR_F64)]).unwrap();
    let mut x = vec![1.0, 2.0, 4.0];
    let args = [array(&mut x, &[3]), scalar_f64(0.5)];
    assert_eq!(vr_call(f, args.as_ptr(), 2, null_mut(), 0), VrStatus::VR_OK);
    assert_eq!(x, [0.5, 1.0, 2.0]);
    vr_function_free(f);
    vr_context_destroy(ctx);
}

#[test]
fn several_results_come_back_from_the_librarys_allocator() {
    let ctx = context();
    let f = compile(ctx, "col_sums", &[t_array(2)]).unwrap();
    // [1 3; 2 4] column-major.
    let mut a = vec![1.0, 2.0, 3.0, 4.0];
    let args = [array(&mut a, &[2, 2])];
    let mut res = [empty(), empty()];
    assert_eq!(vr_call(f, args.as_ptr(), 1, res.as_mut_ptr(), 2), VrStatus::VR_OK);
    let s = unsafe { std::slice::from_raw_parts(res[0].array.data as *const f64, 2) };
    assert_eq!(s, [3.0, 7.0]);
    assert_eq!(unsafe { res[1].scalar.as_f64 }, 10.0);
    vr_array_free(&mut res[0].array);
    vr_function_free(f);
    vr_context_destroy(ctx);
}

#[test]
fn errors_come_in_julias_words_with_their_location() {
    let ctx = context();
    let f = compile(ctx, "get", &[t_array(1), t_scalar(VR_I64)]).unwrap();
    let mut x = vec![1.0, 2.0];
    let args = [array(&mut x, &[2]), scalar_i64(3)];
    let mut res = [empty()];
    assert_eq!(vr_call(f, args.as_ptr(), 2, res.as_mut_ptr(), 1), VrStatus::VR_OUT_OF_BOUNDS);
    let mut info = std::mem::MaybeUninit::<VrErrorInfo>::uninit();
    vr_last_error(info.as_mut_ptr());
    let info = unsafe { info.assume_init() };
    let s = |p: *const std::os::raw::c_char| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    assert!(s(info.message).contains("BoundsError: attempt to access `x` at index [3]"), "{}", s(info.message));
    assert_eq!(s(info.function), "get");
    assert_eq!(s(info.variable), "x");
    assert_eq!((info.line, info.has_index, info.index, info.has_bound, info.bound), (20, 1, 3, 1, 2));
    vr_function_free(f);
    // Division by zero in a script's short function; the unknown macro above it is
    // stepped over.
    let f = compile(ctx, "halve", &[t_scalar(VR_I64)]).unwrap();
    let args = [scalar_i64(7)];
    assert_eq!(vr_call(f, args.as_ptr(), 1, res.as_mut_ptr(), 1), VrStatus::VR_OK);
    assert_eq!(unsafe { res[0].scalar.as_i64 }, 3);
    vr_function_free(f);
    // Compile-time refusals name the construct (the package falls back to Julia).
    let (st, msg) = compile(ctx, "scale!", &[VrType { elem: VR_I64, ..t_array(1) }, t_scalar(VR_F64)]).map(|_| ()).unwrap_err();
    assert_eq!(st, VrStatus::VR_TYPE_ERROR, "{msg}");
    assert!(msg.contains("MethodError") && msg.contains("Vector{Float64}"), "{msg}");
    let (st, msg) = compile(ctx, "get", &[VrType { elem: VR_F32, ..t_array(1) }, t_scalar(VR_I64)]).map(|_| ()).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT, "{msg}");
    vr_context_destroy(ctx);
}
