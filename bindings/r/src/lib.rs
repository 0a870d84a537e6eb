//! The R adapter of Velociraptor: the `.Call` entry points of the R package
//! `velociraptor` (r-package/). R is one host of the C API (`velociraptor-capi`), so
//! everything here goes through its `vr_*` entry points (called as Rust functions of its
//! rlib): R vectors cross as array descriptors pointing into R's memory (no copy), result
//! arrays are allocated as R vectors by the host hooks (`hooks.rs`), arguments are passed
//! by value (the caller's object never changes).
//!
//! Errors never unwind through R: every entry point catches panics and returns either
//! its value or a *failure* (a list of class `vr_failure` with the status, message,
//! function, line, variable, index and bound); the R code of the package turns a failure
//! into a classed condition. Nothing here calls `Rf_error`.
//!
//! Files: `convert.rs` (R values to descriptors and back), `hooks.rs` (allocation hooks),
//! `random.rs` (draws from R's own generator, `.Random.seed` saved once per call),
//! `entry.rs` (a compiled R function: its source and its specializations), `failure.rs`,
//! `sections.rs` (the parts of a function that compile when the whole does not).

mod convert;
mod entry;
mod failure;
mod hooks;
mod interrupt;
mod random;
mod resident;
mod sections;

use entry::Entry;
use extendr_api::prelude::*;
use failure::Failure;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    /// Where the last panic on this thread happened (the panic hook records it).
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// A panic hook that records the panic instead of printing it to R's console: the
/// entry point reports it as an R error (class `velociraptor_error`, kind `internal`).
/// Panics of other threads (workers of parallel loops) still print.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if hooks::on_r_thread() {
                LAST_PANIC.with(|p| *p.borrow_mut() = info.to_string());
            } else {
                default_hook(info)
            }
        }));
    });
}

/// Run an entry point's body; a panic becomes an internal-error failure.
fn guarded(what: &str, body: impl FnOnce() -> std::result::Result<Robj, Failure>) -> Robj {
    hooks::note_r_thread();
    install_panic_hook();
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => v,
        Ok(Err(f)) => f.into_robj(),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            let place = LAST_PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()));
            let place = if place.is_empty() { msg } else { place.replace('\n', " ") };
            Failure::internal(format!("internal error in {what} (a bug in velociraptor, please report it): {place}")).into_robj()
        }
    }
}

/// (Re)create the process's context: `threads` (0: every core), on-disk cache
/// directory (`""`: none), bounds checks on or off, `gpu` ("auto", "on", "off"). `TRUE`,
/// or the cache's status (a string) when its directory is not trusted, for R to warn
/// about once per process; with attribute `gpu_warning` when `gpu = "on"` found no
/// OpenCL device.
#[extendr]
fn vr_rs_configure(threads: Robj, cache_dir: Robj, bounds_checks: Robj, gpu: Robj, tiers: Robj) -> Robj {
    guarded("vr_rs_configure", || {
        let threads = threads.as_real().unwrap_or(0.0).max(0.0) as usize;
        let cache_dir = cache_dir.as_str().unwrap_or("").to_string();
        let bounds = bounds_checks.as_bool().unwrap_or(true);
        let gpu = gpu.as_str().unwrap_or("auto").to_string();
        let tiers = tiers.as_str().unwrap_or("full").to_string();
        let (cache, warning) = entry::configure(threads, &cache_dir, bounds, &gpu, &tiers)?;
        let mut out = match cache {
            Some(status) => Robj::from(status),
            None => Robj::from(true),
        };
        if let Some(w) = warning {
            out.set_attrib("gpu_warning", w).map_err(|e| Failure::internal(e.to_string()))?;
        }
        Ok(out)
    })
}

/// A new compiled function: R `source` holding `name` and the functions it calls, and
/// the names of the globals it reads (a character vector; their values come after the
/// arguments on every call).
#[extendr]
fn vr_rs_new(source: Robj, name: Robj, globals: Robj) -> Robj {
    guarded("vr_rs_new", || {
        let source = source.as_str().ok_or_else(|| Failure::invalid("source is not a string"))?;
        let name = name.as_str().ok_or_else(|| Failure::invalid("name is not a string"))?;
        let globals: Vec<String> = if globals.is_null() {
            Vec::new()
        } else {
            globals.as_str_vector().ok_or_else(|| Failure::invalid("globals is not a character vector"))?.into_iter().map(String::from).collect()
        };
        Ok(ExternalPtr::new(Entry::new(source, name, globals)).into())
    })
}

/// Call the compiled function with the values in `args` (a list, one per formal),
/// compiling it first for their types when this is the first call with them.
/// One call of a compiled function: `.Call(vr_rs_call_fast, entry, list(args...))`.
/// Registered by hand (r-package/src/entrypoint.c), not through extendr: its wrapper
/// turns every SEXP into a protected `Robj`, a global-table insert and removal each,
/// which was a tenth of the whole call.
#[no_mangle]
pub extern "C" fn vr_rs_call_fast(entry: extendr_ffi::SEXP, args: extendr_ffi::SEXP) -> extendr_ffi::SEXP {
    let out = guarded("vr_rs_call", || {
        // SAFETY: both are live R objects for the whole `.Call`.
        let r = unsafe { entry::from_sexp(entry)?.call(args) };
        if matches!(&r, Err(f) if f.error.kind == velociraptor::ErrorKind::Interrupted) {
            interrupt::clear_pending();
        }
        r
    });
    // SAFETY: the value goes straight back to R, which holds it from here.
    unsafe { out.get() }
}

/// The specializations compiled so far: a list of lists (signature, VRIR text, compile
/// seconds, calls) for `vr_explain`.
#[extendr]
fn vr_rs_explain(entry: Robj) -> Robj {
    guarded("vr_rs_explain", || {
        let entry = entry::from_robj(&entry)?;
        entry.explain()
    })
}

/// The sections of function `name` of R `source` that compile on their own when the
/// whole function does not (see `sections.rs`).
#[extendr]
fn vr_rs_sections(source: Robj, name: Robj) -> Robj {
    guarded("vr_rs_sections", || {
        let source = source.as_str().ok_or_else(|| Failure::invalid("source is not a string"))?;
        let name = name.as_str().ok_or_else(|| Failure::invalid("name is not a string"))?;
        sections::sections(source, name)
    })
}

/// Counters of the context's compile caches (compiles, memory hits, disk hits, ...).
#[extendr]
fn vr_rs_stats() -> Robj {
    guarded("vr_rs_stats", entry::stats)
}

/// For the tests: a panic inside an entry point comes back as an internal-error
/// failure and R keeps running.
#[extendr]
fn vr_rs_panic_for_test() -> Robj {
    guarded("vr_rs_panic_for_test", || panic!("a panic the tests asked for"))
}

extendr_module! {
    mod velociraptor;
    fn vr_rs_configure;
    fn vr_rs_new;
    fn vr_rs_explain;
    fn vr_rs_sections;
    fn vr_rs_stats;
    fn vr_rs_panic_for_test;
}
