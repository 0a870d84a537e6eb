//! Interrupts and exits while compiled code runs on several threads (issue 21, faults):
//! an interrupt during a parallel loop (`prange` on the cpu-par backend) stops the call
//! with VR_INTERRUPTED and the next call is right; a process that exits while worker
//! threads are inside a parallel loop exits with its own status (no crash, no hang). A
//! file of its own: the interrupt flag is process-wide. The exit runs in a child process
//! (this binary's `child` test with `VR_PAR_CHILD` set).

use std::ffi::{c_char, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicI32, Ordering};
use velociraptor_capi::*;

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { std::ffi::CStr::from_ptr(vr_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// A parallel loop whose every iteration runs an inner loop of n passes: n = 10^6 needs
/// hours, n = 4 is quick. Each s[i] = sum over j in 1..n of j %% 3.
const SRC: &str = "
spin_par <- function(n) {
  s <- numeric(n)
  for (i in prange(n)) {
    t <- 0
    for (j in 1:n) {
      t <- t + j %% 3
    }
    s[i] <- t
  }
  sum(s)
}
";

fn context() -> *mut VrContext {
    let keys = [cstr("cache_dir"), cstr("backend"), cstr("threads")];
    let values = [cstr("off"), cstr("cpu-par"), cstr("2")];
    let kp: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr()).collect();
    let vp: Vec<*const c_char> = values.iter().map(|v| v.as_ptr()).collect();
    let mut ctx = null_mut();
    assert_eq!(
        vr_context_create(kp.as_ptr(), vp.as_ptr(), kp.len(), &mut ctx),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    ctx
}

fn compile(ctx: *mut VrContext) -> *mut VrFunction {
    let mut f = null_mut();
    let (lang, src, name) = (cstr("r"), cstr(SRC), cstr("spin_par"));
    let t = [VrType {
        kind: VR_KIND_SCALAR,
        elem: VR_F64,
        ndims: 0,
        layout: 0,
    }];
    let st = vr_compile_source(
        ctx,
        lang.as_ptr(),
        src.as_ptr(),
        name.as_ptr(),
        t.as_ptr(),
        1,
        &mut f,
    );
    assert_eq!(st, VrStatus::VR_OK, "{}", last_message());
    let mut e = null_mut();
    assert_eq!(
        vr_function_dump(f, VR_DUMP_EXPLAIN, &mut e),
        VrStatus::VR_OK
    );
    let explain = unsafe { std::ffi::CStr::from_ptr(e) }
        .to_string_lossy()
        .into_owned();
    vr_string_free(e);
    assert!(explain.contains("cpu-par"), "{explain}");
    f
}

fn call(f: *mut VrFunction, x: f64) -> Result<f64, (VrStatus, String)> {
    // SAFETY: VrValue is plain data; zero is a valid (scalar 0) value.
    let mut arg: VrValue = unsafe { std::mem::zeroed() };
    arg.kind = VR_KIND_SCALAR;
    arg.elem = VR_F64;
    arg.scalar = VrScalar { as_f64: x };
    let mut res: VrValue = unsafe { std::mem::zeroed() };
    match vr_call(f, &arg, 1, &mut res, 1) {
        VrStatus::VR_OK => Ok(unsafe { res.scalar.as_f64 }),
        st => Err((st, last_message())),
    }
}

/// spin_par(4): 4 iterations of (1 + 2 + 0 + 1) = 16.
const SMALL: (f64, f64) = (4.0, 16.0);

/// The interrupt scenario (in the child: a loop that is not stopped would run for
/// hours, so the parent's deadline turns that into a failure instead of a hang).
fn interrupt_scenario() {
    static FLAG: AtomicI32 = AtomicI32::new(0);
    assert_eq!(vr_set_interrupt_flag(FLAG.as_ptr()), VrStatus::VR_OK);
    let ctx = context();
    let f = compile(ctx);
    assert_eq!(call(f, SMALL.0), Ok(SMALL.1));
    for round in 0..3 {
        let stopper = std::thread::spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            FLAG.store(1, Ordering::SeqCst);
        });
        let started = std::time::Instant::now();
        let (st, msg) = call(f, 1.0e6).unwrap_err();
        stopper.join().unwrap();
        assert_eq!(st, VrStatus::VR_INTERRUPTED, "round {round}: {msg}");
        assert!(msg.contains("interrupted"), "{msg}");
        // Not a speed assertion: the call needs hours, so returning at all means the
        // workers' polls stopped it.
        assert!(started.elapsed() < std::time::Duration::from_secs(120));
        FLAG.store(0, Ordering::SeqCst);
        assert_eq!(call(f, SMALL.0), Ok(SMALL.1), "after round {round}");
    }
    vr_function_free(f);
    vr_context_destroy(ctx);
    assert_eq!(vr_set_interrupt_flag(std::ptr::null()), VrStatus::VR_OK);
}

/// Not a test by itself: the exiting process.
#[test]
fn child() {
    let Ok(how) = std::env::var("VR_PAR_CHILD") else {
        return;
    };
    if how == "interrupt" {
        interrupt_scenario();
        println!("EXITING");
        return;
    }
    // Kept reachable: the process exits with it alive on purpose (so LeakSanitizer, in
    // scripts/test.sh's ASan run, does not count it as a leak).
    static KEEP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let ctx = context() as usize;
    std::hint::black_box(&KEEP).store(ctx, Ordering::SeqCst);
    let f = compile(ctx as *mut VrContext) as usize;
    std::thread::spawn(move || {
        let _ = call(f as *mut VrFunction, 1.0e6);
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    println!("EXITING");
    use std::io::Write;
    std::io::stdout().flush().unwrap();
    match how.as_str() {
        // exit(): atexit handlers and static destructors run while workers compute.
        "exit" => std::process::exit(7),
        // _exit(): nothing runs, the kernel ends the threads.
        "_exit" => unsafe { libc::_exit(8) },
        other => panic!("unknown {other}"),
    }
}

/// Run this binary's `child` test on `how`; its exit code and output, or a failure when
/// it does not exit within `secs` (a hang).
fn run_child(how: &str, secs: u64) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "--quiet",
        ])
        .env("VR_PAR_CHILD", how)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{how}: the process did not finish within {secs} s (hang)");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("EXITING"), "{how}: {}\n{text}", out.status);
    (out.status.code(), text)
}

#[test]
fn an_interrupt_stops_a_parallel_loop_and_the_next_call_is_right() {
    if std::env::var("VR_PAR_CHILD").is_ok() {
        return;
    }
    // Generous: three interrupted calls of 0.3 s plus the compile.
    let (code, text) = run_child("interrupt", 240);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn exiting_while_workers_run_a_parallel_loop_exits_cleanly() {
    if std::env::var("VR_PAR_CHILD").is_ok() {
        return;
    }
    for (how, want) in [("exit", 7), ("_exit", 8)] {
        let (code, text) = run_child(how, 120);
        assert_eq!(code, Some(want), "{how}: a signal means a crash\n{text}");
    }
}
