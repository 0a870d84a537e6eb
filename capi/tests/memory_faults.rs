//! Memory faults through the C API: compiled code asking for an impossible amount of
//! memory, and for a possible amount the process may not have (under an address space
//! limit, as `ulimit -v` sets), gives a clean error status and message and the context
//! answers correctly afterwards; and 10^5 calls (results handed to the host and freed,
//! error paths included) leave resident memory flat. Expected values by hand.
//!
//! The last two run in a child process (this binary's `child` test with
//! `VR_MEMORY_CHILD` set): a resource limit or a memory figure is the process's own.

#![cfg(target_os = "linux")]

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::process::Command;
use std::ptr::null_mut;
use velociraptor_capi::*;

const SRC: &str = "(module m :index-base 0
  (function ramp ((n i64)) (f64[1,row])
    (locals (g f64[1,row]) (i i64))
    (set g (fill f64[1,row] 1.5 n))
    (for (i) (range 0 (- n 1)) (block (set (index g i) (cast f64 i))))
    (return g))
  (function total ((n i64)) (f64)
    (locals (g f64[1,row]) (i i64) (s f64))
    (set g (zeros f64[1,row] n))
    (set s 0.0)
    (for (i) (range 0 (- n 1))
      (block (set (index g i) (cast f64 i)) (set s (+ s (index g i)))))
    (return s)))";

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { CStr::from_ptr(vr_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn zero_value() -> VrValue {
    // SAFETY: VrValue is plain data; zero is a valid (scalar 0) value.
    unsafe { std::mem::zeroed() }
}

fn i64_scalar(v: i64) -> VrValue {
    let mut x = zero_value();
    x.kind = VR_KIND_SCALAR;
    x.elem = VR_I64;
    x.scalar = VrScalar { as_i64: v };
    x
}

/// A context without the on-disk cache, and `ramp` and `total` compiled for an i64.
struct Fns {
    ctx: *mut VrContext,
    m: *mut VrModule,
    ramp: *mut VrFunction,
    total: *mut VrFunction,
}

impl Fns {
    fn new() -> Fns {
        let (k, v) = (cstr("cache_dir"), cstr("off"));
        let mut ctx = null_mut();
        assert_eq!(
            vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx),
            VrStatus::VR_OK
        );
        let mut m = null_mut();
        let st = vr_module_load(
            ctx,
            SRC.as_ptr() as *const c_char,
            SRC.len(),
            VR_FORMAT_AUTO,
            &mut m,
        );
        assert_eq!(st, VrStatus::VR_OK, "{}", last_message());
        let ty = VrType {
            kind: VR_KIND_SCALAR,
            elem: VR_I64,
            ndims: 0,
            layout: 0,
        };
        let compile = |name: &str| {
            let n = cstr(name);
            let mut f = null_mut();
            assert_eq!(
                vr_compile(m, n.as_ptr(), &ty, 1, &mut f),
                VrStatus::VR_OK,
                "{}",
                last_message()
            );
            f
        };
        Fns {
            ctx,
            m,
            ramp: compile("ramp"),
            total: compile("total"),
        }
    }

    /// total(n): sum of 0..n-1, or the error status and message.
    fn total(&self, n: i64) -> Result<f64, (VrStatus, String)> {
        let mut out = zero_value();
        match vr_call(self.total, &i64_scalar(n), 1, &mut out, 1) {
            VrStatus::VR_OK => Ok(unsafe { out.scalar.as_f64 }),
            st => Err((st, last_message())),
        }
    }

    /// ramp(n): its last element (n - 1), the array freed as a host frees it.
    fn ramp(&self, n: i64) -> Result<f64, (VrStatus, String)> {
        let mut out = zero_value();
        match vr_call(self.ramp, &i64_scalar(n), 1, &mut out, 1) {
            VrStatus::VR_OK => {
                assert_eq!(out.kind, VR_KIND_ARRAY);
                assert_eq!(out.array.dims[0], n);
                let last = unsafe { *(out.array.data as *const f64).add(n as usize - 1) };
                vr_array_free(&mut out.array);
                Ok(last)
            }
            st => Err((st, last_message())),
        }
    }
}

impl Drop for Fns {
    fn drop(&mut self) {
        vr_function_free(self.ramp);
        vr_function_free(self.total);
        vr_module_free(self.m);
        vr_context_destroy(self.ctx);
    }
}

/// Sum of 0..n-1.
fn gauss(n: i64) -> f64 {
    (n * (n - 1) / 2) as f64
}

#[test]
fn impossible_sizes_are_clean_errors_and_the_context_goes_on() {
    let f = Fns::new();
    for n in [1_000_000_000_000_000i64, 1 << 61, i64::MAX] {
        for (what, r) in [("total", f.total(n)), ("ramp", f.ramp(n))] {
            let (st, msg) = r.unwrap_err();
            eprintln!("{what}({n}): {msg}");
            assert_eq!(st, VrStatus::VR_RUNTIME_ERROR, "{what}({n}): {msg}");
            assert!(msg.contains(what), "names the function: {msg}");
            assert!(
                msg.contains("compiled code allocated more than 8589934592 bytes in one call")
                    || msg.contains("is too large"),
                "{what}({n}): {msg}"
            );
        }
        assert_eq!(f.total(1000), Ok(gauss(1000)));
        assert_eq!(f.ramp(1000), Ok(999.0));
    }
}

/// Resident and virtual size of this process in bytes (/proc/self/statm).
fn statm() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    let mut it = s.split_whitespace().map(|x| x.parse::<u64>().unwrap());
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
    let size = it.next().unwrap() * page;
    let resident = it.next().unwrap() * page;
    (resident, size)
}

/// Not a test by itself: the scenarios below, in the child process.
#[test]
fn child() {
    let Ok(what) = std::env::var("VR_MEMORY_CHILD") else {
        return;
    };
    let f = Fns::new();
    assert_eq!(f.total(10), Ok(45.0));
    match what.as_str() {
        "address-space-limit" => {
            // Room for 256 MiB more than now; then 4 GB (under the 8 GiB per-call
            // limit, so the allocator itself fails).
            let (_, size) = statm();
            let lim = libc::rlimit {
                rlim_cur: size + (256 << 20),
                rlim_max: libc::RLIM_INFINITY,
            };
            assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) }, 0);
            let n = 500_000_000;
            let (st, msg) = f.total(n).unwrap_err();
            println!("TOTAL status={st:?} message={msg}");
            let (st2, msg2) = f.ramp(n).unwrap_err();
            println!("RAMP status={st2:?} message={msg2}");
            assert_eq!(f.total(100_000), Ok(gauss(100_000)));
            assert_eq!(f.ramp(100_000), Ok(99_999.0));
            println!("AFTER ok");
        }
        "flat" => {
            let round = |i: i64| {
                let n = 100 + i % 900;
                match i % 10 {
                    // An error path now and then: its message is kept per thread.
                    0 => assert!(f.total(-n).is_err()),
                    1..=5 => assert_eq!(f.ramp(n), Ok((n - 1) as f64)),
                    _ => assert_eq!(f.total(n), Ok(gauss(n))),
                }
            };
            for i in 0..5_000 {
                round(i);
            }
            let (before, _) = statm();
            for i in 0..100_000 {
                round(i);
            }
            let (after, _) = statm();
            println!("RSS before={before} after={after}");
        }
        other => panic!("unknown scenario {other}"),
    }
}

fn run_child(what: &str) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "--quiet",
        ])
        .env("VR_MEMORY_CHILD", what)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {what} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn out_of_memory_under_an_address_space_limit_is_a_clean_error() {
    let out = run_child("address-space-limit");
    eprintln!("{out}");
    for (line, what) in [("TOTAL ", "total"), ("RAMP ", "ramp")] {
        let l = out.lines().find(|l| l.starts_with(line)).unwrap();
        assert!(l.contains("status=VR_RUNTIME_ERROR"), "{l}");
        assert!(l.contains(what), "names the function: {l}");
        assert!(l.contains("cannot allocate 4000000"), "{l}");
    }
    assert!(out.contains("AFTER ok"), "{out}");
}

#[test]
fn resident_memory_is_flat_over_ten_to_the_five_calls() {
    let out = run_child("flat");
    let l = out.lines().find(|l| l.starts_with("RSS ")).unwrap();
    let num = |k: &str| -> i64 {
        let s = l.split(&format!("{k}=")).nth(1).unwrap();
        s.split(' ').next().unwrap().parse().unwrap()
    };
    let growth = num("after") - num("before");
    eprintln!(
        "10^5 calls through the C API: resident memory {} KiB before, {} KiB after ({:+} KiB)",
        num("before") / 1024,
        num("after") / 1024,
        growth / 1024
    );
    assert!(growth < 20 << 20, "resident memory grew {growth} bytes");
}
