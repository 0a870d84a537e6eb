//! Random draws through the C API: the `random` host hook is called once per draw, in
//! program order, with the kind and bound; a hook that refuses fails the call with
//! VR_UNSUPPORTED naming the draw, the function and the line; without a hook the draws
//! are R's after `vr_random_seed` (R 4.2.2's numbers); draws in parallel code never
//! reach a host (the module does not verify).

// R's numbers are written as R prints them with 17 significant digits.
#![allow(clippy::excessive_precision)]

use std::ffi::{CStr, CString};
use std::os::raw::c_void;
use std::ptr::null_mut;
use std::sync::Mutex;
use velociraptor_capi::*;

const SRC: &str = "; four draws, one of each kind, in this order
(module draws :index-base 0
  (function four ((n f64)) (f64 f64 f64 f64)
    (locals (a f64) (b f64) (c f64) (d f64))
    (set a (random_unif))
    (set b (random_norm) :line 7)
    (set c (random_exp))
    (set d (random_index n))
    (return a b c d)))
";

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { CStr::from_ptr(vr_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn setup(hooks: Option<&VrHostHooks>) -> (*mut VrContext, *mut VrFunction) {
    let mut ctx = null_mut();
    let (k, v) = (cstr("cache_dir"), cstr("off"));
    assert_eq!(
        vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx),
        VrStatus::VR_OK
    );
    if let Some(h) = hooks {
        assert_eq!(vr_context_set_hooks(ctx, h), VrStatus::VR_OK);
    }
    let mut m = null_mut();
    assert_eq!(
        vr_module_load(
            ctx,
            SRC.as_ptr() as *const _,
            SRC.len(),
            VR_FORMAT_TEXT,
            &mut m
        ),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    let name = cstr("four");
    let t = VrType {
        kind: VR_KIND_SCALAR,
        elem: VR_F64,
        ndims: 0,
        layout: VR_LAYOUT_ROW,
    };
    let mut f = null_mut();
    assert_eq!(
        vr_compile(m, name.as_ptr(), &t, 1, &mut f),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    vr_module_free(m);
    (ctx, f)
}

fn call_four(f: *mut VrFunction, n: f64) -> Result<[f64; 4], (VrStatus, String)> {
    let mut arg: VrValue = unsafe { std::mem::zeroed() };
    arg.kind = VR_KIND_SCALAR;
    arg.elem = VR_F64;
    arg.scalar.as_f64 = n;
    let mut res: [VrValue; 4] = unsafe { std::mem::zeroed() };
    let st = vr_call(f, &arg, 1, res.as_mut_ptr(), 4);
    if st != VrStatus::VR_OK {
        return Err((st, last_message()));
    }
    Ok(res.map(|r| unsafe { r.scalar.as_f64 }))
}

/// A host generator that records every request and answers 10 * kind + order.
struct Recorder {
    seen: Mutex<Vec<(i32, f64)>>,
    refuse: Option<i32>,
}

unsafe extern "C" fn record(user: *mut c_void, kind: i32, arg: f64, out: *mut f64) -> i32 {
    let r = &*(user as *const Recorder);
    if r.refuse == Some(kind) {
        return 5;
    }
    let mut seen = r.seen.lock().unwrap();
    seen.push((kind, arg));
    *out = 10.0 * kind as f64 + seen.len() as f64;
    0
}

fn hooks_for(r: &Recorder) -> VrHostHooks {
    VrHostHooks {
        user_data: r as *const Recorder as *mut c_void,
        alloc_array: None,
        release_array: None,
        incref: None,
        decref: None,
        on_error: None,
        arg_convention: VR_BY_REFERENCE,
        random: Some(record),
    }
}

#[test]
fn the_hook_is_asked_once_per_draw_in_program_order() {
    let r = Recorder {
        seen: Mutex::new(Vec::new()),
        refuse: None,
    };
    let (ctx, f) = setup(Some(&hooks_for(&r)));
    assert_eq!(call_four(f, 6.0).unwrap(), [1.0, 12.0, 23.0, 34.0]);
    assert_eq!(
        *r.seen.lock().unwrap(),
        [
            (VR_RANDOM_UNIF, 0.0),
            (VR_RANDOM_NORM, 0.0),
            (VR_RANDOM_EXP, 0.0),
            (VR_RANDOM_INDEX, 6.0)
        ]
    );
    vr_function_free(f);
    vr_context_destroy(ctx);
}

#[test]
fn a_refusing_hook_is_an_unsupported_error_naming_the_draw_and_line() {
    let r = Recorder {
        seen: Mutex::new(Vec::new()),
        refuse: Some(VR_RANDOM_NORM),
    };
    let (ctx, f) = setup(Some(&hooks_for(&r)));
    let (st, msg) = call_four(f, 6.0).unwrap_err();
    assert_eq!(st, VrStatus::VR_UNSUPPORTED);
    assert!(
        msg.contains("random_norm") && msg.contains("status 5"),
        "{msg}"
    );
    let mut info: VrErrorInfo = unsafe { std::mem::zeroed() };
    vr_last_error(&mut info);
    assert_eq!(
        unsafe { CStr::from_ptr(info.function) }.to_str().unwrap(),
        "four"
    );
    assert_eq!(info.line, 7);
    // The draw before it was made; nothing after it.
    assert_eq!(*r.seen.lock().unwrap(), [(VR_RANDOM_UNIF, 0.0)]);
    vr_function_free(f);
    vr_context_destroy(ctx);
}

/// R 4.2.2: `set.seed(42); u <- runif(1); z <- rnorm(1); e <- rexp(1); i <- sample(6, 1)`
/// printed with 17 digits: 0.91480604349635541, 1.53067723363728647, 0.66089525213465095, 2
/// (`sample` adds one to `R_unif_index(6)`, so the index drawn is 1).
#[test]
fn without_a_hook_the_draws_are_rs_after_vr_random_seed() {
    let (ctx, f) = setup(None);
    assert_eq!(vr_random_seed(42), VrStatus::VR_OK);
    let got = call_four(f, 6.0).unwrap();
    assert_eq!(
        got,
        [
            0.91480604349635541,
            1.53067723363728647,
            0.66089525213465095,
            1.0
        ]
    );
    vr_function_free(f);
    vr_context_destroy(ctx);
}

#[test]
fn draws_in_a_parfor_do_not_verify() {
    let src = "(module p :index-base 0
  (function f ((x f64[1,row])) ()
    (locals (i i64))
    (parfor (i) (range 0 (- (dim x 0) 1))
      (block (set (index x i) (random_unif))))))";
    let mut ctx = null_mut();
    assert_eq!(
        vr_context_create(std::ptr::null(), std::ptr::null(), 0, &mut ctx),
        VrStatus::VR_OK
    );
    let mut m = null_mut();
    let st = vr_module_load(
        ctx,
        src.as_ptr() as *const _,
        src.len(),
        VR_FORMAT_TEXT,
        &mut m,
    );
    assert_eq!(st, VrStatus::VR_TYPE_ERROR);
    assert!(
        last_message().contains("not allowed inside a parfor body"),
        "{}",
        last_message()
    );
    vr_context_destroy(ctx);
}
