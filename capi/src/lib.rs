//! The stable C ABI of Velociraptor: the only interface hosts (R, Octave, Julia, Python,
//! C) use. See docs/c-api.md for the protocol and capi/include/velociraptor.h (generated
//! from this crate by cbindgen; `capi/tests/header.rs` fails when it is stale).
//!
//! Rules every entry point keeps:
//! - it returns a [`VrStatus`]; on failure a thread-local last error (message plus
//!   function, line, variable, index, bound) is readable through [`vr_last_error`];
//! - its body runs under `error::guard`, which catches panics: no unwinding crosses
//!   into the host (a caught panic is `VR_INTERNAL_ERROR`);
//! - every pointer is checked for null before use; handles are opaque and freed by
//!   their own `*_free` / `vr_context_destroy` (null is accepted and ignored).
//!
//! Files: `types.rs` (the `repr(C)` types), `error.rs` (status codes, last error, the
//! guard), `context.rs` (what handles hold, configuration), `call.rs` (descriptors in,
//! host arrays out), `default_alloc.rs` (result arrays when the host has no allocator).

// The C names of the ABI are part of the contract (VR_OK, VrStatus...).
#![allow(non_camel_case_types)]
// Every pointer argument is checked for null and documented in the header; marking the
// extern functions `unsafe` would not change what C callers see.
#![allow(clippy::not_unsafe_ptr_arg_deref)]
#![allow(clippy::result_large_err)]

mod call;
mod context;
mod default_alloc;
mod error;
pub mod types;

pub use context::{VrContext, VrFunction, VrModule};
pub use types::*;

use context::{Config, ContextInner, Hooks};
use error::{guard, invalid};
use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::sync::{Arc, RwLock};
use velociraptor::runtime::compile_cache::CompileCache;
use velociraptor::vrir::types::{ArrayType, Type};
use velociraptor::frontend::signature::{type_to_json, Signature};
use velociraptor::frontend::types::{AnyTy, Ty};
use velociraptor::{ErrorKind, VrError, VrResult};

/// Version of the C ABI; bumped on every incompatible change (3: `VrHostHooks::random`
/// and `vr_random_seed`, `VrCacheStats::disk_untrusted`).
pub const VR_ABI_VERSION: u32 = 3;

/// The ABI version this library implements (compare with `VR_ABI_VERSION` from the
/// header the host was built with).
#[no_mangle]
pub extern "C" fn vr_abi_version() -> u32 {
    VR_ABI_VERSION
}

fn non_null<'a, T>(p: *const T, what: &str) -> VrResult<&'a T> {
    // SAFETY: non-null pointers from the host point to a valid T (the ABI contract).
    unsafe { p.as_ref() }.ok_or_else(|| invalid(format!("{what} is null")))
}

fn non_null_mut<'a, T>(p: *mut T, what: &str) -> VrResult<&'a mut T> {
    // SAFETY: as for `non_null`.
    unsafe { p.as_mut() }.ok_or_else(|| invalid(format!("{what} is null")))
}

fn c_str<'a>(p: *const c_char, what: &str) -> VrResult<&'a str> {
    if p.is_null() {
        return Err(invalid(format!("{what} is null")));
    }
    // SAFETY: a non-null C string from the host is NUL-terminated.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| invalid(format!("{what} is not valid UTF-8")))
}

fn slice<'a, T>(p: *const T, n: usize, what: &str) -> VrResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(invalid(format!("{what} is null but its count is {n}")));
    }
    // SAFETY: the host passes `n` valid elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

fn slice_mut<'a, T>(p: *mut T, n: usize, what: &str) -> VrResult<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(invalid(format!("{what} is null but its count is {n}")));
    }
    // SAFETY: the host passes `n` valid elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

fn give_string(s: String, out: *mut *mut c_char) -> VrResult<()> {
    let out = non_null_mut(out, "out")?;
    *out = CString::new(s.replace('\0', " ")).unwrap_or_default().into_raw();
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Errors

/// Message of this thread's last error ("" after a successful call). Valid until the
/// next API call on this thread.
#[no_mangle]
pub extern "C" fn vr_last_error_message() -> *const c_char {
    error::last_message()
}

/// This thread's last error with its structured fields; returns its status (VR_OK when
/// the last call succeeded).
#[no_mangle]
pub extern "C" fn vr_last_error(out: *mut VrErrorInfo) -> VrStatus {
    match non_null_mut(out, "out") {
        Ok(out) => {
            error::last_info(out);
            out.status
        }
        Err(_) => VrStatus::VR_INVALID_ARGUMENT,
    }
}

/// A short name of a status ("out of bounds"), static.
#[no_mangle]
pub extern "C" fn vr_status_name(status: VrStatus) -> *const c_char {
    let s: &'static [u8] = match status {
        VrStatus::VR_OK => b"ok\0",
        VrStatus::VR_PARSE_ERROR => b"parse error\0",
        VrStatus::VR_TYPE_ERROR => b"type error\0",
        VrStatus::VR_UNSUPPORTED => b"unsupported\0",
        VrStatus::VR_OUT_OF_BOUNDS => b"index out of bounds\0",
        VrStatus::VR_DIVISION_BY_ZERO => b"integer division by zero\0",
        VrStatus::VR_SHAPE_MISMATCH => b"shape mismatch\0",
        VrStatus::VR_RUNTIME_ERROR => b"runtime error\0",
        VrStatus::VR_INVALID_ARGUMENT => b"invalid argument\0",
        VrStatus::VR_DEVICE_ERROR => b"device error\0",
        VrStatus::VR_INTERNAL_ERROR => b"internal error\0",
        VrStatus::VR_INTERRUPTED => b"interrupted\0",
    };
    s.as_ptr() as *const c_char
}

// ---------------------------------------------------------------------------------------
// Contexts

/// Create a context from `count` key/value configuration strings (keys: `threads`,
/// `opt_level`, `bounds_check`, `backend`, `cache_dir`; see docs/c-api.md). `keys` and
/// `values` may be null when `count` is 0.
#[no_mangle]
pub extern "C" fn vr_context_create(
    keys: *const *const c_char,
    values: *const *const c_char,
    count: usize,
    out: *mut *mut VrContext,
) -> VrStatus {
    guard("vr_context_create", || {
        let out = non_null_mut(out, "out")?;
        *out = std::ptr::null_mut();
        let keys = slice(keys, count, "keys")?;
        let values = slice(values, count, "values")?;
        let mut pairs = BTreeMap::new();
        for (k, v) in keys.iter().zip(values) {
            let k = c_str(*k, "a configuration key")?;
            let v = c_str(*v, &format!("the value of configuration key `{k}`"))?;
            pairs.insert(k.to_string(), v.to_string());
        }
        let config = Config::parse(&pairs)?;
        if config.options.gpu {
            // Program binaries go next to the machine code (an `opencl` folder of the
            // same directory), with the same trust rules; `cache_dir=off` turns both off.
            velociraptor::gpu::program_cache::set_dir(config.cache_dir.clone());
        }
        let cache = CompileCache::default();
        if let Some(dir) = &config.cache_dir {
            // An unusable directory only means compiling in every process.
            let _ = cache.enable_disk(dir);
        }
        let inner = ContextInner { config, hooks: RwLock::new(Hooks::none()), cache };
        *out = Box::into_raw(Box::new(VrContext { inner: Arc::new(inner) }));
        Ok(())
    })
}

/// Destroy a context. Modules and functions made from it stay usable until freed.
/// Waits (at most a minute) for the background compiles of the process (`tiers`) to end:
/// a host that exits right after would otherwise run LLVM's static destructors under a
/// compile still running (a crash at exit). Then unmaps the large array blocks (4 MiB
/// and more) the library keeps for later calls, at most 512 MiB (docs/c-api.md).
#[no_mangle]
pub extern "C" fn vr_context_destroy(ctx: *mut VrContext) {
    if !ctx.is_null() {
        guard("vr_context_destroy", || {
            velociraptor::cpu::tiers::wait_all(std::time::Duration::from_secs(60));
            // SAFETY: made by vr_context_create, destroyed once (the host's contract).
            drop(unsafe { Box::from_raw(ctx) });
            // Large blocks kept for later calls (cpu::block_pool) are idle memory now.
            velociraptor::cpu::block_pool::trim();
            Ok(())
        });
    }
}

/// Register the host's glue (copied; `hooks` may be freed afterwards). Applies to
/// every later call of functions made from this context.
#[no_mangle]
pub extern "C" fn vr_context_set_hooks(ctx: *mut VrContext, hooks: *const VrHostHooks) -> VrStatus {
    guard("vr_context_set_hooks", || {
        let ctx = non_null(ctx, "ctx")?;
        let hooks = Hooks(*non_null(hooks, "hooks")?);
        hooks.convention()?;
        *ctx.inner.hooks.write().unwrap_or_else(|p| p.into_inner()) = hooks;
        Ok(())
    })
}

/// Counters of the context's compile caches, once every background compile (`tiers`)
/// of the process has ended (their disk writes are counted).
#[no_mangle]
pub extern "C" fn vr_context_stats(ctx: *const VrContext, out: *mut VrCacheStats) -> VrStatus {
    guard("vr_context_stats", || {
        let ctx = non_null(ctx, "ctx")?;
        let out = non_null_mut(out, "out")?;
        *out = cache_stats(ctx.inner.cache.stats());
        Ok(())
    })
}

/// The same counters as they are now, without waiting for background compiles (a
/// host that reads them after every compile, such as R for an untrusted entry, would
/// otherwise wait for every full tier).
#[no_mangle]
pub extern "C" fn vr_context_stats_now(ctx: *const VrContext, out: *mut VrCacheStats) -> VrStatus {
    guard("vr_context_stats_now", || {
        let ctx = non_null(ctx, "ctx")?;
        let out = non_null_mut(out, "out")?;
        *out = cache_stats(ctx.inner.cache.stats_now());
        Ok(())
    })
}

fn cache_stats(s: velociraptor::runtime::compile_cache::CacheStats) -> VrCacheStats {
    VrCacheStats {
        compiles: s.compiles,
        memory_hits: s.memory_hits,
        disk_hits: s.disk_hits,
        disk_writes: s.disk_writes,
        disk_rejects: s.disk_rejects,
        disk_untrusted: s.disk_untrusted,
    }
}

/// One line on the context's on-disk cache (free it with `vr_string_free`): `off`;
/// `in use: DIR`, followed by `; entry not loaded: REASON` once an entry was refused; or
/// `not used: REASON` when the directory could not be made or someone other than this
/// user (or root) could write it. See docs/c-api.md, "Caches".
#[no_mangle]
pub extern "C" fn vr_context_cache_status(ctx: *const VrContext, out: *mut *mut c_char) -> VrStatus {
    guard("vr_context_cache_status", || {
        let ctx = non_null(ctx, "ctx")?;
        give_string(ctx.inner.cache.disk_status(), out)
    })
}

// ---------------------------------------------------------------------------------------
// Modules

/// Load and verify a VRIR module from `len` bytes of text or JSON (`format`:
/// VR_FORMAT_AUTO recognises JSON by a leading `{`). Malformed input is
/// VR_PARSE_ERROR, an ill-typed module VR_TYPE_ERROR.
#[no_mangle]
pub extern "C" fn vr_module_load(
    ctx: *const VrContext,
    source: *const c_char,
    len: usize,
    format: i32,
    out: *mut *mut VrModule,
) -> VrStatus {
    guard("vr_module_load", || {
        let ctx = non_null(ctx, "ctx")?;
        let out = non_null_mut(out, "out")?;
        *out = std::ptr::null_mut();
        let bytes = slice(source as *const u8, len, "source")?;
        let src = std::str::from_utf8(bytes)
            .map_err(|e| VrError::parse(format!("the module source is not UTF-8: {e}")))?;
        let module = match format {
            VR_FORMAT_AUTO => velociraptor::backend::parse_source(src)?,
            VR_FORMAT_TEXT => velociraptor::vrir::text::parse_module(src)?,
            VR_FORMAT_JSON => velociraptor::vrir::json::from_json(src)?,
            other => return Err(invalid(format!("unknown module format {other}"))),
        };
        velociraptor::vrir::verify::verify_module(&module)?;
        *out = Box::into_raw(Box::new(VrModule { ctx: ctx.inner.clone(), module }));
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn vr_module_free(m: *mut VrModule) {
    if !m.is_null() {
        guard("vr_module_free", || {
            // SAFETY: made by vr_module_load, freed once.
            drop(unsafe { Box::from_raw(m) });
            Ok(())
        });
    }
}

fn type_of(t: &VrType) -> VrResult<Type> {
    let elem = call::elem_from_code(t.elem)?;
    match t.kind {
        VR_KIND_SCALAR => Ok(Type::scalar(elem)),
        VR_KIND_ARRAY => {
            let ndims = u32::try_from(t.ndims)
                .ok()
                .filter(|n| (1..=VR_MAX_NDIMS as u32).contains(n))
                .ok_or_else(|| invalid(format!("array type with ndims {}", t.ndims)))?;
            Ok(Type::Array(ArrayType::new(elem, ndims, call::layout_from_code(t.layout)?)))
        }
        other => Err(invalid(format!("unknown type kind {other}"))),
    }
}

fn type_code(t: &Type) -> VrResult<VrType> {
    match t {
        Type::Scalar { elem } => Ok(VrType { kind: VR_KIND_SCALAR, elem: call::elem_code(*elem), ndims: 0, layout: 0 }),
        Type::Array(a) => Ok(VrType {
            kind: VR_KIND_ARRAY,
            elem: call::elem_code(a.elem),
            ndims: a.ndims as i32,
            layout: call::layout_code(a.layout),
        }),
        other => Err(VrError::new(
            ErrorKind::Unsupported,
            format!("a value of type {other} cannot cross the C API"),
        )),
    }
}

/// Write a signature into the host's arrays (counts always written; types up to the
/// capacities given).
fn write_signature(
    f: &velociraptor::vrir::ast::Function,
    params: *mut VrType,
    max_params: usize,
    n_params: *mut usize,
    results: *mut VrType,
    max_results: usize,
    n_results: *mut usize,
) -> VrResult<()> {
    *non_null_mut(n_params, "n_params")? = f.params.len();
    *non_null_mut(n_results, "n_results")? = f.results.len();
    let ps = slice_mut(params, max_params.min(f.params.len()), "params")?;
    for (slot, p) in ps.iter_mut().zip(&f.params) {
        *slot = type_code(&p.ty)?;
    }
    let rs = slice_mut(results, max_results.min(f.results.len()), "results")?;
    for (slot, r) in rs.iter_mut().zip(&f.results) {
        *slot = type_code(r)?;
    }
    Ok(())
}

/// The declared signature of function `name` of a module: parameter and result types
/// (at most `max_*` written; the counts always).
#[no_mangle]
pub extern "C" fn vr_module_signature(
    m: *const VrModule,
    name: *const c_char,
    params: *mut VrType,
    max_params: usize,
    n_params: *mut usize,
    results: *mut VrType,
    max_results: usize,
    n_results: *mut usize,
) -> VrStatus {
    guard("vr_module_signature", || {
        let m = non_null(m, "module")?;
        let name = c_str(name, "name")?;
        let f = m.module.module_function(name)?;
        write_signature(f, params, max_params, n_params, results, max_results, n_results)
    })
}

/// How many functions the module has (`vr_module_function_name` names them).
#[no_mangle]
pub extern "C" fn vr_module_function_count(m: *const VrModule, out: *mut usize) -> VrStatus {
    guard("vr_module_function_count", || {
        let m = non_null(m, "module")?;
        *non_null_mut(out, "out")? = m.module.functions.len();
        Ok(())
    })
}

/// The name of the module's function `index` (0-based, in module order); free it with
/// `vr_string_free`.
#[no_mangle]
pub extern "C" fn vr_module_function_name(m: *const VrModule, index: usize, out: *mut *mut c_char) -> VrStatus {
    guard("vr_module_function_name", || {
        let m = non_null(m, "module")?;
        let f = m.module.functions.get(index).ok_or_else(|| {
            invalid(format!(
                "function index {index} out of range (the module has {})",
                m.module.functions.len()
            ))
        })?;
        give_string(f.name.clone(), out)
    })
}

trait ModuleExt {
    fn module_function(&self, name: &str) -> VrResult<&velociraptor::vrir::ast::Function>;
}

impl ModuleExt for velociraptor::vrir::ast::Module {
    fn module_function(&self, name: &str) -> VrResult<&velociraptor::vrir::ast::Function> {
        self.function(name).ok_or_else(|| {
            let names: Vec<&str> = self.functions.iter().map(|f| f.name.as_str()).collect();
            invalid(format!(
                "no function `{name}` in module `{}` (it has: {})",
                self.name,
                names.join(", ")
            ))
        })
    }
}

// ---------------------------------------------------------------------------------------
// Compiling

fn compile_in(
    ctx: &Arc<ContextInner>,
    module: &velociraptor::vrir::ast::Module,
    name: &str,
    arg_types: &[VrType],
    result_list: Option<String>,
    explain: Option<context::Explain>,
    out: &mut *mut VrFunction,
) -> VrResult<()> {
    module.module_function(name)?;
    let given: Vec<Type> = arg_types.iter().map(type_of).collect::<VrResult<_>>()?;
    let spec = ctx.cache.get_or_compile(module, name, &given, &ctx.config.options)?;
    *out = Box::into_raw(Box::new(VrFunction { ctx: ctx.clone(), spec, result_list, explain }));
    Ok(())
}

/// Compile function `name` of a module for arguments of `arg_types` (one per parameter;
/// a `strided` parameter given a row/col type is specialized for it). Served from the
/// context's caches when compiled before. Types that do not match the declared
/// parameters are VR_TYPE_ERROR; constructs the backend cannot compile VR_UNSUPPORTED.
#[no_mangle]
pub extern "C" fn vr_compile(
    m: *const VrModule,
    name: *const c_char,
    arg_types: *const VrType,
    n_args: usize,
    out: *mut *mut VrFunction,
) -> VrStatus {
    guard("vr_compile", || {
        let out = non_null_mut(out, "out")?;
        *out = std::ptr::null_mut();
        let m = non_null(m, "module")?;
        let name = c_str(name, "name")?;
        let types = slice(arg_types, n_args, "arg_types")?;
        compile_in(&m.ctx, &m.module, name, types, None, None, out)
    })
}

/// Host source to VRIR through the front end of `language`: the module holding `name`
/// and every function of `source` it calls, specialized for `sig` (argument types for
/// the leading formals, the rest taking their defaults; the globals it reads). Front-end
/// diagnostics (parse errors, types that do not unify, constructs it does not compile)
/// keep their kind, line and message.
fn frontend_to_vrir(language: &str, source: &str, name: &str, sig: &Signature) -> VrResult<(velociraptor::frontend::r::Compiled, Option<Vec<String>>)> {
    // Integer classes held in wider element types are MATLAB's (int8, ..., uint32).
    if language != "matlab" {
        let mut leaves = Vec::new();
        for t in sig.args.iter().chain(sig.globals.iter().map(|(_, t)| t)) {
            match t {
                AnyTy::Value(v) => leaves.push(*v),
                AnyTy::List(l) => leaves.extend(l.leaves().into_iter().map(|(_, v)| v)),
                AnyTy::Opaque(_) => {}
            }
        }
        if let Some(v) = leaves.iter().find(|v| v.class.is_some()) {
            return Err(invalid(format!("`{name}`: a {v} argument is a MATLAB class; the {language} front end has none")));
        }
    }
    match language {
        "r" => Ok((velociraptor::frontend::r::compile_entry(source, name, sig)?, None)),
        "julia" => {
            use velociraptor::frontend::julia::rules::{BOOL, COMPLEX, FLOAT, INT};
            let tys = value_args(sig, name, "Julia", |ty| [FLOAT, INT, BOOL, COMPLEX].contains(&ty.elem), "compiled Julia counterpart (Float64, Int64, Bool, ComplexF64 and arrays of them)")?;
            let module = velociraptor::frontend::julia::compile(source, name, tys)?;
            Ok((velociraptor::frontend::r::Compiled { module, result_list: None }, None))
        }
        "matlab" => {
            use velociraptor::frontend::matlab::rules::{COMPLEX, DOUBLE, INT32, INT64, LOGICAL};
            let tys = value_args(
                sig,
                name,
                "MATLAB",
                |ty| [DOUBLE, INT32, INT64, LOGICAL, COMPLEX].contains(&ty.elem) && ty.rank != 1 && ty.rank <= 3,
                "MATLAB counterpart (f64 double, i32 int32, i64 int64, bool logical, c128 complex; scalars and arrays of rank 2 or 3)",
            )?;
            // `f` gives every output `f` declares; `f.nargoutN` its first N.
            let (base, nargout) = match name.rsplit_once(".nargout") {
                Some((base, n)) => (base, Some(n.parse::<usize>().map_err(|_| invalid(format!("bad function name `{name}`")))?)),
                None => (name, None),
            };
            let (module, classes) = velociraptor::frontend::matlab::compile_classes(source, base, tys, nargout)?;
            Ok((velociraptor::frontend::r::Compiled { module, result_list: None }, Some(classes)))
        }
        // `check_language` lets no other language through.
        other => Err(invalid(format!("unknown language `{other}`"))),
    }
}

/// The argument types for a front end that takes scalars and arrays only (Julia, MATLAB:
/// no lists, no globals): each must pass `fits`, else the error names what `host` has
/// (`counterpart`).
fn value_args(sig: &Signature, name: &str, host: &str, fits: impl Fn(&Ty) -> bool, counterpart: &str) -> VrResult<Vec<Ty>> {
    if let Some((global, _)) = sig.globals.first() {
        return Err(invalid(format!("`{name}` reads global `{global}`: the {host} front end takes every value as an argument")));
    }
    sig.args
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            AnyTy::Value(ty) if fits(ty) => Ok(*ty),
            _ => Err(invalid(format!("argument {} of `{name}`: type {} has no {counterpart}", i + 1, type_to_json(t)))),
        })
        .collect()
}

fn check_language(language: &str) -> VrResult<()> {
    if matches!(language, "r" | "matlab" | "julia") {
        Ok(())
    } else {
        Err(invalid(format!("unknown language `{language}` (expected `r`, `matlab` or `julia`)")))
    }
}

/// Compile `sig` through the front end and then the context's caches.
fn compile_source_in(ctx: &VrContext, language: &str, source: &str, name: &str, sig: &Signature, out: &mut *mut VrFunction) -> VrResult<()> {
    // An interrupt (vr_request_interrupt, R's Ctrl-C) stops a compile at its next safe
    // point with VR_INTERRUPTED and nothing cached (core's cpu::interrupt lists them).
    velociraptor::cpu::interrupt::check_compile("the front end")?;
    let (compiled, classes) = frontend_to_vrir(language, source, name, sig)?;
    velociraptor::cpu::interrupt::check_compile("verifying the front end's VRIR")?;
    velociraptor::vrir::verify::verify_module(&compiled.module)?;
    let params = sig.params(velociraptor::vrir::Layout::Col);
    let types: Vec<VrType> = params.iter().map(type_code).collect::<VrResult<_>>()?;
    // MATLAB: the results' classes (`{"classes": ["int8", "double"]}`), so that the host
    // narrows int8 ... uint32 results out of their storage types (i32, i64).
    let result_list = match classes {
        Some(c) => Some(format!("{{\"classes\": [{}]}}", c.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "))),
        None => compiled.result_list.map(|l| type_to_json(&AnyTy::List(l)).to_string()),
    };
    // Run-time errors come back in the host language's terms (R's adapter explains them
    // itself, in bindings/r); Julia names that are not VRIR names (`scale!`) are escaped.
    let (entry, explain): (String, Option<context::Explain>) = match language {
        "julia" => (velociraptor::frontend::julia::entry_name(name), Some(Arc::new(velociraptor::frontend::julia::explain_error))),
        "matlab" => {
            let m = compiled.module.clone();
            (name.to_string(), Some(Arc::new(move |e| velociraptor::frontend::matlab::explain_error_in(&m, e))))
        }
        _ => (name.to_string(), None),
    };
    compile_in(&ctx.inner, &compiled.module, &entry, &types, result_list, explain, out)
}

/// Compile function `name` from host source in `language` (`r`, `matlab`, `julia`) for
/// `arg_types`. `r` compiles through the R front end (R's types: f64, i32, bool, c128;
/// the function and what it calls from `source`); `julia` through the Julia front end
/// (f64, i64, bool, c128; arrays column-major; run-time errors of the function come in
/// Julia's words: BoundsError, DivideError, ...); `matlab` through the MATLAB front end
/// (`source` a function file; f64 double, i32 int32, bool logical, c128 complex, scalars
/// or column-major arrays of rank 2 or 3; `name` gives every output the function
/// declares, `name.nargoutN` its first N; run-time errors of its checks come back in
/// MATLAB's terms).
#[no_mangle]
pub extern "C" fn vr_compile_source(
    ctx: *const VrContext,
    language: *const c_char,
    source: *const c_char,
    name: *const c_char,
    arg_types: *const VrType,
    n_args: usize,
    out: *mut *mut VrFunction,
) -> VrStatus {
    guard("vr_compile_source", || {
        let out = non_null_mut(out, "out")?;
        *out = std::ptr::null_mut();
        let ctx = non_null(ctx, "ctx")?;
        let language = c_str(language, "language")?;
        let source = c_str(source, "source")?;
        let name = c_str(name, "name")?;
        let types = slice(arg_types, n_args, "arg_types")?;
        check_language(language)?;
        let given: Vec<Type> = types.iter().map(type_of).collect::<VrResult<_>>()?;
        let args = given
            .iter()
            .enumerate()
            .map(|(i, t)| {
                Ty::from_vrir(t).map(AnyTy::Value).ok_or_else(|| invalid(format!("argument {} of `{name}`: type {t} is neither a scalar nor an array", i + 1)))
            })
            .collect::<VrResult<Vec<AnyTy>>>()?;
        compile_source_in(ctx, language, source, name, &Signature { args, globals: Vec::new() }, out)
    })
}

/// Compile function `name` from host source for a signature given as JSON text
/// (docs/c-api.md, "Host source"): argument types that may be lists and data frames,
/// and the globals the function reads from its environment. The compiled function's
/// parameters are the scalars and arrays of the arguments, in order (a list: its
/// elements, nested lists included; elements compiled code cannot read pass nothing),
/// then those of the globals.
#[no_mangle]
pub extern "C" fn vr_compile_source_sig(
    ctx: *const VrContext,
    language: *const c_char,
    source: *const c_char,
    name: *const c_char,
    signature: *const c_char,
    out: *mut *mut VrFunction,
) -> VrStatus {
    guard("vr_compile_source_sig", || {
        let out = non_null_mut(out, "out")?;
        *out = std::ptr::null_mut();
        let ctx = non_null(ctx, "ctx")?;
        let language = c_str(language, "language")?;
        let source = c_str(source, "source")?;
        let name = c_str(name, "name")?;
        let sig = Signature::from_json(c_str(signature, "signature")?)?;
        check_language(language)?;
        compile_source_in(ctx, language, source, name, &sig, out)
    })
}

/// When the function compiled from host source returns a list (R `list(a = x, b =
/// y)`): the list's type as signature JSON (docs/c-api.md), `{"list": [["a", "f64"],
/// ["b", "f64[1]"]], "frame": false}`, whose scalars and arrays, in order (nested lists
/// included), are the function's results; the host rebuilds its list from them. An empty
/// string when the results are not a list. Free it with `vr_string_free`.
#[no_mangle]
pub extern "C" fn vr_function_result_list(f: *const VrFunction, out: *mut *mut c_char) -> VrStatus {
    guard("vr_function_result_list", || {
        let f = non_null(f, "function")?;
        give_string(f.result_list.clone().unwrap_or_default(), out)
    })
}

#[no_mangle]
pub extern "C" fn vr_function_free(f: *mut VrFunction) {
    if !f.is_null() {
        guard("vr_function_free", || {
            // SAFETY: made by vr_compile, freed once.
            drop(unsafe { Box::from_raw(f) });
            Ok(())
        });
    }
}

/// The compiled function's signature (after specialization).
#[no_mangle]
pub extern "C" fn vr_function_signature(
    f: *const VrFunction,
    params: *mut VrType,
    max_params: usize,
    n_params: *mut usize,
    results: *mut VrType,
    max_results: usize,
    n_results: *mut usize,
) -> VrStatus {
    guard("vr_function_signature", || {
        let f = non_null(f, "function")?;
        write_signature(f.spec.signature(), params, max_params, n_params, results, max_results, n_results)
    })
}

/// A text dump of the compiled function (`what`: VR_DUMP_VRIR_TEXT, VR_DUMP_VRIR_JSON —
/// the VRIR compiled, after the optimizer; VR_DUMP_LLVM_IR — the LLVM IR before LLVM's
/// optimization; VR_DUMP_EXPLAIN — the backend, the compile time, what the on-disk cache
/// did (or why it was not used) and what each optimizer pass did); free it with
/// `vr_string_free`.
#[no_mangle]
pub extern "C" fn vr_function_dump(f: *const VrFunction, what: i32, out: *mut *mut c_char) -> VrStatus {
    guard("vr_function_dump", || {
        let f = non_null(f, "function")?;
        let m = &f.spec.module;
        let text = match what {
            VR_DUMP_VRIR_TEXT => velociraptor::vrir::text::print_module(m),
            VR_DUMP_VRIR_JSON => velociraptor::vrir::json::to_json(m),
            VR_DUMP_LLVM_IR => velociraptor::cpu::emit_llvm_ir(m)?,
            VR_DUMP_EXPLAIN => explain(f),
            other => return Err(invalid(format!("unknown dump kind {other}"))),
        };
        give_string(text, out)
    })
}

/// The VR_DUMP_EXPLAIN text: where the function runs, how long it took to compile, what
/// the on-disk cache did (and why it was not used), and the optimizer's report.
fn explain(f: &VrFunction) -> String {
    let o = &f.ctx.config.options;
    let backend = if o.gpu {
        let device = match velociraptor::gpu::device() {
            Ok(d) => d.describe(),
            Err(why) => format!("no OpenCL device ({why}): sections run on the CPU"),
        };
        let threads = f.spec.compiled.threads();
        match o.placement {
            velociraptor::gpu::placement::Placement::Model => format!(
                "auto: each task of the on_gpu sections on {device} or on the CPU, as the cost model estimates; the rest cpu-par ({threads} threads)"
            ),
            velociraptor::gpu::placement::Placement::Device => {
                format!("gpu: on_gpu sections on {device}; the rest cpu-par ({threads} threads)")
            }
        }
    } else if o.parallel {
        format!("cpu-par ({} threads)", f.spec.compiled.threads())
    } else {
        "cpu (serial)".to_string()
    };
    // GPU sections: per section, where it ran and what it cost (the gpu backend's
    // engine counts it); on other backends, that they run on the CPU.
    let sections = velociraptor::gpu::section_count(&f.spec.module);
    let gpu = if o.gpu {
        f.spec.compiled.offload_report()
    } else if sections > 0 {
        format!("gpu sections: {sections}, run on the CPU (backend {})\n", if o.parallel { "cpu-par" } else { "cpu" })
    } else {
        String::new()
    };
    // Compiled quick first (`tiers=quick-first`): what the background compile did with
    // the disk cache (waited for), and which tier calls run now.
    let disk = f.spec.disk_report();
    let tier = f.spec.compiled.tier_report().map_or(String::new(), |t| format!("code: {t}\n"));
    format!(
        "function {}\nbackend: {backend}\nbounds checks: {}\ncompile: {:.1} ms (optimizer and LLVM, or a load from the disk cache)\ndisk cache: {}\n{tier}{gpu}optimizer:\n{}",
        f.spec.function,
        if o.bounds_checks { "on" } else { "off" },
        f.spec.compile_seconds * 1e3,
        disk,
        if f.spec.optimizer_report.is_empty() { "(no pass ran)\n".to_string() } else { f.spec.optimizer_report.clone() },
    )
}

/// The OpenCL device the `gpu` backend runs sections on in this process: `kind` 1 when
/// it is a GPU, 0 for another kind of OpenCL device (such as PoCL's CPU device), -1 when
/// there is none; `description` (free it with `vr_string_free`) names the device, or
/// says why there is none (no OpenCL library, no platform, `VR_OPENCL_DEVICE=off`, ...).
/// Hosts use it to decide whether `backend=gpu` pays (R's `vr_options(gpu = "auto")`).
#[no_mangle]
pub extern "C" fn vr_gpu_device(kind: *mut i32, description: *mut *mut c_char) -> VrStatus {
    guard("vr_gpu_device", || {
        let kind = non_null_mut(kind, "kind")?;
        let (k, text) = match velociraptor::gpu::device() {
            Ok(d) => (d.is_gpu as i32, d.describe()),
            Err(why) => (-1, why),
        };
        give_string(text, description)?;
        *kind = k;
        Ok(())
    })
}

/// Which parameters of `f` are worth passing with `VR_ARRAY_STABLE`: `out[i]` (for `i` <
/// `max`) is 1 for an array parameter that no call writes when `f` runs GPU sections on
/// a `backend=gpu` context, else 0; `*n` gets the parameter count. A host that keeps
/// such arguments unchanged across calls (or reports changes with `vr_array_changed`)
/// lets the device keep them (docs/gpu.md, "Residency").
///
/// # Safety
/// `out` is null or holds `max` writable bytes; `n` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn vr_function_stable_params(
    f: *const VrFunction,
    out: *mut u8,
    max: usize,
    n: *mut usize,
) -> VrStatus {
    guard("vr_function_stable_params", || {
        let f = non_null(f, "function")?;
        let sig = f.spec.signature();
        let gpu = !f.spec.compiled.offload_report().is_empty();
        if !n.is_null() {
            *n = sig.params.len();
        }
        if !out.is_null() {
            for (i, p) in sig.params.iter().enumerate().take(max) {
                let written = f.spec.writes.get(i).copied().unwrap_or(true);
                *out.add(i) = (gpu && p.ty.as_array().is_some() && !written) as u8;
            }
        }
        Ok(())
    })
}

/// The host is about to change or free `bytes` bytes at `data`: device copies of them
/// kept for arrays passed with `VR_ARRAY_STABLE` are dropped, so no later call reads a
/// stale copy. Hosts that pass `VR_ARRAY_STABLE` must call it before every such write
/// or free; safe from any thread.
#[no_mangle]
pub extern "C" fn vr_array_changed(data: *const std::ffi::c_void, bytes: usize) {
    if !data.is_null() {
        let lo = data as usize;
        velociraptor::gpu::resident::forget(lo, lo.saturating_add(bytes));
    }
}

/// Ask every compiled call running now to stop: each returns `VR_INTERRUPTED` at its
/// next poll (loops poll at their back edges; see docs/c-api.md). Safe to call from any
/// thread and from a signal handler (one atomic store). The request stays until
/// `vr_clear_interrupt`.
#[no_mangle]
pub extern "C" fn vr_request_interrupt() {
    velociraptor::cpu::interrupt::request();
}

/// Forget an interrupt request, so that later calls run.
#[no_mangle]
pub extern "C" fn vr_clear_interrupt() {
    velociraptor::cpu::interrupt::clear();
}

/// Let compiled code read interrupt requests from the host's own flag (an `int32_t`,
/// non-zero meaning stop; R passes `&R_interrupts_pending`), or from the library's own
/// (`vr_request_interrupt`) when `flag` is null. `flag` must stay readable for as long
/// as compiled code may run. Process-wide.
#[no_mangle]
pub extern "C" fn vr_set_interrupt_flag(flag: *const i32) -> VrStatus {
    guard("vr_set_interrupt_flag", || {
        // SAFETY: the host's promise above.
        unsafe { velociraptor::cpu::interrupt::set_source(flag) };
        Ok(())
    })
}

/// Seed the library's built-in random stream (used by calls whose context has no
/// `random` hook) as R's `set.seed(seed)` seeds R's default generator: the draws that
/// follow are R's, number for number. Process-wide; without it the stream is seeded
/// from `VR_SEED`, else from the clock.
#[no_mangle]
pub extern "C" fn vr_random_seed(seed: i32) -> VrStatus {
    guard("vr_random_seed", || {
        velociraptor::runtime::rng::set_seed(seed);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn vr_string_free(s: *mut c_char) {
    if !s.is_null() {
        guard("vr_string_free", || {
            // SAFETY: made by CString::into_raw in this library, freed once.
            drop(unsafe { CString::from_raw(s) });
            Ok(())
        });
    }
}

// ---------------------------------------------------------------------------------------
// Calling

/// Call a compiled function: `n_args` argument values, `n_results` result slots (exactly
/// as many as the function returns). Arrays are used in place (see the hooks' argument
/// convention); array results come back as host arrays (see `VrHostHooks`). May be
/// called from many threads at once. On failure the results are unspecified and nothing
/// needs freeing.
#[no_mangle]
pub extern "C" fn vr_call(
    f: *const VrFunction,
    args: *const VrValue,
    n_args: usize,
    results: *mut VrValue,
    n_results: usize,
) -> VrStatus {
    guard("vr_call", || {
        let f = non_null(f, "function")?;
        let args = slice(args, n_args, "args")?;
        let results = slice_mut(results, n_results, "results")?;
        // SAFETY: the host's descriptors describe live memory (the ABI contract).
        unsafe { call::call(f, args, results) }.map_err(|e| match &f.explain {
            Some(explain) => explain(e),
            None => e,
        })
    })
}

/// Free a result array that the library allocated (when no `alloc_array` hook is
/// registered). Anything else (a view of an argument, a host array, an array already
/// freed) is left alone.
#[no_mangle]
pub extern "C" fn vr_array_free(a: *mut VrArray) {
    if let Ok(a) = non_null_mut(a, "array") {
        default_alloc::free(a);
    }
}
