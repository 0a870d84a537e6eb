//! Interrupting running compiled code through the C API. A file of its own: the
//! interrupt is process-wide, and tests in one file share a process.

use std::ffi::{c_char, CString};
use std::ptr::null_mut;
use velociraptor_capi::*;

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { std::ffi::CStr::from_ptr(vr_last_error_message()) }.to_string_lossy().into_owned()
}

fn compile_r(ctx: *mut VrContext, src: &str, name: &str) -> *mut VrFunction {
    let mut f = null_mut();
    let (lang, src, name) = (cstr("r"), cstr(src), cstr(name));
    let t = [VrType { kind: VR_KIND_SCALAR, elem: VR_F64, ndims: 0, layout: 0 }];
    let st = vr_compile_source(ctx, lang.as_ptr(), src.as_ptr(), name.as_ptr(), t.as_ptr(), 1, &mut f);
    assert_eq!(st, VrStatus::VR_OK, "{}", last_message());
    f
}

/// Call `f(x)`: its f64 result, or the status and message.
fn call(f: *mut VrFunction, x: f64) -> Result<f64, (VrStatus, String)> {
    let mut arg: VrValue = unsafe { std::mem::zeroed() };
    arg.kind = VR_KIND_SCALAR;
    arg.elem = VR_F64;
    arg.scalar = VrScalar { as_f64: x };
    let mut res: [VrValue; 1] = unsafe { std::mem::zeroed() };
    match vr_call(f, &arg, 1, res.as_mut_ptr(), 1) {
        VrStatus::VR_OK => Ok(unsafe { res[0].scalar.as_f64 }),
        st => Err((st, last_message())),
    }
}

fn context() -> *mut VrContext {
    let (k, v) = (cstr("cache_dir"), cstr("off"));
    let kp: *const c_char = k.as_ptr();
    let vp: *const c_char = v.as_ptr();
    let mut ctx = null_mut();
    assert_eq!(vr_context_create(&kp, &vp, 1, &mut ctx), VrStatus::VR_OK);
    ctx
}

/// A loop that runs for minutes unless interrupted.
const LONG_LOOP: &str = "
spin <- function(n) {
  s <- 0
  for (i in 1:n) {
    for (j in 1:n) {
      s <- s + i %% 7 + j %% 3
    }
  }
  s
}
forever <- function(x) {
  k <- 0
  while (x > 0) {
    k <- k + 1
  }
  k
}
";

#[test]
fn an_interrupt_stops_a_running_call_and_later_calls_run() {
    // Tests run in parallel threads of one process and the interrupt is process-wide:
    // this is the only test that raises it, and it uses its own flag.
    static FLAG: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
    assert_eq!(vr_set_interrupt_flag(FLAG.as_ptr()), VrStatus::VR_OK);
    let ctx = context();
    for (name, arg) in [("spin", 1.0e6), ("forever", 1.0)] {
        let f = compile_r(ctx, LONG_LOOP, name) as usize;
        let stopper = std::thread::spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(200));
            FLAG.store(1, std::sync::atomic::Ordering::SeqCst);
        });
        let started = std::time::Instant::now();
        let (st, msg) = call(f as *mut VrFunction, arg).unwrap_err();
        stopper.join().unwrap();
        assert_eq!(st, VrStatus::VR_INTERRUPTED, "{name}: {msg}");
        assert!(msg.contains("interrupted"), "{msg}");
        // Not a timing assertion on speed: `spin(1e6)` needs minutes, so returning at
        // all within a minute means the poll stopped it.
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        FLAG.store(0, std::sync::atomic::Ordering::SeqCst);
        vr_function_free(f as *mut VrFunction);
    }
    // With the flag clear, calls run to the end: spin(3) = sum over i, j in 1..3 of
    // i %% 7 + j %% 3 = 3 * (1 + 2 + 3) + 3 * (1 + 2 + 0) = 27.
    let f = compile_r(ctx, LONG_LOOP, "spin");
    assert_eq!(call(f, 3.0), Ok(27.0));
    // The library's own flag, as a C or Python host uses it.
    assert_eq!(vr_set_interrupt_flag(std::ptr::null()), VrStatus::VR_OK);
    vr_request_interrupt();
    let (st, _) = call(f, 3.0).unwrap_err();
    assert_eq!(st, VrStatus::VR_INTERRUPTED);
    vr_clear_interrupt();
    assert_eq!(call(f, 3.0), Ok(27.0));
    vr_function_free(f);
    vr_context_destroy(ctx);
}

