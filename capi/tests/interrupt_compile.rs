//! An interrupt during a compile (issue 21, faults). The defined behaviour (core's
//! `cpu::interrupt`, docs/c-api.md "Interrupts"): a compile polls the interrupt flag at
//! its safe points (the front end, every optimizer pass, the code generator between
//! functions, before and after LLVM's passes, before writing the on-disk entry) and
//! stops at the first one that finds it set, with VR_INTERRUPTED and nothing of it kept
//! in the context's cache or on disk; after the flag is cleared the same request
//! compiles from the start and is right, and a fresh process loads what that compile
//! wrote.
//!
//! Each scenario runs in a child process (this binary's `child` test with
//! `VR_COMPILE_CHILD` set) under a deadline: the flag is process-wide, and a compile
//! that ignored it must fail the test, not hang it.

use std::ffi::CString;
use std::path::Path;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};
use velociraptor_capi::*;

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { std::ffi::CStr::from_ptr(vr_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// Functions `f1` .. `fN` and `top`, which calls them all (the compiled unit is `top`
/// with everything it calls). fk(x) runs 4 x 3 passes of `s <- s + x * k`, so fk(x) =
/// 12 k x and top(x) = 12 x N (N + 1) / 2.
const N: usize = 240;

fn source() -> String {
    let mut s = String::new();
    for k in 1..=N {
        s.push_str(&format!(
            "f{k} <- function(x) {{\n  s <- 0\n  for (i in 1:4) {{\n    for (j in 1:3) {{\n      s <- s + x * {k}\n    }}\n  }}\n  s\n}}\n"
        ));
    }
    s.push_str("top <- function(x) {\n  t <- 0\n");
    for k in 1..=N {
        s.push_str(&format!("  t <- t + f{k}(x)\n"));
    }
    s.push_str("  t\n}\n");
    s
}

/// top(x) by hand.
fn expected(x: f64) -> f64 {
    12.0 * x * (N * (N + 1) / 2) as f64
}

fn context(cache_dir: &str) -> *mut VrContext {
    let (k, v) = (cstr("cache_dir"), cstr(cache_dir));
    let mut ctx = null_mut();
    assert_eq!(
        vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    ctx
}

fn compile(ctx: *mut VrContext, src: &str) -> Result<*mut VrFunction, (VrStatus, String)> {
    let mut f = null_mut();
    let (lang, src, name) = (cstr("r"), cstr(src), cstr("top"));
    let t = [VrType {
        kind: VR_KIND_SCALAR,
        elem: VR_F64,
        ndims: 0,
        layout: 0,
    }];
    match vr_compile_source(
        ctx,
        lang.as_ptr(),
        src.as_ptr(),
        name.as_ptr(),
        t.as_ptr(),
        1,
        &mut f,
    ) {
        VrStatus::VR_OK => Ok(f),
        st => {
            assert!(f.is_null(), "a failed compile handed out a function");
            Err((st, last_message()))
        }
    }
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

fn stats(ctx: *mut VrContext) -> VrCacheStats {
    let mut s: VrCacheStats = unsafe { std::mem::zeroed() };
    assert_eq!(vr_context_stats(ctx, &mut s), VrStatus::VR_OK);
    s
}

/// The files in the cache directory (entries and any temporary file).
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The host's own flag, as R passes `&R_interrupts_pending`.
static FLAG: AtomicI32 = AtomicI32::new(0);

/// Raise the interrupt `after` from now on another thread: the host's flag
/// (`vr_set_interrupt_flag`, as R does) or the library's own (`vr_request_interrupt`).
fn raise_after(after: Duration, own: bool) -> std::thread::JoinHandle<Instant> {
    std::thread::spawn(move || {
        std::thread::sleep(after);
        if own {
            vr_request_interrupt();
        } else {
            FLAG.store(1, Ordering::SeqCst);
        }
        Instant::now()
    })
}

fn interrupt_scenario(dir: &Path) {
    let src = source();
    // How long the whole compile takes here, on the same path (compiled to an object,
    // written, loaded) but another directory, so the one tested stays empty: the
    // interrupts below land at fractions of it.
    let scratch = tempfile::tempdir().unwrap();
    let off = context(scratch.path().to_str().unwrap());
    let t0 = Instant::now();
    let f = compile(off, &src).unwrap_or_else(|e| panic!("{e:?}"));
    let whole = t0.elapsed();
    assert_eq!(call(f, 2.0), Ok(expected(2.0)));
    vr_function_free(f);
    vr_context_destroy(off);
    println!("WHOLE {:.3}", whole.as_secs_f64());
    // The premise: long enough that an interrupt lands inside it.
    assert!(
        whole >= Duration::from_millis(500),
        "the module compiled in {whole:?}: too small to interrupt"
    );

    let ctx = context(dir.to_str().unwrap());
    // A flag set before the compile starts stops it at once.
    FLAG.store(1, Ordering::SeqCst);
    let t = Instant::now();
    let (st, msg) = compile(ctx, &src).unwrap_err();
    assert_eq!(st, VrStatus::VR_INTERRUPTED, "{msg}");
    assert!(msg.contains("before the front end"), "{msg}");
    assert!(t.elapsed() < whole / 4, "{:?}", t.elapsed());
    FLAG.store(0, Ordering::SeqCst);

    // Raised while it runs, at 5% .. 45% of its length: the optimizer, the code
    // generator, LLVM. Each stops with VR_INTERRUPTED at the next safe point (the last
    // one, before the entry is written, comes at about 70% here).
    for (round, (fraction, own)) in [(0.05, false), (0.15, true), (0.3, false), (0.45, true)]
        .into_iter()
        .enumerate()
    {
        // Compiles read the flag compiled code reads: the one the host named, else the
        // library's own.
        let source = if own { std::ptr::null() } else { FLAG.as_ptr() as *const i32 };
        assert_eq!(vr_set_interrupt_flag(source), VrStatus::VR_OK);
        let raiser = raise_after(whole.mul_f64(fraction), own);
        let (st, msg) = compile(ctx, &src).unwrap_err();
        let returned = Instant::now();
        let raised = raiser.join().unwrap();
        assert_eq!(st, VrStatus::VR_INTERRUPTED, "round {round}: {msg}");
        assert!(msg.contains("interrupted"), "{msg}");
        assert!(msg.contains("nothing of it was cached"), "{msg}");
        let latency = returned.saturating_duration_since(raised);
        let phase = msg.split("before ").nth(1).unwrap_or("?").split(';').next().unwrap();
        println!(
            "ROUND {round} at {fraction}: stopped {:.3} s after the raise, before {phase}",
            latency.as_secs_f64()
        );
        // Nothing on disk: no entry, no temporary file.
        assert_eq!(files(dir), Vec::<String>::new(), "round {round}");
        if own {
            vr_clear_interrupt();
        } else {
            FLAG.store(0, Ordering::SeqCst);
        }
    }
    // Nothing was counted as compiled or kept: no LLVM compile finished, none written.
    let s = stats(ctx);
    assert_eq!(
        (s.compiles, s.memory_hits, s.disk_hits, s.disk_writes, s.disk_rejects),
        (0, 0, 0, 0, 0),
        "{s:?}"
    );

    // Cleared: the same request compiles from the start, is right, writes one entry.
    let f = compile(ctx, &src).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(call(f, 2.0), Ok(expected(2.0)));
    assert_eq!(call(f, -0.5), Ok(expected(-0.5)));
    let s = stats(ctx);
    assert_eq!((s.compiles, s.memory_hits, s.disk_writes), (1, 0, 1), "{s:?}");
    assert_eq!(files(dir).len(), 1, "{:?}", files(dir));
    // The in-process cache now answers it.
    let g = compile(ctx, &src).unwrap();
    assert_eq!(stats(ctx).memory_hits, 1);
    assert_eq!(call(g, 1.0), Ok(expected(1.0)));
    vr_function_free(g);
    vr_function_free(f);
    vr_context_destroy(ctx);
}

/// A fresh process on the directory: loads the entry the cleared compile wrote (no
/// compile, no reject) and answers right.
fn load_scenario(dir: &Path) {
    let ctx = context(dir.to_str().unwrap());
    let f = compile(ctx, &source()).unwrap_or_else(|e| panic!("{e:?}"));
    let s = stats(ctx);
    assert_eq!((s.disk_hits, s.compiles, s.disk_rejects), (1, 0, 0), "{s:?}");
    assert_eq!(call(f, 3.0), Ok(expected(3.0)));
    vr_function_free(f);
    vr_context_destroy(ctx);
}

/// Not a test by itself: the scenario's process.
#[test]
fn child() {
    let Ok(how) = std::env::var("VR_COMPILE_CHILD") else {
        return;
    };
    let dir = std::path::PathBuf::from(std::env::var("VR_COMPILE_DIR").unwrap());
    assert_eq!(vr_set_interrupt_flag(FLAG.as_ptr()), VrStatus::VR_OK);
    match how.as_str() {
        "interrupt" => interrupt_scenario(&dir),
        "load" => load_scenario(&dir),
        other => panic!("unknown {other}"),
    }
    println!("EXITING");
}

/// Run this binary's `child` test on `how`; its output, or a failure when it does not
/// exit within `secs` (a compile that ignored the interrupt, or a hang).
fn run_child(how: &str, dir: &Path, secs: u64) -> String {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["child", "--exact", "--nocapture", "--test-threads=1", "--quiet"])
        .env("VR_COMPILE_CHILD", how)
        .env("VR_COMPILE_DIR", dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{how}: the process did not finish within {secs} s (hang)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("EXITING"),
        "{how}: {}\n{text}",
        out.status
    );
    text
}

#[test]
fn an_interrupt_stops_a_compile_caches_nothing_and_the_next_compile_is_right() {
    if std::env::var("VR_COMPILE_CHILD").is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = run_child("interrupt", dir.path(), 300);
    for line in text.lines().filter(|l| l.starts_with("WHOLE") || l.starts_with("ROUND")) {
        eprintln!("{line}");
    }
    let text = run_child("load", dir.path(), 120);
    assert!(text.contains("EXITING"));
}
