//! The C API exercised through its extern "C" functions, as a host would: loading,
//! compiling, calling on arrays in several layouts, every error path (each a status and
//! a clear message, the process alive), host hooks, argument conventions, 8 threads at
//! once, and both caches. Expected values are computed by hand in each test.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};
use velociraptor_capi::*;

const SRC: &str = "; test module
(module m :index-base 0
  (function saxpy ((a f64) (x f64[1,strided]) (y f64[1,row])) ()
    (locals (i i64))
    (for (i) (range 0 (- (dim x 0) 1))
      (block (set (index y i) (+ (* a (index x i)) (index y i))))))
  (function total ((x f64[2,strided])) (f64)
    (locals (i i64) (j i64) (s f64))
    (set s 0.0)
    (for (i j) (domain (range 0 (- (dim x 0) 1)) (range 0 (- (dim x 1) 1)))
      (block (set s (+ s (* (index x i j) (cast f64 (+ (* 10 i) j)))))))
    (return s))
  (function get ((x f64[1,row]) (k i64)) (f64)
    (locals)
    (return (index x k)))
  (function div ((a i64) (b i64)) (i64)
    (locals)
    (return (/ a b)))
  (function scaled ((x f64[1,row]) (s f64)) (f64[1,row])
    (locals)
    (return (* x s)))
  (function tail ((x f64[1,row])) (f64[1,strided])
    (locals)
    (return (index x (range 1 _) :view)))
  (function bump ((x f64[1,row])) (f64)
    (locals)
    (set (index x 0) (+ (index x 0) 1.0))
    (return (index x 0))))
";

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { CStr::from_ptr(vr_last_error_message()) }.to_string_lossy().into_owned()
}

fn last_info() -> VrErrorInfo {
    let mut info = std::mem::MaybeUninit::<VrErrorInfo>::uninit();
    vr_last_error(info.as_mut_ptr());
    unsafe { info.assume_init() }
}

fn context(config: &[(&str, &str)]) -> *mut VrContext {
    let keys: Vec<CString> = config.iter().map(|(k, _)| cstr(k)).collect();
    let values: Vec<CString> = config.iter().map(|(_, v)| cstr(v)).collect();
    let kp: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr()).collect();
    let vp: Vec<*const c_char> = values.iter().map(|v| v.as_ptr()).collect();
    let mut ctx = null_mut();
    let st = vr_context_create(kp.as_ptr(), vp.as_ptr(), kp.len(), &mut ctx);
    assert_eq!(st, VrStatus::VR_OK, "{}", last_message());
    ctx
}

/// A context with no on-disk cache (tests must not touch the user's cache).
fn plain_context() -> *mut VrContext {
    context(&[("cache_dir", "off")])
}

fn load(ctx: *mut VrContext, src: &str) -> Result<*mut VrModule, (VrStatus, String)> {
    let mut m = null_mut();
    let st = vr_module_load(ctx, src.as_ptr() as *const c_char, src.len(), VR_FORMAT_AUTO, &mut m);
    if st == VrStatus::VR_OK {
        Ok(m)
    } else {
        assert!(m.is_null());
        Err((st, last_message()))
    }
}

fn scalar_t(elem: i32) -> VrType {
    VrType { kind: VR_KIND_SCALAR, elem, ndims: 0, layout: 0 }
}

fn array_t(elem: i32, ndims: i32, layout: i32) -> VrType {
    VrType { kind: VR_KIND_ARRAY, elem, ndims, layout }
}

fn compile(m: *mut VrModule, name: &str, types: &[VrType]) -> Result<*mut VrFunction, (VrStatus, String)> {
    let mut f = null_mut();
    let n = cstr(name);
    let st = vr_compile(m, n.as_ptr(), types.as_ptr(), types.len(), &mut f);
    if st == VrStatus::VR_OK {
        Ok(f)
    } else {
        Err((st, last_message()))
    }
}

fn f64_scalar(v: f64) -> VrValue {
    let mut x = empty_value();
    x.kind = VR_KIND_SCALAR;
    x.elem = VR_F64;
    x.scalar = VrScalar { as_f64: v };
    x
}

fn i64_scalar(v: i64) -> VrValue {
    let mut x = empty_value();
    x.kind = VR_KIND_SCALAR;
    x.elem = VR_I64;
    x.scalar = VrScalar { as_i64: v };
    x
}

fn empty_value() -> VrValue {
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
            layout: VR_LAYOUT_ROW,
            flags: 0,
            owner: null_mut(),
        },
    }
}

fn f64_array(data: &mut [f64], dims: &[i64], strides: &[i64], layout: i32) -> VrValue {
    let mut v = empty_value();
    v.kind = VR_KIND_ARRAY;
    v.array.data = data.as_mut_ptr() as *mut c_void;
    v.array.elem = VR_F64;
    v.array.ndims = dims.len() as i32;
    v.array.dims[..dims.len()].copy_from_slice(dims);
    v.array.strides[..dims.len()].copy_from_slice(strides);
    v.array.layout = layout;
    v.array.flags = VR_ARRAY_WRITEABLE;
    v
}

fn call(f: *mut VrFunction, args: &[VrValue], nres: usize) -> Result<Vec<VrValue>, (VrStatus, String)> {
    let mut res = vec![empty_value(); nres];
    let st = vr_call(f, args.as_ptr(), args.len(), res.as_mut_ptr(), nres);
    if st == VrStatus::VR_OK {
        Ok(res)
    } else {
        Err((st, last_message()))
    }
}

fn as_f64(v: &VrValue) -> f64 {
    assert_eq!(v.kind, VR_KIND_SCALAR);
    assert_eq!(v.elem, VR_F64);
    unsafe { v.scalar.as_f64 }
}

fn read_f64_array(a: &VrArray) -> Vec<f64> {
    assert_eq!(a.elem, VR_F64);
    assert_eq!(a.ndims, 1);
    (0..a.dims[0])
        .map(|i| unsafe { *(a.data as *const f64).offset((i * a.strides[0]) as isize) })
        .collect()
}

#[test]
fn abi_version_is_that_of_the_header() {
    assert_eq!(vr_abi_version(), VR_ABI_VERSION);
    assert_eq!(VR_ABI_VERSION, 3, "2: VrScalar holds complex numbers (16 bytes); 3: VrCacheStats.disk_untrusted, VrHostHooks::random");
}

#[test]
fn saxpy_writes_in_place_through_a_strided_view() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let f = compile(m, "saxpy", &[scalar_t(VR_F64), array_t(VR_F64, 1, VR_LAYOUT_STRIDED), array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    // x = every other element of [1, -1, 2, -1, 3, -1] = [1, 2, 3]; y = [10, 20, 30].
    let mut xs = [1.0, -1.0, 2.0, -1.0, 3.0, -1.0];
    let mut ys = [10.0, 20.0, 30.0];
    let args = [f64_scalar(2.0), f64_array(&mut xs, &[3], &[2], VR_LAYOUT_STRIDED), f64_array(&mut ys, &[3], &[1], VR_LAYOUT_ROW)];
    call(f, &args, 0).unwrap();
    assert_eq!(ys, [12.0, 24.0, 36.0]);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn two_dimensional_input_in_any_layout_without_copy() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    // x = [[1, 2, 3], [4, 5, 6]]: total = sum x[i][j] * (10 i + j)
    //   = 1*0 + 2*1 + 3*2 + 4*10 + 5*11 + 6*12 = 0 + 2 + 6 + 40 + 55 + 72 = 175.
    let mut row = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut col = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0];
    for (layout, data, strides) in [
        (VR_LAYOUT_ROW, &mut row, [3, 1]),
        (VR_LAYOUT_COL, &mut col, [1, 2]),
    ] {
        let f = compile(m, "total", &[array_t(VR_F64, 2, layout)]).unwrap();
        let sig = signature(f);
        assert_eq!(sig.0[0].layout, layout, "strided parameter specialized for the layout given");
        let r = call(f, &[f64_array(data, &[2, 3], &strides, layout)], 1).unwrap();
        assert_eq!(as_f64(&r[0]), 175.0);
        // The specialized function refuses an array of the other layout, clearly.
        let other = if layout == VR_LAYOUT_ROW { [1, 2] } else { [3, 1] };
        let mut tmp = *data;
        let (st, msg) = call(f, &[f64_array(&mut tmp, &[2, 3], &other, VR_LAYOUT_STRIDED)], 1).unwrap_err();
        assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
        assert!(msg.contains("not contiguous"), "{msg}");
        vr_function_free(f);
    }
    vr_module_free(m);
    vr_context_destroy(ctx);
}

/// `VR_DUMP_EXPLAIN` of `f`.
fn explain_text(f: *mut VrFunction) -> String {
    let mut text = null_mut();
    assert_eq!(vr_function_dump(f, VR_DUMP_EXPLAIN, &mut text), VrStatus::VR_OK);
    let explain = unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    explain
}

fn signature(f: *mut VrFunction) -> (Vec<VrType>, Vec<VrType>) {
    let mut ps = [scalar_t(0); 8];
    let mut rs = [scalar_t(0); 8];
    let (mut np, mut nr) = (0usize, 0usize);
    let st = vr_function_signature(f, ps.as_mut_ptr(), 8, &mut np, rs.as_mut_ptr(), 8, &mut nr);
    assert_eq!(st, VrStatus::VR_OK);
    (ps[..np].to_vec(), rs[..nr].to_vec())
}

#[test]
fn signature_and_dumps() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let (mut ps, mut rs) = ([scalar_t(0); 4], [scalar_t(0); 4]);
    let (mut np, mut nr) = (0, 0);
    let name = cstr("get");
    let st = vr_module_signature(m, name.as_ptr(), ps.as_mut_ptr(), 4, &mut np, rs.as_mut_ptr(), 4, &mut nr);
    assert_eq!(st, VrStatus::VR_OK);
    assert_eq!((np, nr), (2, 1));
    assert_eq!(ps[0], array_t(VR_F64, 1, VR_LAYOUT_ROW));
    assert_eq!(ps[1], scalar_t(VR_I64));
    assert_eq!(rs[0], scalar_t(VR_F64));

    let mut n = 0usize;
    assert_eq!(vr_module_function_count(m, &mut n), VrStatus::VR_OK);
    assert_eq!(n, 7);
    let mut s = null_mut();
    assert_eq!(vr_module_function_name(m, 2, &mut s), VrStatus::VR_OK);
    assert_eq!(unsafe { CStr::from_ptr(s) }.to_str().unwrap(), "get");
    vr_string_free(s);
    assert_eq!(vr_module_function_name(m, 7, &mut s), VrStatus::VR_INVALID_ARGUMENT);
    assert!(last_message().contains("function index 7 out of range (the module has 7)"));

    let f = compile(m, "get", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_I64)]).unwrap();
    for (what, needle) in [(VR_DUMP_VRIR_TEXT, "(function get"), (VR_DUMP_VRIR_JSON, "\"name\": \"get\""), (VR_DUMP_LLVM_IR, "define")] {
        let mut s = null_mut();
        assert_eq!(vr_function_dump(f, what, &mut s), VrStatus::VR_OK);
        let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
        assert!(text.contains(needle), "{what}: {text}");
        // Only the function and what it calls are compiled.
        assert!(!text.contains("saxpy"), "{text}");
        vr_string_free(s);
    }
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn load_errors_are_parse_and_type_errors() {
    let ctx = plain_context();
    let (st, msg) = load(ctx, "{\"name\": \"m\", \"index_base\": 0, \"functions\": [").unwrap_err();
    assert_eq!(st, VrStatus::VR_PARSE_ERROR);
    assert!(msg.starts_with("parse error"), "{msg}");
    let (st, msg) = load(ctx, "(module m :index-base 0 (function f () (f64) (locals) (return 1)))").unwrap_err();
    assert_eq!(st, VrStatus::VR_TYPE_ERROR);
    assert!(msg.contains("type error") && msg.contains("f"), "{msg}");
    let info = last_info();
    assert_eq!(info.status, VrStatus::VR_TYPE_ERROR);
    let (st, msg) = load(ctx, "(module").unwrap_err();
    assert_eq!(st, VrStatus::VR_PARSE_ERROR, "{msg}");
    // A good call afterwards clears the last error.
    let m = load(ctx, SRC).unwrap();
    assert_eq!(last_message(), "");
    assert_eq!(last_info().status, VrStatus::VR_OK);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn compile_errors() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let (st, msg) = compile(m, "get", &[array_t(VR_I32, 1, VR_LAYOUT_ROW), scalar_t(VR_I64)]).unwrap_err();
    assert_eq!(st, VrStatus::VR_TYPE_ERROR);
    assert!(msg.contains("parameter `x` of `get` is declared f64[1,row] but the argument type is i32[1,row]"), "{msg}");
    let (st, msg) = compile(m, "get", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("takes 2 arguments but 1 argument types were given"), "{msg}");
    let (st, msg) = compile(m, "nope", &[]).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("no function `nope`") && msg.contains("saxpy"), "{msg}");
    let (st, msg) = compile(m, "get", &[array_t(99, 1, 0), scalar_t(VR_I64)]).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("unknown element type code 99"), "{msg}");
    // Null pointers are refused, not dereferenced.
    let mut f = null_mut();
    assert_eq!(vr_compile(m, std::ptr::null(), std::ptr::null(), 0, &mut f), VrStatus::VR_INVALID_ARGUMENT);
    assert!(last_message().contains("name is null"));
    assert_eq!(vr_compile(null_mut(), cstr("get").as_ptr(), std::ptr::null(), 0, &mut f), VrStatus::VR_INVALID_ARGUMENT);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

fn compile_r(ctx: *mut VrContext, src: &str, name: &str, types: &[VrType]) -> Result<*mut VrFunction, (VrStatus, String)> {
    let mut f = null_mut();
    let (lang, src, name) = (cstr("r"), cstr(src), cstr(name));
    let st = vr_compile_source(ctx, lang.as_ptr(), src.as_ptr(), name.as_ptr(), types.as_ptr(), types.len(), &mut f);
    if st == VrStatus::VR_OK {
        Ok(f)
    } else {
        assert!(f.is_null());
        Err((st, last_message()))
    }
}

/// R source with a helper: `weighted` sums a[i, j] * j over a matrix with loops, `total`
/// calls it (so the callee comes along in the compiled module).
const R_SRC: &str = "
weighted <- function(a) {
  s <- 0
  for (j in 1:ncol(a)) {
    for (i in 1:nrow(a)) {
      s <- s + a[i, j] * j
    }
  }
  s
}
total <- function(a, k = 1) weighted(a) + k
";

#[test]
fn r_source_compiles_through_the_front_end() {
    let ctx = plain_context();
    let f = compile_r(ctx, R_SRC, "total", &[array_t(VR_F64, 2, VR_LAYOUT_COL)]).unwrap();
    // R: a <- matrix(1:6 + 0, 2, 3); total(a) = (1+2)*1 + (3+4)*2 + (5+6)*3 + 1 = 51
    let mut data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let a = f64_array(&mut data, &[2, 3], &[1, 2], VR_LAYOUT_COL);
    assert_eq!(as_f64(&call(f, &[a], 1).unwrap()[0]), 51.0);
    // The same function compiled again is a cache hit.
    let g = compile_r(ctx, R_SRC, "total", &[array_t(VR_F64, 2, VR_LAYOUT_COL)]).unwrap();
    assert_eq!(stats(ctx).memory_hits, 1);
    let mut text = null_mut();
    assert_eq!(vr_function_dump(g, VR_DUMP_EXPLAIN, &mut text), VrStatus::VR_OK);
    let explain = unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    assert!(explain.contains("backend: cpu (serial)") && explain.contains("bce-version on weighted"), "{explain}");
    vr_function_free(f);
    vr_function_free(g);
    vr_context_destroy(ctx);
}

#[test]
fn r_source_diagnostics_keep_kind_and_line() {
    let ctx = plain_context();
    let t = [array_t(VR_F64, 1, VR_LAYOUT_COL)];
    let (st, msg) = compile_r(ctx, "f <- function(x) {\n  y <- x +\n}\n", "f", &t).unwrap_err();
    assert_eq!(st, VrStatus::VR_PARSE_ERROR, "{msg}");
    let (st, msg) = compile_r(ctx, "f <- function(x) {\n  s <- 0\n  s <- frobnicate(x)\n  s\n}\n", "f", &t).unwrap_err();
    assert_eq!(st, VrStatus::VR_UNSUPPORTED, "{msg}");
    assert!(msg.contains("frobnicate") && msg.contains("line 3"), "{msg}");
    // A type R does not have.
    let (st, msg) = compile_r(ctx, "f <- function(x) x", "f", &[scalar_t(VR_I64)]).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT, "{msg}");
    assert!(msg.contains("no R counterpart"), "{msg}");
    let mut f = null_mut();
    let (lang, src, name) = (cstr("cobol"), cstr("x"), cstr("f"));
    let st = vr_compile_source(ctx, lang.as_ptr(), src.as_ptr(), name.as_ptr(), t.as_ptr(), 1, &mut f);
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(last_message().contains("unknown language `cobol`"));
    vr_context_destroy(ctx);
}

fn compile_r_sig(ctx: *mut VrContext, src: &str, name: &str, sig: &str) -> Result<*mut VrFunction, (VrStatus, String)> {
    let mut f = null_mut();
    let (lang, src, name, sig) = (cstr("r"), cstr(src), cstr(name), cstr(sig));
    let st = vr_compile_source_sig(ctx, lang.as_ptr(), src.as_ptr(), name.as_ptr(), sig.as_ptr(), &mut f);
    if st == VrStatus::VR_OK {
        Ok(f)
    } else {
        assert!(f.is_null());
        Err((st, last_message()))
    }
}

#[test]
fn r_source_with_list_arguments_and_globals() {
    let ctx = plain_context();
    let src = "run <- function(data) {\n  s <- 0\n  for (i in seq_along(data$x)) s <- s + data$x[i] * data$w\n  s * K\n}\n";
    // A list (x, w and a character vector the function never reads), then the global K.
    let sig = r#"{"args": [{"list": [["x", "f64[1]"], ["w", "f64"], ["label", {"opaque": "a character vector"}]]}], "globals": [["K", "f64"]]}"#;
    let f = compile_r_sig(ctx, src, "run", sig).unwrap();
    let (params, results) = signature(f);
    assert_eq!((params.len(), results.len()), (3, 1));
    assert_eq!((params[0].kind, params[1].kind, params[2].kind), (VR_KIND_ARRAY, VR_KIND_SCALAR, VR_KIND_SCALAR));
    // (1 + 2 + 3) * 2 * 10
    let mut x = [1.0, 2.0, 3.0];
    let args = [f64_array(&mut x, &[3], &[1], VR_LAYOUT_COL), f64_scalar(2.0), f64_scalar(10.0)];
    assert_eq!(as_f64(&call(f, &args, 1).unwrap()[0]), 120.0);
    vr_function_free(f);
    // Reading the element compiled code cannot hold names it.
    let (st, msg) = compile_r_sig(ctx, "run <- function(data) data$label", "run", sig).unwrap_err();
    assert_eq!(st, VrStatus::VR_UNSUPPORTED, "{msg}");
    assert!(msg.contains("a character vector"), "{msg}");
    // A list result: its elements are the results; its type says how to rebuild it.
    let src2 = "stats <- function(x) list(total = sum(x), twice = x * 2, inner = list(n = length(x)))";
    let f = compile_r_sig(ctx, src2, "stats", r#"{"args": ["f64[1]"]}"#).unwrap();
    let mut text = null_mut();
    assert_eq!(vr_function_result_list(f, &mut text), VrStatus::VR_OK);
    let layout = unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    assert_eq!(layout, r#"{"frame":false,"list":[["total","f64"],["twice","f64[1]"],["inner",{"frame":false,"list":[["n","i32"]]}]]}"#);
    let mut x = [1.0, 2.0, 4.0];
    let mut out = call(f, &[f64_array(&mut x, &[3], &[1], VR_LAYOUT_COL)], 3).unwrap();
    assert_eq!(as_f64(&out[0]), 7.0);
    assert_eq!(read_f64_array(&out[1].array), vec![2.0, 4.0, 8.0]);
    assert_eq!(unsafe { out[2].scalar.as_i32 }, 3);
    vr_array_free(&mut out[1].array);
    vr_function_free(f);
    // Not a list: the empty string.
    let f = compile_r_sig(ctx, "f <- function(x) x", "f", r#"{"args": ["f64"]}"#).unwrap();
    assert_eq!(vr_function_result_list(f, &mut text), VrStatus::VR_OK);
    assert_eq!(unsafe { std::ffi::CStr::from_ptr(text) }.to_bytes().len(), 0);
    vr_string_free(text);
    vr_function_free(f);
    let (st, msg) = compile_r_sig(ctx, src, "run", "{\"args\": [\"f65\"]}").unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT, "{msg}");
    assert!(msg.contains("unknown element type `f65`"), "{msg}");
    let (st, _) = compile_r_sig(ctx, src, "run", "not json").unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    vr_context_destroy(ctx);
}

/// A parfor that doubles every element; run through `backend = cpu-par` with and
/// without the on-disk cache.
const PARFOR_SRC: &str = "(module par :index-base 0
  (function dbl ((x f64[1,row])) ()
    (locals (i i64))
    (parfor (i) (range 0 (- (len x) 1))
      (block (set (index x i) (* 2.0 (index x i)))))
    (return)))";

/// The parfor of PARFOR_SRC inside a `gpu` section.
const GPU_DBL_SRC: &str = "(module g :index-base 0
  (function dbl ((x f64[1,row])) ()
    (locals (i i64))
    (gpu
      (parfor (i) (range 0 (- (len x) 1))
        (block (set (index x i) (* 2.0 (index x i))))))
    (return)))";

/// `backend=gpu`: the parfor of a `gpu` section on the OpenCL device (or the CPU without
/// one), the same results; never written to the disk cache.
#[test]
fn gpu_backend_through_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let cache_s = dir.path().join("c").to_str().unwrap().to_string();
    let src = GPU_DBL_SRC;
    let ctx = context(&[("backend", "gpu"), ("cache_dir", &cache_s)]);
    let m = load(ctx, src).unwrap();
    let f = compile(m, "dbl", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    let mut xs: Vec<f64> = (0..1000).map(|i| i as f64).collect();
    call(f, &[f64_array(&mut xs, &[1000], &[1], VR_LAYOUT_ROW)], 0).unwrap();
    assert!(xs.iter().enumerate().all(|(i, x)| *x == 2.0 * i as f64));
    let explain = explain_text(f);
    assert!(explain.contains("backend: gpu: on_gpu sections on "), "{explain}");
    // The section's report: where it ran, what moved, how long it took.
    let mut kind = -2;
    let mut desc = null_mut();
    assert_eq!(vr_gpu_device(&mut kind, &mut desc), VrStatus::VR_OK);
    let device = unsafe { std::ffi::CStr::from_ptr(desc) }.to_string_lossy().into_owned();
    vr_string_free(desc);
    assert!((-1..=1).contains(&kind));
    let line = explain.lines().find(|l| l.starts_with("gpu section 1 (dbl)")).expect(&explain);
    if kind >= 0 {
        assert!(line.contains(&format!("ran on {device} in 1 run(s)")), "{line}");
        assert!(line.contains("1 kernel launch(es)"), "{line}");
        assert!(line.contains("to the device 1 transfer(s), 8000 bytes"), "{line}");
        assert!(line.contains("to the host 1 transfer(s), 8000 bytes"), "{line}");
        assert!(line.contains("ms in transfers") && line.contains("ms in kernels"), "{line}");
    } else {
        assert!(line.contains("ran on the CPU in all 1 run(s)"), "{line}");
    }
    assert_eq!((stats(ctx).compiles, stats(ctx).disk_hits), (1, 0));
    // Machine code with offload actions is never written; program binaries go to the
    // `opencl` folder (the kernel cache).
    let written: Vec<String> = std::fs::read_dir(&cache_s)
        .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert!(written.iter().all(|n| n == "opencl"), "{written:?}");
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

/// `backend=auto`: the same section, its task placed by the cost model (calibrated on
/// first use in the process); the results are the
/// same wherever it ran, and explain says what the model estimated and chose.
#[test]
fn auto_backend_through_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let cache_s = dir.path().join("c").to_str().unwrap().to_string();
    let src = GPU_DBL_SRC;
    let ctx = context(&[("backend", "auto"), ("cache_dir", &cache_s)]);
    let m = load(ctx, src).unwrap();
    let f = compile(m, "dbl", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    let mut xs: Vec<f64> = (0..1000).map(|i| i as f64).collect();
    call(f, &[f64_array(&mut xs, &[1000], &[1], VR_LAYOUT_ROW)], 0).unwrap();
    assert!(xs.iter().enumerate().all(|(i, x)| *x == 2.0 * i as f64));
    let explain = explain_text(f);
    assert!(explain.contains("backend: auto: each task of the on_gpu sections on "), "{explain}");
    let mut kind = -2;
    let mut desc = null_mut();
    assert_eq!(vr_gpu_device(&mut kind, &mut desc), VrStatus::VR_OK);
    vr_string_free(desc);
    if kind >= 0 {
        let placed = explain.lines().find(|l| l.starts_with("gpu section 1 placement (cost model): ")).expect(&explain);
        assert!(placed.contains("last estimate "), "{placed}");
        // (Measured now, or earlier in this process; its disk entry is tested by
        // core/tests/gpu_placement.rs, in processes of its own.)
        assert!(explain.contains("gpu placement: cost model calibrated on "), "{explain}");
    }
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn cpu_par_backend_through_the_api_and_its_disk_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache_s = dir.path().join("c").to_str().unwrap().to_string();
    for round in 0..2 {
        let ctx = context(&[("backend", "cpu-par"), ("threads", "2"), ("cache_dir", &cache_s)]);
        let m = load(ctx, PARFOR_SRC).unwrap();
        let f = compile(m, "dbl", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
        let mut xs: Vec<f64> = (0..100_000).map(|i| i as f64).collect();
        call(f, &[f64_array(&mut xs, &[100_000], &[1], VR_LAYOUT_ROW)], 0).unwrap();
        assert!(xs.iter().enumerate().all(|(i, x)| *x == 2.0 * i as f64));
        let explain = explain_text(f);
        assert!(explain.contains("backend: cpu-par (2 threads)"), "{explain}");
        let s = stats(ctx);
        // The second context loads the parallel code from disk.
        assert_eq!((s.compiles, s.disk_hits), if round == 0 { (1, 0) } else { (0, 1) });
        vr_function_free(f);
        vr_module_free(m);
        vr_context_destroy(ctx);
    }
    // Serial and parallel code of one function are different cache entries.
    let ctx = context(&[("backend", "cpu"), ("cache_dir", &cache_s)]);
    let m = load(ctx, PARFOR_SRC).unwrap();
    let f = compile(m, "dbl", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    assert_eq!(stats(ctx).compiles, 1);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn optimizer_passes_are_configured_per_context() {
    let ctx = context(&[("cache_dir", "off"), ("passes", "none"), ("params_noalias", "yes")]);
    let f = compile_r(ctx, R_SRC, "weighted", &[array_t(VR_F64, 2, VR_LAYOUT_COL)]).unwrap();
    let mut data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let a = f64_array(&mut data, &[2, 3], &[1, 2], VR_LAYOUT_COL);
    assert_eq!(as_f64(&call(f, &[a], 1).unwrap()[0]), 50.0);
    let explain = explain_text(f);
    assert!(explain.contains("(no pass ran)"), "{explain}");
    vr_function_free(f);
    vr_context_destroy(ctx);
    let (k, v) = (cstr("passes"), cstr("-fastest"));
    let mut bad = null_mut();
    assert_eq!(vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut bad), VrStatus::VR_INVALID_ARGUMENT);
    assert!(last_message().contains("unknown optimizer pass `fastest`"), "{}", last_message());
}

#[test]
fn complex_scalars_and_arrays_cross_the_api() {
    let ctx = plain_context();
    let src = "
zsum <- function(z, w) {
  s <- 0+0i
  for (k in seq_along(z)) s <- s + z[k] * w
  s
}
zscale <- function(z, w) z * w
";
    let types = [array_t(VR_C128, 1, VR_LAYOUT_COL), scalar_t(VR_C128)];
    let mut zs = [1.0, 2.0, 3.0, -1.0]; // 1+2i, 3-1i, interleaved
    let z = || {
        let mut v = empty_value();
        v.kind = VR_KIND_ARRAY;
        v.array.data = zs.as_ptr() as *mut c_void;
        v.array.elem = VR_C128;
        v.array.ndims = 1;
        v.array.dims[0] = 2;
        v.array.strides[0] = 1;
        v.array.layout = VR_LAYOUT_COL;
        v
    };
    let mut w = empty_value();
    w.elem = VR_C128;
    w.scalar = VrScalar { as_c128: [2.0, 1.0] };
    // (1+2i)(2+i) + (3-i)(2+i) = 5i + (7+i) = 7+6i, by hand (R: sum(c(1+2i, 3-1i) * (2+1i)))
    let f = compile_r(ctx, src, "zsum", &types).unwrap();
    let r = call(f, &[z(), w], 1).unwrap();
    assert_eq!((r[0].kind, r[0].elem), (VR_KIND_SCALAR, VR_C128));
    assert_eq!(unsafe { r[0].scalar.as_c128 }, [7.0, 6.0]);
    let g = compile_r(ctx, src, "zscale", &types).unwrap();
    let mut r = call(g, &[z(), w], 1).unwrap();
    assert_eq!((r[0].kind, r[0].array.elem, r[0].array.dims[0]), (VR_KIND_ARRAY, VR_C128, 2));
    let got: Vec<f64> = (0..2)
        .flat_map(|i| unsafe {
            let p = (r[0].array.data as *const f64).offset(2 * i * r[0].array.strides[0] as isize);
            [*p, *p.add(1)]
        })
        .collect();
    assert_eq!(got, [0.0, 5.0, 7.0, 1.0]);
    vr_array_free(&mut r[0].array);
    let _ = &mut zs;
    vr_function_free(f);
    vr_function_free(g);
    vr_context_destroy(ctx);
}

#[test]
fn configuration_errors() {
    let (k, v) = (cstr("opt_levle"), cstr("2"));
    let mut ctx = null_mut();
    let st = vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx);
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(last_message().contains("unknown configuration key `opt_levle`"), "{}", last_message());
    assert!(ctx.is_null());
    let (k, v) = (cstr("threads"), cstr("0"));
    assert_eq!(vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx), VrStatus::VR_INVALID_ARGUMENT);
    assert!(last_message().contains("`threads` = `0`: expected a positive integer"));
    let (k, v) = (cstr("backend"), cstr("interp"));
    assert_eq!(vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx), VrStatus::VR_UNSUPPORTED);
    // Every documented key is accepted.
    let ctx = context(&[("threads", "4"), ("opt_level", "1"), ("bounds_check", "on"), ("backend", "cpu"), ("cache_dir", "off"), ("passes", "-bce"), ("params_noalias", "yes")]);
    vr_context_destroy(ctx);
}

#[test]
fn call_errors_leave_the_process_alive() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let f = compile(m, "get", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_I64)]).unwrap();
    let mut xs = [1.0, 2.0, 3.0];
    let x = f64_array(&mut xs, &[3], &[1], VR_LAYOUT_ROW);

    // Out of bounds at run time, with the structured fields.
    let (st, msg) = call(f, &[x, i64_scalar(7)], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_OUT_OF_BOUNDS);
    assert!(msg.contains("index 7 out of bounds 0..3"), "{msg}");
    let info = last_info();
    assert_eq!(info.status, VrStatus::VR_OUT_OF_BOUNDS);
    assert_eq!((info.has_index, info.index, info.has_bound, info.bound, info.dim), (1, 7, 1, 3, 0));
    assert_eq!(unsafe { CStr::from_ptr(info.function) }.to_str().unwrap(), "get");
    assert_eq!(unsafe { CStr::from_ptr(info.variable) }.to_str().unwrap(), "x");

    // Wrong argument count and types at call time.
    let (st, msg) = call(f, &[x], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("`get` takes 2 arguments but 1 were given"), "{msg}");
    let (st, msg) = call(f, &[x, f64_scalar(1.0)], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("argument `k`: expected i64, got f64"), "{msg}");
    let (st, msg) = call(f, &[i64_scalar(1), i64_scalar(1)], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("argument `x`: expected f64[1,row], got i64"), "{msg}");
    let (st, msg) = call(f, &[x, i64_scalar(1)], 2).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("returns 1 results but room for 2"), "{msg}");
    let mut bad = x;
    bad.array.dims[0] = -3;
    let (st, msg) = call(f, &[bad, i64_scalar(0)], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("negative dimension -3"), "{msg}");

    // Division by zero.
    let d = compile(m, "div", &[scalar_t(VR_I64), scalar_t(VR_I64)]).unwrap();
    let (st, msg) = call(d, &[i64_scalar(1), i64_scalar(0)], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_DIVISION_BY_ZERO);
    assert!(msg.contains("division by zero"), "{msg}");

    // Still alive and correct.
    let r = call(f, &[x, i64_scalar(2)], 1).unwrap();
    assert_eq!(as_f64(&r[0]), 3.0);
    vr_function_free(d);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn results_from_the_library_allocator_and_views_of_arguments() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let f = compile(m, "scaled", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_F64)]).unwrap();
    let mut xs = [1.0, 2.0, 3.0];
    let r = call(f, &[f64_array(&mut xs, &[3], &[1], VR_LAYOUT_ROW), f64_scalar(0.5)], 1).unwrap();
    let mut a = r[0].array;
    assert_eq!(read_f64_array(&a), [0.5, 1.0, 1.5]);
    assert_ne!(a.data, xs.as_mut_ptr() as *mut c_void);
    vr_array_free(&mut a);
    assert!(a.data.is_null());

    let t = compile(m, "tail", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    let r = call(t, &[f64_array(&mut xs, &[3], &[1], VR_LAYOUT_ROW)], 1).unwrap();
    let mut a = r[0].array;
    // A view: it points into the argument itself.
    assert_eq!(a.data, unsafe { xs.as_mut_ptr().add(1) } as *mut c_void);
    assert_eq!(read_f64_array(&a), [2.0, 3.0]);
    vr_array_free(&mut a); // not ours: left alone
    assert!(!a.data.is_null());
    vr_function_free(t);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

/// A host that counts what the hooks were asked to do.
#[derive(Default)]
struct Host {
    allocs: AtomicUsize,
    releases: AtomicUsize,
    increfs: AtomicUsize,
    decrefs: AtomicUsize,
    errors: AtomicUsize,
    fail_alloc: bool,
}

unsafe extern "C" fn host_alloc(user: *mut c_void, out: *mut VrArray) -> i32 {
    let host = &*(user as *const Host);
    host.allocs.fetch_add(1, Ordering::SeqCst);
    if host.fail_alloc {
        return 1;
    }
    let out = &mut *out;
    let n: i64 = out.dims[..out.ndims as usize].iter().product();
    let v: Box<[f64]> = vec![0.0; n as usize].into_boxed_slice();
    out.data = Box::into_raw(v) as *mut c_void;
    out.owner = 0xABC as *mut c_void;
    0
}
unsafe extern "C" fn host_release(user: *mut c_void, a: *mut VrArray) {
    (*(user as *const Host)).releases.fetch_add(1, Ordering::SeqCst);
    let a = &*a;
    drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(a.data as *mut f64, a.dims[0] as usize)));
}
unsafe extern "C" fn host_incref(user: *mut c_void, owner: *mut c_void) {
    assert_eq!(owner as usize, 0x1234);
    (*(user as *const Host)).increfs.fetch_add(1, Ordering::SeqCst);
}
unsafe extern "C" fn host_decref(user: *mut c_void, _owner: *mut c_void) {
    (*(user as *const Host)).decrefs.fetch_add(1, Ordering::SeqCst);
}
unsafe extern "C" fn host_error(user: *mut c_void, status: VrStatus) {
    assert_ne!(status, VrStatus::VR_OK);
    (*(user as *const Host)).errors.fetch_add(1, Ordering::SeqCst);
}

fn hooks(host: &Host, convention: i32) -> VrHostHooks {
    VrHostHooks {
        user_data: host as *const Host as *mut c_void,
        alloc_array: Some(host_alloc),
        release_array: Some(host_release),
        incref: Some(host_incref),
        decref: Some(host_decref),
        on_error: Some(host_error),
        arg_convention: convention,
        random: None,
    }
}

#[test]
fn host_hooks_allocate_results_and_count_references() {
    let host = Host::default();
    let ctx = plain_context();
    assert_eq!(vr_context_set_hooks(ctx, &hooks(&host, VR_BY_REFERENCE)), VrStatus::VR_OK);
    let m = load(ctx, SRC).unwrap();
    let f = compile(m, "scaled", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_F64)]).unwrap();
    let mut xs = [1.0, 2.0, 3.0];
    let mut x = f64_array(&mut xs, &[3], &[1], VR_LAYOUT_ROW);
    x.array.owner = 0x1234 as *mut c_void;
    let r = call(f, &[x, f64_scalar(2.0)], 1).unwrap();
    assert_eq!(host.allocs.load(Ordering::SeqCst), 1);
    assert_eq!(r[0].array.owner as usize, 0xABC);
    assert_eq!(read_f64_array(&r[0].array), [2.0, 4.0, 6.0]);
    unsafe { host_release(&host as *const Host as *mut c_void, &r[0].array as *const VrArray as *mut VrArray) };

    // A view of the argument shares its owner: one incref.
    let t = compile(m, "tail", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    let r = call(t, &[x], 1).unwrap();
    assert_eq!(r[0].array.owner as usize, 0x1234);
    assert_eq!(host.increfs.load(Ordering::SeqCst), 1);

    // A failing call tells the host once.
    let g = compile(m, "get", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_I64)]).unwrap();
    call(g, &[x, i64_scalar(-1)], 1).unwrap_err();
    assert_eq!(host.errors.load(Ordering::SeqCst), 1);

    // An allocator that fails: a runtime error, reported.
    let failing = Host { fail_alloc: true, ..Host::default() };
    assert_eq!(vr_context_set_hooks(ctx, &hooks(&failing, VR_BY_REFERENCE)), VrStatus::VR_OK);
    let (st, msg) = call(f, &[x, f64_scalar(2.0)], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_RUNTIME_ERROR);
    assert!(msg.contains("the host could not allocate"), "{msg}");
    assert_eq!(failing.errors.load(Ordering::SeqCst), 1);
    for h in [g, t, f] {
        vr_function_free(h);
    }
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn by_value_hosts_never_see_their_arrays_change() {
    let host = Host::default();
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let f = compile(m, "bump", &[array_t(VR_F64, 1, VR_LAYOUT_ROW)]).unwrap();
    let mut xs = [1.0, 2.0];

    // By reference (the default): the write is visible.
    let r = call(f, &[f64_array(&mut xs, &[2], &[1], VR_LAYOUT_ROW)], 1).unwrap();
    assert_eq!((as_f64(&r[0]), xs), (2.0, [2.0, 2.0]));
    // A read-only array for a parameter the function writes is refused.
    let mut ro = f64_array(&mut xs, &[2], &[1], VR_LAYOUT_ROW);
    ro.array.flags = 0;
    let (st, msg) = call(f, &[ro], 1).unwrap_err();
    assert_eq!(st, VrStatus::VR_INVALID_ARGUMENT);
    assert!(msg.contains("argument `x` is read-only"), "{msg}");

    // By value: the function sees its own copy.
    assert_eq!(vr_context_set_hooks(ctx, &hooks(&host, VR_BY_VALUE)), VrStatus::VR_OK);
    let r = call(f, &[f64_array(&mut xs, &[2], &[1], VR_LAYOUT_ROW)], 1).unwrap();
    assert_eq!((as_f64(&r[0]), xs), (3.0, [2.0, 2.0]));
    let r = call(f, &[ro], 1).unwrap();
    assert_eq!(as_f64(&r[0]), 3.0);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn eight_threads_call_one_function_at_once() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let f = compile(m, "scaled", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_F64)]).unwrap();
    let g = compile(m, "get", &[array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_I64)]).unwrap();
    struct Shared(*mut VrFunction, *mut VrFunction);
    unsafe impl Sync for Shared {}
    let shared = Shared(f, g);
    std::thread::scope(|s| {
        for t in 0..8 {
            let shared = &shared;
            s.spawn(move || {
                for round in 0..200 {
                    let n = 1 + (t * 7 + round) % 50;
                    let mut xs: Vec<f64> = (0..n).map(|i| (i + t) as f64).collect();
                    let factor = (t + 1) as f64;
                    let r = call(shared.0, &[f64_array(&mut xs, &[n as i64], &[1], VR_LAYOUT_ROW), f64_scalar(factor)], 1).unwrap();
                    let mut a = r[0].array;
                    let want: Vec<f64> = (0..n).map(|i| (i + t) as f64 * factor).collect();
                    assert_eq!(read_f64_array(&a), want, "thread {t} round {round}");
                    vr_array_free(&mut a);
                    // Errors are per thread too.
                    let (st, msg) = call(shared.1, &[f64_array(&mut xs, &[n as i64], &[1], VR_LAYOUT_ROW), i64_scalar(n as i64 + t as i64)], 1).unwrap_err();
                    assert_eq!(st, VrStatus::VR_OUT_OF_BOUNDS);
                    assert!(msg.contains(&format!("index {} out of bounds 0..{n}", n + t)), "{msg}");
                }
            });
        }
    });
    vr_function_free(g);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

fn stats(ctx: *mut VrContext) -> VrCacheStats {
    let mut s = VrCacheStats::default();
    assert_eq!(vr_context_stats(ctx, &mut s), VrStatus::VR_OK);
    s
}

#[test]
fn in_process_cache_compiles_each_specialization_once() {
    let ctx = plain_context();
    let m = load(ctx, SRC).unwrap();
    let row = [array_t(VR_F64, 1, VR_LAYOUT_ROW), scalar_t(VR_I64)];
    let f1 = compile(m, "get", &row).unwrap();
    let f2 = compile(m, "get", &row).unwrap();
    let s = stats(ctx);
    assert_eq!((s.compiles, s.memory_hits), (1, 1));
    // Another module with the same function (and callees) shares the entry.
    let m2 = load(ctx, SRC).unwrap();
    let f3 = compile(m2, "get", &row).unwrap();
    // A different shape class is another specialization.
    let f4 = compile(m, "total", &[array_t(VR_F64, 2, VR_LAYOUT_ROW)]).unwrap();
    let f5 = compile(m, "total", &[array_t(VR_F64, 2, VR_LAYOUT_COL)]).unwrap();
    let s = stats(ctx);
    assert_eq!((s.compiles, s.memory_hits), (3, 2));
    for f in [f1, f2, f3, f4, f5] {
        vr_function_free(f);
    }
    vr_module_free(m);
    vr_module_free(m2);
    vr_context_destroy(ctx);
}

#[test]
fn stats_wait_for_the_background_write_and_stats_now_does_not() {
    // Quick first through a disk cache: the full tier's object is written by the
    // background compile. vr_context_stats counts it once it has happened; _now may be
    // read before (0) or after (1), and agrees once the other has waited.
    let dir = tempfile::tempdir().unwrap();
    let cache_s = dir.path().join("vr-cache").to_str().unwrap().to_string();
    let ctx = context(&[("cache_dir", &cache_s), ("tiers", "quick-first")]);
    let m = load(ctx, SRC).unwrap();
    let types = [scalar_t(VR_F64), array_t(VR_F64, 1, VR_LAYOUT_STRIDED), array_t(VR_F64, 1, VR_LAYOUT_ROW)];
    let f = compile(m, "saxpy", &types).unwrap();
    let mut now = VrCacheStats::default();
    assert_eq!(vr_context_stats_now(ctx, &mut now), VrStatus::VR_OK);
    assert!(now.disk_writes <= 1 && now.compiles == 1, "{now:?}");
    assert_eq!(stats(ctx).disk_writes, 1);
    assert_eq!(vr_context_stats_now(ctx, &mut now), VrStatus::VR_OK);
    assert_eq!((now.compiles, now.disk_writes), (1, 1));
    assert_eq!(vr_context_stats_now(std::ptr::null(), &mut now), VrStatus::VR_INVALID_ARGUMENT);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}

#[test]
fn disk_cache_is_reused_by_a_new_context_and_bad_entries_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("vr-cache");
    let cache_s = cache.to_str().unwrap().to_string();
    let types = [scalar_t(VR_F64), array_t(VR_F64, 1, VR_LAYOUT_STRIDED), array_t(VR_F64, 1, VR_LAYOUT_ROW)];
    let run = |ctx: *mut VrContext| {
        let m = load(ctx, SRC).unwrap();
        let f = compile(m, "saxpy", &types).unwrap();
        let mut xs = [1.0, 2.0];
        let mut ys = [3.0, 4.0];
        call(f, &[f64_scalar(10.0), f64_array(&mut xs, &[2], &[1], VR_LAYOUT_STRIDED), f64_array(&mut ys, &[2], &[1], VR_LAYOUT_ROW)], 0).unwrap();
        assert_eq!(ys, [13.0, 24.0]);
        vr_function_free(f);
        vr_module_free(m);
    };
    // First "process": compiles and writes one entry.
    let a = context(&[("cache_dir", &cache_s)]);
    run(a);
    let s = stats(a);
    assert_eq!((s.compiles, s.disk_hits, s.disk_writes), (1, 0, 1));
    vr_context_destroy(a);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&cache).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "the cache directory is private");
    }
    // Second: loads the machine code, compiles nothing.
    let b = context(&[("cache_dir", &cache_s)]);
    run(b);
    let s = stats(b);
    assert_eq!((s.compiles, s.disk_hits, s.disk_writes), (0, 1, 0));
    vr_context_destroy(b);
    // Truncate the entry: detected, rebuilt, and the result is still right.
    let entries: Vec<_> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let bytes = std::fs::read(&entries[0]).unwrap();
    std::fs::write(&entries[0], &bytes[..bytes.len() / 2]).unwrap();
    let c = context(&[("cache_dir", &cache_s)]);
    run(c);
    let s = stats(c);
    assert_eq!((s.compiles, s.disk_hits, s.disk_rejects, s.disk_writes), (1, 0, 1, 1));
    vr_context_destroy(c);
    // Flip one byte of the machine code: the checksum catches it.
    let mut bytes = std::fs::read(&entries[0]).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 0xFF;
    std::fs::write(&entries[0], &bytes).unwrap();
    let d = context(&[("cache_dir", &cache_s)]);
    run(d);
    let s = stats(d);
    assert_eq!((s.compiles, s.disk_hits, s.disk_rejects), (1, 0, 1));
    vr_context_destroy(d);
}

#[test]
fn a_changed_callee_changes_the_cache_key() {
    let dir = tempfile::tempdir().unwrap();
    let cache_s = dir.path().join("c").to_str().unwrap().to_string();
    let src = |k: f64| {
        format!(
            "(module m :index-base 0
               (function g ((x f64)) (f64) (locals) (return (* x {k:?})))
               (function f ((x f64)) (f64) (locals) (return (call g x))))"
        )
    };
    let mut got = Vec::new();
    for k in [2.0, 3.0, 2.0] {
        let ctx = context(&[("cache_dir", &cache_s)]);
        let m = load(ctx, &src(k)).unwrap();
        let f = compile(m, "f", &[scalar_t(VR_F64)]).unwrap();
        got.push((as_f64(&call(f, &[f64_scalar(5.0)], 1).unwrap()[0]), stats(ctx).disk_hits));
        vr_function_free(f);
        vr_module_free(m);
        vr_context_destroy(ctx);
    }
    assert_eq!(got, [(10.0, 0), (15.0, 0), (10.0, 1)]);
}

#[test]
fn two_results_in_one_block_created_by_the_call() {
    // b is a view into a: both live in one block of the call's memory.
    let src = "(module m :index-base 0
      (function pair ((n i64)) (f64[1,row] f64[1,strided])
        (locals (a f64[1,row]))
        (set a (fill f64[1,row] 2.0 n))
        (set (index a 0) 1.0)
        (return a (index a (range 1 _) :view))))";
    let ctx = plain_context();
    let m = load(ctx, src).unwrap();
    let f = compile(m, "pair", &[scalar_t(VR_I64)]).unwrap();
    // The library's memory, handed over without a copy; the second result is copied
    // (its block belongs to the first).
    let r = call(f, &[i64_scalar(4)], 2).unwrap();
    let (mut a, mut b) = (r[0].array, r[1].array);
    assert_eq!(read_f64_array(&a), [1.0, 2.0, 2.0, 2.0]);
    assert_eq!(read_f64_array(&b), [2.0, 2.0, 2.0]);
    vr_array_free(&mut a);
    vr_array_free(&mut b);
    assert!(a.data.is_null() && b.data.is_null());
    // Through the host's allocator: both copied, from memory still alive.
    let host = Host::default();
    assert_eq!(vr_context_set_hooks(ctx, &hooks(&host, VR_BY_REFERENCE)), VrStatus::VR_OK);
    let r = call(f, &[i64_scalar(3)], 2).unwrap();
    assert_eq!(read_f64_array(&r[0].array), [1.0, 2.0, 2.0]);
    assert_eq!(read_f64_array(&r[1].array), [2.0, 2.0]);
    assert_eq!(host.allocs.load(Ordering::SeqCst), 2);
    for v in &r {
        unsafe { host_release(&host as *const Host as *mut c_void, &v.array as *const VrArray as *mut VrArray) };
    }
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}
