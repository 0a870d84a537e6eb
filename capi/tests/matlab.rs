//! MATLAB source through the C API, as the Octave MEX shim uses it: compiled with
//! `vr_compile_source(ctx, "matlab", ...)`, called on column-major arrays, one output or
//! the first N (`name.nargoutN`), run-time errors in MATLAB's terms with their fields.
//! Expected values are computed by hand.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::ptr::null_mut;
use velociraptor_capi::*;

const SRC: &str = "function [s, n] = total(x)
  s = 0;
  for k = 1:numel(x)
    s = s + x(k);
  end
  n = numel(x);
end

function y = pick(x, i)
  y = x(i);
end

function y = root(x)
  y = sqrt(x);
end
";

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_info() -> (VrStatus, String, Option<String>, i64, Option<i64>, Option<i64>) {
    let mut info = std::mem::MaybeUninit::<VrErrorInfo>::uninit();
    vr_last_error(info.as_mut_ptr());
    let i = unsafe { info.assume_init() };
    let s = |p: *const c_char| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned());
    (i.status, s(i.message).unwrap_or_default(), s(i.variable), i.line, (i.has_index != 0).then_some(i.index), (i.has_bound != 0).then_some(i.bound))
}

fn compile(ctx: *mut VrContext, name: &str, types: &[VrType]) -> Result<*mut VrFunction, VrStatus> {
    let (lang, src, n) = (cstr("matlab"), cstr(SRC), cstr(name));
    let mut f = null_mut();
    match vr_compile_source(ctx, lang.as_ptr(), src.as_ptr(), n.as_ptr(), types.as_ptr(), types.len(), &mut f) {
        VrStatus::VR_OK => Ok(f),
        st => Err(st),
    }
}

fn matrix_t() -> VrType {
    VrType { kind: VR_KIND_ARRAY, elem: VR_F64, ndims: 2, layout: VR_LAYOUT_COL }
}

fn scalar_t() -> VrType {
    VrType { kind: VR_KIND_SCALAR, elem: VR_F64, ndims: 0, layout: VR_LAYOUT_COL }
}

fn matrix(data: &mut [f64], rows: i64, cols: i64) -> VrValue {
    let mut a: VrArray = unsafe { std::mem::zeroed() };
    a.data = data.as_mut_ptr().cast();
    a.elem = VR_F64;
    a.ndims = 2;
    a.dims[0] = rows;
    a.dims[1] = cols;
    a.strides[0] = 1;
    a.strides[1] = rows;
    a.layout = VR_LAYOUT_COL;
    VrValue { kind: VR_KIND_ARRAY, elem: VR_F64, scalar: VrScalar { as_f64: 0.0 }, array: a }
}

fn scalar(v: f64) -> VrValue {
    let mut out: VrValue = unsafe { std::mem::zeroed() };
    out.kind = VR_KIND_SCALAR;
    out.elem = VR_F64;
    out.scalar = VrScalar { as_f64: v };
    out
}

#[test]
fn matlab_functions_compile_and_run_through_the_c_api() {
    let mut ctx = null_mut();
    let (k, v) = (cstr("cache_dir"), cstr("off"));
    assert_eq!(vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx), VrStatus::VR_OK);
    let mut data = [1.0, 2.0, 3.0, 4.5, 5.0, 6.0];
    let args = [matrix(&mut data, 2, 3)];

    // Both outputs, then the first only.
    let f = compile(ctx, "total", &[matrix_t()]).unwrap();
    let mut out: [VrValue; 2] = unsafe { std::mem::zeroed() };
    assert_eq!(vr_call(f, args.as_ptr(), 1, out.as_mut_ptr(), 2), VrStatus::VR_OK);
    assert_eq!(unsafe { (out[0].scalar.as_f64, out[1].scalar.as_f64) }, (21.5, 6.0));
    vr_function_free(f);
    let f = compile(ctx, "total.nargout1", &[matrix_t()]).unwrap();
    let mut one: [VrValue; 1] = unsafe { std::mem::zeroed() };
    assert_eq!(vr_call(f, args.as_ptr(), 1, one.as_mut_ptr(), 1), VrStatus::VR_OK);
    assert_eq!(unsafe { one[0].scalar.as_f64 }, 21.5);
    vr_function_free(f);

    // An index past the end: MATLAB's bounds error with variable, index and bound.
    let f = compile(ctx, "pick", &[matrix_t(), scalar_t()]).unwrap();
    let bad = [matrix(&mut data, 2, 3), scalar(7.0)];
    assert_eq!(vr_call(f, bad.as_ptr(), 2, one.as_mut_ptr(), 1), VrStatus::VR_OUT_OF_BOUNDS);
    let (st, _, var, line, index, bound) = last_info();
    assert_eq!((st, var.as_deref(), line, index, bound), (VrStatus::VR_OUT_OF_BOUNDS, Some("x"), 10, Some(7), Some(6)));
    // A fractional index: MATLAB's error, explained.
    let frac = [matrix(&mut data, 2, 3), scalar(1.5)];
    assert_eq!(vr_call(f, frac.as_ptr(), 2, one.as_mut_ptr(), 1), VrStatus::VR_RUNTIME_ERROR);
    let (_, msg, _, line, _, _) = last_info();
    assert!(msg.contains("subscripts must be either integers") && line == 10, "{msg}");
    vr_function_free(f);

    // A complex result of sqrt: unsupported at run time (the host runs it itself).
    let f = compile(ctx, "root", &[scalar_t()]).unwrap();
    let neg = [scalar(-4.0)];
    assert_eq!(vr_call(f, neg.as_ptr(), 1, one.as_mut_ptr(), 1), VrStatus::VR_UNSUPPORTED);
    let (_, msg, _, _, _, _) = last_info();
    assert!(msg.contains("complex"), "{msg}");
    vr_function_free(f);

    // A type MATLAB has no class for, and a missing function.
    let v1 = VrType { kind: VR_KIND_ARRAY, elem: VR_F64, ndims: 1, layout: VR_LAYOUT_COL };
    assert_eq!(compile(ctx, "total", &[v1]).unwrap_err(), VrStatus::VR_INVALID_ARGUMENT);
    assert_eq!(compile(ctx, "nothing", &[scalar_t()]).unwrap_err(), VrStatus::VR_INVALID_ARGUMENT);
    vr_context_destroy(ctx);
}
