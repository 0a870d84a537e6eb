//! `VR_ARRAY_STABLE` and `vr_array_changed` through the C API (docs/gpu.md,
//! "Residency"): a stable argument goes up to the device once over many calls, again
//! after the host announces a change, and a stable argument that a writable argument
//! overlaps is not kept. Results are checked by hand; the transfer counts come from the
//! section report (`VR_DUMP_EXPLAIN`) where there is an OpenCL device (PoCL here).

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;
use velociraptor_capi::*;

const SRC: &str = "(module res :index-base 0
  (function g ((a f64[1,row]) (out f64[1,row])) ()
    (locals (i i64))
    (gpu
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index out i) (* 2.0 (index a i))))))
    (return)))";

fn context() -> *mut VrContext {
    let keys = [
        CString::new("backend").unwrap(),
        CString::new("cache_dir").unwrap(),
    ];
    let values = [CString::new("gpu").unwrap(), CString::new("off").unwrap()];
    let kp: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr()).collect();
    let vp: Vec<*const c_char> = values.iter().map(|v| v.as_ptr()).collect();
    let mut ctx = null_mut();
    assert_eq!(
        vr_context_create(kp.as_ptr(), vp.as_ptr(), 2, &mut ctx),
        VrStatus::VR_OK
    );
    ctx
}

fn array(data: &mut [f64], flags: u32) -> VrValue {
    // SAFETY: all-zero bits are a valid VrValue (null pointers, zero counts).
    let mut v: VrValue = unsafe { std::mem::zeroed() };
    v.kind = VR_KIND_ARRAY;
    v.elem = VR_F64;
    v.array.data = data.as_mut_ptr() as *mut c_void;
    v.array.elem = VR_F64;
    v.array.ndims = 1;
    v.array.dims[0] = data.len() as i64;
    v.array.strides[0] = 1;
    v.array.layout = VR_LAYOUT_ROW;
    v.array.flags = flags;
    v
}

/// Uploads the section has made so far, or None without a device.
fn uploads(f: *mut VrFunction) -> Option<u64> {
    let mut text = null_mut();
    assert_eq!(
        vr_function_dump(f, VR_DUMP_EXPLAIN, &mut text),
        VrStatus::VR_OK
    );
    // SAFETY: a string the API returned, freed right after.
    let explain = unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned();
    vr_string_free(text);
    let line = explain.lines().find(|l| l.starts_with("gpu section 1"))?;
    if line.contains("on the CPU in all") {
        return None;
    }
    let at = line.find("to the device ")? + "to the device ".len();
    line[at..].split(' ').next()?.parse().ok()
}

#[test]
fn a_stable_argument_goes_up_once_until_the_host_says_it_changed() {
    let ctx = context();
    let mut m = null_mut();
    assert_eq!(
        vr_module_load(
            ctx,
            SRC.as_ptr() as *const c_char,
            SRC.len(),
            VR_FORMAT_AUTO,
            &mut m
        ),
        VrStatus::VR_OK
    );
    let t = VrType {
        kind: VR_KIND_ARRAY,
        elem: VR_F64,
        ndims: 1,
        layout: VR_LAYOUT_ROW,
    };
    let name = CString::new("g").unwrap();
    let mut f = null_mut();
    assert_eq!(
        vr_compile(m, name.as_ptr(), [t, t].as_ptr(), 2, &mut f),
        VrStatus::VR_OK
    );
    // a is worth passing stable (read only, in a section); out is written.
    let (mut flags, mut n) = ([9u8; 2], 0usize);
    assert_eq!(
        unsafe { vr_function_stable_params(f, flags.as_mut_ptr(), 2, &mut n) },
        VrStatus::VR_OK
    );
    assert_eq!(n, 2);
    assert_eq!(flags, [1, 0]);
    let mut a: Vec<f64> = (0..100).map(|i| i as f64).collect();
    let mut out = vec![0.0; 100];
    for _ in 0..3 {
        let args = [
            array(&mut a, VR_ARRAY_STABLE),
            array(&mut out, VR_ARRAY_WRITEABLE),
        ];
        assert_eq!(vr_call(f, args.as_ptr(), 2, null_mut(), 0), VrStatus::VR_OK);
        assert!(out.iter().enumerate().all(|(i, x)| *x == 2.0 * i as f64));
    }
    // out goes up at every call (a parfor's written array), a at the first only.
    if let Some(u) = uploads(f) {
        assert_eq!(u, 4);
    }
    // The host changes a and says so first: uploaded again, the new values read.
    vr_array_changed(a.as_ptr() as *const c_void, a.len() * 8);
    a[5] = -1.0;
    let args = [
        array(&mut a, VR_ARRAY_STABLE),
        array(&mut out, VR_ARRAY_WRITEABLE),
    ];
    assert_eq!(vr_call(f, args.as_ptr(), 2, null_mut(), 0), VrStatus::VR_OK);
    assert_eq!(out[5], -2.0);
    if let Some(u) = uploads(f) {
        assert_eq!(u, 6);
    }
    // a stable argument that the writable one overlaps (the same memory) is not kept:
    // every call doubles the values in place, read from the host's current bytes.
    let mut x = vec![1.0, 2.0];
    for want in [[2.0, 4.0], [4.0, 8.0], [8.0, 16.0]] {
        let p = x.as_mut_ptr();
        let len = x.len();
        // SAFETY: two descriptors of one live buffer, as a C host may pass them.
        let (s1, s2) = unsafe {
            (
                std::slice::from_raw_parts_mut(p, len),
                std::slice::from_raw_parts_mut(p, len),
            )
        };
        let args = [array(s1, VR_ARRAY_STABLE), array(s2, VR_ARRAY_WRITEABLE)];
        assert_eq!(vr_call(f, args.as_ptr(), 2, null_mut(), 0), VrStatus::VR_OK);
        assert_eq!(x, want);
    }
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
}
