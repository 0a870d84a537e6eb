//! A compiled R function as the package holds it (behind an external pointer): the R
//! source (the function and every function it calls), the entry's name, and one
//! specialization per signature of argument types, compiled on the first call with that
//! signature (an in-process cache; the context's on-disk cache serves a new process).
//! Also the process's one C-API context, which `vr_options()` recreates.

use crate::convert::{arg_sig, from_value, push_values, ArgSig, Scratch};
use crate::failure::{Failure, Phase};
use crate::hooks::{note_r_thread, r_hooks};
use extendr_api::prelude::*;
use extendr_ffi::{Rf_xlength, TYPEOF, VECTOR_ELT, SEXP, SEXPTYPE};
use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use velociraptor::frontend::signature::{type_from_text, Signature};
use velociraptor::frontend::types::{AnyTy, ListTy};
use velociraptor::{ErrorKind, VrError};
use velociraptor_capi::*;

/// The process's context and how many times it was made (entries compiled under an
/// older one recompile).
struct Context {
    ptr: *mut VrContext,
    generation: u64,
}
// SAFETY: the context is only used from R's main thread; the mutex orders access.
unsafe impl Send for Context {}

static CONTEXT: Mutex<Context> = Mutex::new(Context { ptr: std::ptr::null_mut(), generation: 0 });

/// Whether R was told that the on-disk cache was not trusted (once per process).
static CACHE_REPORTED: AtomicBool = AtomicBool::new(false);

/// The cache's counts (`now`: without waiting for background compiles, whose disk
/// writes are then not counted yet).
fn cache_stats(ctx: *mut VrContext, now: bool) -> Result<VrCacheStats, Failure> {
    let mut s = VrCacheStats::default();
    let status = if now { vr_context_stats_now(ctx, &mut s) } else { vr_context_stats(ctx, &mut s) };
    check(status, Phase::Run)?;
    Ok(s)
}

/// `vr_context_cache_status`: `off`, `in use: DIR[; entry not loaded: ...]` or `not
/// used: REASON`.
fn cache_status(ctx: *mut VrContext) -> Result<String, Failure> {
    let mut text: *mut std::os::raw::c_char = std::ptr::null_mut();
    check(vr_context_cache_status(ctx, &mut text), Phase::Run)?;
    // SAFETY: a string the C API returned, freed right after.
    let t = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    Ok(t)
}

/// The cache's status when a directory or entry was refused as untrusted and R has not
/// been told yet in this process (then it has).
fn unreported_cache_problem(ctx: *mut VrContext) -> Result<Option<String>, Failure> {
    // Read after every compile: not waiting for the full tier's background compile
    // (untrusted entries are counted before it starts).
    if cache_stats(ctx, true)?.disk_untrusted == 0 || CACHE_REPORTED.swap(true, Ordering::Relaxed) {
        return Ok(None);
    }
    cache_status(ctx).map(Some)
}

/// The C API's last error of this thread as a `VrError`, with the R front end's checks
/// explained (R's message, the R function and line).
fn last_error() -> VrError {
    let mut info = VrErrorInfo {
        status: VrStatus::VR_OK,
        message: std::ptr::null(),
        function: std::ptr::null(),
        variable: std::ptr::null(),
        line: -1,
        has_index: 0,
        index: 0,
        has_bound: 0,
        bound: 0,
        dim: -1,
    };
    let status = vr_last_error(&mut info);
    let s = |p: *const std::os::raw::c_char| -> Option<String> {
        // SAFETY: strings of the last error stay valid until the next API call.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    let kind = match status {
        VrStatus::VR_PARSE_ERROR => ErrorKind::Parse,
        VrStatus::VR_TYPE_ERROR => ErrorKind::Type,
        VrStatus::VR_UNSUPPORTED => ErrorKind::Unsupported,
        VrStatus::VR_OUT_OF_BOUNDS => ErrorKind::OutOfBounds,
        VrStatus::VR_DIVISION_BY_ZERO => ErrorKind::DivisionByZero,
        VrStatus::VR_SHAPE_MISMATCH => ErrorKind::ShapeMismatch,
        VrStatus::VR_RUNTIME_ERROR => ErrorKind::Runtime,
        VrStatus::VR_INVALID_ARGUMENT => ErrorKind::InvalidArgument,
        VrStatus::VR_DEVICE_ERROR => ErrorKind::Device,
        VrStatus::VR_INTERRUPTED => ErrorKind::Interrupted,
        _ => ErrorKind::Internal,
    };
    let mut e = VrError::new(kind, s(info.message).unwrap_or_default());
    e.function = s(info.function);
    e.variable = s(info.variable);
    e.line = (info.line >= 0).then_some(info.line as u32);
    e.index = (info.has_index != 0).then_some(info.index);
    e.bound = (info.has_bound != 0).then_some(info.bound);
    e.dim = (info.dim >= 0).then_some(info.dim as u32);
    velociraptor::frontend::r::explain_error(e)
}

fn check(status: VrStatus, phase: Phase) -> Result<(), Failure> {
    if status == VrStatus::VR_OK {
        Ok(())
    } else {
        Err(Failure::new(phase, last_error()))
    }
}

/// Where `gpu({ ... })` sections run under the options in force (`vr_stats()$gpu`).
static GPU_STATUS: Mutex<String> = Mutex::new(String::new());

/// The OpenCL device of the `gpu` backend: (1 a GPU, 0 another device, -1 none; its
/// description or why there is none).
pub fn gpu_device() -> (i32, String) {
    let mut kind = -1;
    let mut text: *mut std::os::raw::c_char = std::ptr::null_mut();
    if vr_gpu_device(&mut kind, &mut text) != VrStatus::VR_OK || text.is_null() {
        return (-1, last_error().message);
    }
    // SAFETY: a string the library made; freed right after.
    let s = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    (kind, s)
}

/// The backend for `gpu` = "auto" | "on" | "off", and the line `vr_stats()$gpu` shows;
/// a warning for R when "on" finds no device.
fn gpu_backend(gpu: &str) -> (&'static str, String, Option<String>) {
    if gpu == "off" {
        return ("cpu-par", "off: gpu({ ... }) sections run on the CPU".into(), None);
    }
    let (kind, device) = gpu_device();
    match (gpu, kind) {
        ("auto", 1) => (
            "auto",
            format!("auto: gpu({{ ... }}) sections run on {device} or on the CPU, task by task, as the cost model estimates"),
            None,
        ),
        (_, 1) => ("gpu", format!("{gpu}: gpu({{ ... }}) sections run on {device}"), None),
        ("on", 0) => ("gpu", format!("on: gpu({{ ... }}) sections run on {device} (an OpenCL device that is not a GPU)"), None),
        ("on", _) => (
            "cpu-par",
            format!("on, but no OpenCL device ({device}): gpu({{ ... }}) sections run on the CPU"),
            Some(format!("gpu = \"on\" but there is no OpenCL device ({device}): gpu({{ ... }}) sections run on the CPU")),
        ),
        (_, 0) => (
            "cpu-par",
            format!("auto: no GPU (only {device}; gpu = \"on\" uses it): gpu({{ ... }}) sections run on the CPU"),
            None,
        ),
        _ => ("cpu-par", format!("auto: no OpenCL device ({device}): gpu({{ ... }}) sections run on the CPU"), None),
    }
}

/// Make a new context (threads 0 = every core; empty `cache_dir` = no disk cache; `gpu`
/// "auto" | "on" | "off"): the cache's status when its directory is not trusted (see
/// `unreported_cache_problem`), and a warning when `gpu = "on"` finds no device.
pub fn configure(
    threads: usize,
    cache_dir: &str,
    bounds_checks: bool,
    gpu: &str,
    tiers: &str,
) -> Result<(Option<String>, Option<String>), Failure> {
    note_r_thread();
    if !matches!(gpu, "auto" | "on" | "off") {
        return Err(Failure::invalid(format!("gpu must be \"auto\", \"on\" or \"off\", not \"{gpu}\"")));
    }
    // cpu-par: `prange` loops and large element-wise operators use every core (serial
    // code is the same either way); gpu: `gpu({ ... })` sections on the OpenCL device
    // and the rest as cpu-par. R passes values, so parameters never alias.
    let (backend, status, warning) = gpu_backend(gpu);
    let mut pairs = vec![
        ("bounds_check".to_string(), if bounds_checks { "on" } else { "off" }.to_string()),
        ("backend".to_string(), backend.to_string()),
        ("params_noalias".to_string(), "yes".to_string()),
        // `full`, `quick-first` or `auto` (checked by the C API's configuration).
        ("tiers".to_string(), tiers.to_string()),
    ];
    if threads > 0 {
        pairs.push(("threads".into(), threads.to_string()));
    }
    pairs.push(("cache_dir".into(), if cache_dir.is_empty() { "off".into() } else { cache_dir.to_string() }));
    let keys: Vec<CString> = pairs.iter().map(|(k, _)| CString::new(k.as_str()).unwrap()).collect();
    let values: Vec<CString> = pairs.iter().map(|(_, v)| CString::new(v.as_str()).unwrap()).collect();
    let kp: Vec<*const std::os::raw::c_char> = keys.iter().map(|k| k.as_ptr()).collect();
    let vp: Vec<*const std::os::raw::c_char> = values.iter().map(|v| v.as_ptr()).collect();
    let mut ctx: *mut VrContext = std::ptr::null_mut();
    check(vr_context_create(kp.as_ptr(), vp.as_ptr(), kp.len(), &mut ctx), Phase::Compile)?;
    let hooks = r_hooks();
    if let Err(e) = check(vr_context_set_hooks(ctx, &hooks), Phase::Compile) {
        vr_context_destroy(ctx);
        return Err(e);
    }
    // Ctrl-C: compiled loops poll R's own flag, which R's SIGINT handler sets.
    check(vr_set_interrupt_flag(crate::interrupt::r_flag()), Phase::Compile)?;
    let mut c = CONTEXT.lock().unwrap_or_else(|p| p.into_inner());
    if !c.ptr.is_null() {
        // Functions made from it stay usable until freed (entries free theirs when
        // they see the new generation).
        vr_context_destroy(c.ptr);
    }
    c.ptr = ctx;
    c.generation += 1;
    drop(c);
    *GPU_STATUS.lock().unwrap_or_else(|p| p.into_inner()) = status;
    Ok((unreported_cache_problem(ctx)?, warning))
}

fn context() -> Result<(*mut VrContext, u64), Failure> {
    {
        let c = CONTEXT.lock().unwrap_or_else(|p| p.into_inner());
        if !c.ptr.is_null() {
            return Ok((c.ptr, c.generation));
        }
    }
    // No cache here, so nothing to report.
    configure(0, "", true, "auto", "auto")?;
    let c = CONTEXT.lock().unwrap_or_else(|p| p.into_inner());
    Ok((c.ptr, c.generation))
}

pub fn stats() -> Result<Robj, Failure> {
    let (ctx, _) = context()?;
    let s = cache_stats(ctx, false)?;
    Ok(list!(
        compiles = s.compiles as f64,
        memory_hits = s.memory_hits as f64,
        disk_hits = s.disk_hits as f64,
        disk_writes = s.disk_writes as f64,
        disk_rejects = s.disk_rejects as f64,
        disk_untrusted = s.disk_untrusted as f64,
        disk_cache = cache_status(ctx)?,
        gpu = GPU_STATUS.lock().unwrap_or_else(|p| p.into_inner()).clone()
    )
    .into())
}

struct Compiled {
    f: *mut VrFunction,
    n_results: usize,
    /// Per C-API parameter: pass the argument with `VR_ARRAY_STABLE` (an array the
    /// function reads in GPU sections and never writes; `resident.rs`).
    stable: Vec<bool>,
    /// When the R function returns a list: its names and nesting (the results are its
    /// elements in order).
    result_list: Option<ListTy>,
}

struct Spec {
    compiled: Result<Compiled, Failure>,
    seconds: f64,
    calls: u64,
    /// The failure as R receives it, made once: a signature that does not compile
    /// fails on every call (and then runs in R, or its sections compiled), so building
    /// the list each time would be a large part of such a call.
    failure: Option<Robj>,
}

pub struct Entry {
    source: String,
    name: String,
    /// The free variables the function reads from its environment: the wrapper passes
    /// their values after the arguments, on every call.
    globals: Vec<String>,
    generation: u64,
    /// One per signature, in the order first seen (for `vr_explain`). A function has a
    /// handful at most: a linear search is cheaper than hashing the signature per call.
    specs: Vec<(Vec<ArgSig>, Spec)>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.clear();
    }
}

/// The entry behind an external pointer, read straight from the SEXP (no `Robj`, whose
/// protection bookkeeping is a measurable part of a call); stale as in [`from_robj`].
///
/// # Safety
/// `x` is a live R object.
pub unsafe fn from_sexp(x: SEXP) -> Result<&'static mut Entry, Failure> {
    note_r_thread();
    if TYPEOF(x) != SEXPTYPE::EXTPTRSXP {
        return Err(Failure::stale());
    }
    // extendr's ExternalPtr<Entry> holds a Box<Box<dyn Any>> (null once finalized).
    let boxed = extendr_ffi::R_ExternalPtrAddr(x).cast::<Box<dyn std::any::Any>>();
    let any = boxed.as_mut().ok_or_else(Failure::stale)?;
    let e = any.downcast_mut::<Entry>().ok_or_else(Failure::stale)?;
    // SAFETY: R keeps the external pointer, and so the entry, alive for the whole `.Call`.
    Ok(&mut *(e as *mut Entry))
}

/// The entry behind an external pointer; a stale one (after `unserialize`) is a
/// `stale` failure the R side answers by making a new entry from the source.
pub fn from_robj(x: &Robj) -> Result<&'static mut Entry, Failure> {
    note_r_thread();
    let p: &mut ExternalPtr<Entry> = <&mut ExternalPtr<Entry>>::try_from(&mut x.clone()).map_err(|_| Failure::stale())?;
    let e = p.try_addr_mut().map_err(|_| Failure::stale())?;
    // SAFETY: the external pointer keeps the entry alive while R holds it, and R holds
    // it for the whole `.Call`.
    Ok(unsafe { &mut *(e as *mut Entry) })
}

/// How argument `i` of `n` in a call of `name` (the globals last) is named in messages.
fn what(name: &str, globals: &[String], i: usize, n: usize) -> String {
    let first_global = n.saturating_sub(globals.len());
    if i >= first_global {
        format!("global `{}` of {name}", globals[i - first_global])
    } else {
        format!("{} of {name}", i + 1)
    }
}

/// Compile `name` of R `source` for `sig` (the formals' entries, then the globals'): the
/// one place that goes from R source to a compiled function.
fn compile_source(ctx: *mut VrContext, source: &str, name: &str, globals: &[String], sig: &[ArgSig]) -> Result<Compiled, Failure> {
    let n_formals = sig.len() - globals.len();
    let signature = Signature {
        args: sig[..n_formals].iter().map(|s| s.any_ty()).collect(),
        globals: globals.iter().cloned().zip(sig[n_formals..].iter().map(|s| s.any_ty())).collect(),
    };
    let c_lang = CString::new("r").unwrap();
    let c_src = CString::new(source).map_err(|_| Failure::invalid("the R source holds a NUL byte"))?;
    let c_name = CString::new(name).map_err(|_| Failure::invalid("the name holds a NUL byte"))?;
    let c_sig = CString::new(signature.to_json()).map_err(|_| Failure::invalid("a name holds a NUL byte"))?;
    let mut f: *mut VrFunction = std::ptr::null_mut();
    let status = vr_compile_source_sig(ctx, c_lang.as_ptr(), c_src.as_ptr(), c_name.as_ptr(), c_sig.as_ptr(), &mut f);
    if status == VrStatus::VR_OK {
        return finish(f);
    }
    Err(Failure::new(Phase::Compile, last_error()))
}

/// One of the C API's text dumps of a compiled function.
fn dump(f: *mut VrFunction, what: i32) -> Result<String, Failure> {
    let mut text: *mut std::os::raw::c_char = std::ptr::null_mut();
    check(vr_function_dump(f, what, &mut text), Phase::Run)?;
    // SAFETY: a string the C API returned, freed right after.
    let t = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    Ok(t)
}

fn finish(f: *mut VrFunction) -> Result<Compiled, Failure> {
    let (mut np, mut nr) = (0usize, 0usize);
    if let Err(e) = check(vr_function_signature(f, std::ptr::null_mut(), 0, &mut np, std::ptr::null_mut(), 0, &mut nr), Phase::Compile) {
        vr_function_free(f);
        return Err(e);
    }
    let result_list = match result_list_of(f) {
        Ok(l) => l,
        Err(e) => {
            vr_function_free(f);
            return Err(e);
        }
    };
    let mut stable = vec![0u8; np];
    let mut n = 0usize;
    // SAFETY: `stable` holds `np` bytes.
    if unsafe { vr_function_stable_params(f, stable.as_mut_ptr(), np, &mut n) } != VrStatus::VR_OK {
        stable.fill(0);
    }
    let stable = stable.into_iter().map(|b| b != 0).collect();
    Ok(Compiled { f, n_results: nr, result_list, stable })
}

/// The list a compiled function returns, if it returns one (`vr_function_result_list`).
fn result_list_of(f: *mut VrFunction) -> Result<Option<ListTy>, Failure> {
    let mut text: *mut std::os::raw::c_char = std::ptr::null_mut();
    check(vr_function_result_list(f, &mut text), Phase::Compile)?;
    // SAFETY: a string the C API returned, freed right after.
    let t = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
    vr_string_free(text);
    if t.is_empty() {
        return Ok(None);
    }
    match type_from_text(&t).map_err(|e| Failure::internal(format!("result list {t}: {}", e.message)))? {
        AnyTy::List(l) => Ok(Some(l)),
        other => Err(Failure::internal(format!("result list {other}"))),
    }
}

/// The R list of type `l` whose scalars and arrays are `values`, in order.
fn build_list(l: &ListTy, values: &mut impl Iterator<Item = Robj>) -> Result<Robj, Failure> {
    let mut items = Vec::with_capacity(l.fields.len());
    for f in &l.fields {
        items.push(match &f.ty {
            AnyTy::Value(_) => values.next().ok_or_else(|| Failure::internal("fewer results than list elements"))?,
            AnyTy::List(sub) => build_list(sub, values)?,
            AnyTy::Opaque(_) => Robj::from(()),
        });
    }
    if l.fields.iter().all(|f| f.name.is_none()) {
        return Ok(List::from_values(items).into());
    }
    let names: Vec<&str> = l.fields.iter().map(|f| f.name.as_deref().unwrap_or("")).collect();
    Ok(List::from_names_and_values(names, items).map_err(|e| Failure::internal(e.to_string()))?.into())
}

impl Entry {
    pub fn new(source: &str, name: &str, globals: Vec<String>) -> Entry {
        note_r_thread();
        Entry { source: source.into(), name: name.into(), globals, generation: 0, specs: Vec::new() }
    }

    fn clear(&mut self) {
        for (_, s) in self.specs.drain(..) {
            if let Ok(c) = s.compiled {
                vr_function_free(c.f);
            }
        }
    }

    /// # Safety
    /// `list` is a live R object.
    pub unsafe fn call(&mut self, list: SEXP) -> Result<Robj, Failure> {
        let (ctx, generation) = context()?;
        if generation != self.generation {
            self.clear();
            self.generation = generation;
        }
        // SAFETY: `args` is a live R object for the whole call.
        unsafe {
            if TYPEOF(list) != SEXPTYPE::VECSXP {
                return Err(Failure::invalid("args is not a list"));
            }
            let n = Rf_xlength(list) as usize;
            if n < self.globals.len() {
                return Err(Failure::invalid("args lacks the globals"));
            }
            let xs: Vec<SEXP> = (0..n).map(|i| VECTOR_ELT(list, i as isize)).collect();
            let mut sig = Vec::with_capacity(n);
            for (i, x) in xs.iter().enumerate() {
                sig.push(arg_sig(*x, &|| what(&self.name, &self.globals, i, n))?);
            }
            let at = match self.specs.iter().position(|(s, _)| *s == sig) {
                Some(at) => at,
                None => {
                    let t0 = Instant::now();
                    let compiled = compile_source(ctx, &self.source, &self.name, &self.globals, &sig);
                    let seconds = t0.elapsed().as_secs_f64();
                    // Ctrl-C during the compile: not a property of the signature, so
                    // not kept as its failure; the next call compiles it again.
                    if let Err(f) = &compiled {
                        if f.error.kind == ErrorKind::Interrupted {
                            return Err(f.clone());
                        }
                    }
                    self.specs.push((sig.clone(), Spec { compiled, seconds, calls: 0, failure: None }));
                    // A refused cache entry: R warns once, then calls again (the
                    // specialization is kept, so that call goes straight on).
                    if let Some(status) = unreported_cache_problem(ctx)? {
                        return Err(Failure::new(Phase::Cache, VrError::new(ErrorKind::Runtime, status)));
                    }
                    self.specs.len() - 1
                }
            };
            let spec = &mut self.specs[at].1;
            spec.calls += 1;
            let compiled = match &spec.compiled {
                Ok(c) => c,
                Err(f) => return Ok(spec.failure.get_or_insert_with(|| f.clone().into_robj()).clone()),
            };
            let mut scratch = Scratch::default();
            let mut values = Vec::with_capacity(n);
            // The R vectors behind the values (a list's elements): a result that is one
            // of them is copied.
            let mut objs = Vec::with_capacity(n);
            for (i, (x, s)) in xs.iter().zip(&sig).enumerate() {
                push_values(*x, s, &|| what(&self.name, &self.globals, i, n), &mut scratch, &mut values, &mut objs)?;
            }
            // Vectors the function only reads in GPU sections may stay on the device
            // across calls: kept alive and unchanged (resident.rs). Logical vectors
            // cross as a byte copy, made anew at every call: never stable.
            if crate::resident::enabled() {
                for (k, v) in values.iter_mut().enumerate() {
                    let a = &mut v.array;
                    if v.kind != VR_KIND_ARRAY || v.elem == VR_BOOL || a.data.is_null() || !compiled.stable.get(k).copied().unwrap_or(false) {
                        continue;
                    }
                    let n = a.ndims.clamp(0, VR_MAX_NDIMS as i32) as usize;
                    let count: i64 = a.dims[..n].iter().map(|d| (*d).max(0)).product();
                    let size = match v.elem {
                        VR_C128 => 16,
                        VR_I32 => 4,
                        _ => 8,
                    };
                    if count > 0 {
                        crate::resident::keep(objs[k], a.data, count as usize * size);
                        a.flags |= VR_ARRAY_STABLE;
                    }
                }
            }
            let mut results: Vec<VrValue> = (0..compiled.n_results)
                .map(|_| std::mem::zeroed::<VrValue>())
                .collect();
            crate::random::before_call();
            let called = check(vr_call(compiled.f, values.as_ptr(), values.len(), results.as_mut_ptr(), results.len()), Phase::Run);
            // An `unsupported` failure runs the function in R: leave `.Random.seed` as
            // it was, so R draws what it would have drawn (random.rs).
            let runs_in_r = matches!(&called, Err(f) if f.error.kind == ErrorKind::Unsupported);
            crate::random::after_call(!runs_in_r).map_err(|m| Failure::new(Phase::Run, VrError::new(ErrorKind::Runtime, m)))?;
            called?;
            let mut out = Vec::with_capacity(results.len());
            for r in &results {
                out.push(from_value(r, &objs)?);
            }
            drop(scratch);
            if let Some(l) = &compiled.result_list {
                return build_list(l, &mut out.into_iter());
            }
            Ok(match out.len() {
                0 => Robj::from(()),
                1 => out.pop().unwrap(),
                _ => List::from_values(out).into(),
            })
        }
    }

    pub fn explain(&self) -> Result<Robj, Failure> {
        let mut items = Vec::new();
        for (sig, s) in &self.specs {
            let n = sig.len();
            let signature = sig
                .iter()
                .enumerate()
                .map(|(i, a)| if i + self.globals.len() >= n { format!("{} = {}", self.globals[i + self.globals.len() - n], a.describe()) } else { a.describe() })
                .collect::<Vec<_>>()
                .join(", ");
            // `vrir`: the user's functions (the entry first, as the module holds them);
            // `vrir_all`: with the helpers the front end generates to raise errors.
            let (vrir, vrir_all, report, error): (Robj, Robj, Robj, Robj) = match &s.compiled {
                Ok(c) => {
                    let text = dump(c.f, VR_DUMP_VRIR_TEXT)?;
                    (Robj::from(without_helpers(&text)), Robj::from(text), Robj::from(dump(c.f, VR_DUMP_EXPLAIN)?), Robj::from(()))
                }
                Err(f) => (Robj::from(()), Robj::from(()), Robj::from(()), Robj::from(f.error.message.clone())),
            };
            items.push(Robj::from(list!(
                signature = signature,
                compiled = s.compiled.is_ok(),
                compile_seconds = s.seconds,
                calls = s.calls as f64,
                vrir = vrir,
                vrir_all = vrir_all,
                report = report,
                error = error
            )));
        }
        Ok(List::from_values(items).into())
    }
}

/// A module's text without the functions the front end generates to raise run-time
/// errors (`_error_...`): what `vr_explain` shows unless asked for everything.
fn without_helpers(text: &str) -> String {
    match velociraptor::vrir::text::parse_module(text) {
        Ok(mut m) => {
            m.functions.retain(|f| !f.name.starts_with(velociraptor::frontend::lower::ERROR_HELPER_PREFIX));
            velociraptor::vrir::text::print_module(&m)
        }
        Err(_) => text.to_string(),
    }
}
