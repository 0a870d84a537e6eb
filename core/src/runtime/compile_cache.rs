//! The specialization cache: a function compiled for the argument types a host brings
//! (element type, rank, and shape class: row-major, column-major or strided) is compiled
//! once per process and shared by every later request and every thread.
//!
//! The unit compiled is the function plus everything it calls (`analysis::calls`), so
//! the key — the canonical JSON of that specialized sub-module plus the options — changes
//! whenever any called function changes. Shape specialization: a parameter declared
//! `strided` whose argument type is contiguous (`row`/`col`) is compiled with the
//! contiguous type when the verifier accepts that (contiguous code indexes without
//! stride loads); calls must then bring contiguous arrays, which the argument check
//! enforces with a clear message.

use crate::analysis::{calls, param_writes};
use crate::cpu::CompiledModule;
use crate::runtime::cache_trust::Problem;
use crate::runtime::disk_cache::DiskCache;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::{Function, Module};
use crate::vrir::types::{Layout, Type};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Options that change the code compiled (so they are part of the key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// `false` drops every bounds check (the host promises in-bounds accesses).
    pub bounds_checks: bool,
    /// LLVM optimization level, 0 to 3.
    pub opt_level: u8,
    /// Compile parfor loops and large element-wise operators to run on a thread pool
    /// (the `cpu-par` backend); `false` is the serial `cpu` backend.
    pub parallel: bool,
    /// Threads of parallel code (`None`: `VR_THREADS`, else every core). Not part of
    /// the key: the thread count is set on the compiled module, not compiled in.
    pub threads: Option<usize>,
    /// Which optimizer passes run, and what the host promises about its arguments.
    pub passes: crate::opt::OptOptions,
    /// The `gpu` backend: `on_gpu` sections through the GPU's engine (`driver`), the
    /// rest as `parallel` says. Such code is never written to the disk cache.
    pub gpu: bool,
    /// With `gpu`: whether every task goes to the device or the cost model places each
    /// (`backend=auto`).
    pub placement: crate::gpu::placement::Placement,
    /// Compile quick first and tier up in the background, and whether a long first call
    /// waits for the full tier (`cpu::tiers`; default from `VR_TIERS`). Not part of the
    /// key: the code that stays is the same.
    pub tiers: crate::cpu::tiers::Tiers,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            bounds_checks: true,
            opt_level: 2,
            parallel: false,
            threads: None,
            passes: crate::opt::OptOptions::all(),
            gpu: false,
            placement: crate::gpu::placement::Placement::Device,
            tiers: crate::cpu::tiers::requested(),
        }
    }
}

impl CompileOptions {
    /// What the CPU backend is given.
    fn cpu(&self) -> crate::cpu::CpuOptions {
        crate::cpu::CpuOptions {
            parallel: self.parallel,
            threads: self.threads,
            opt_level: self.opt_level,
            ..crate::cpu::CpuOptions::default()
        }
        .following(&self.passes)
    }

    /// The options that change the machine code, as a line of the cache key.
    fn key_line(&self) -> String {
        let off: Vec<&str> = self.passes.disabled.iter().copied().collect();
        format!(
            "bounds_checks={} opt_level={} parallel={} passes_off=[{}] params_never_alias={} gpu={} placement={:?}",
            self.bounds_checks,
            self.opt_level,
            self.parallel,
            off.join(","),
            self.passes.params_never_alias,
            self.gpu,
            self.placement
        )
    }
}

/// One function compiled for one list of argument types.
pub struct Specialized {
    /// The sub-module compiled (the function, what it calls, parameter types specialized).
    pub module: Module,
    pub function: String,
    pub compiled: CompiledModule,
    /// Per parameter: whether a call may write the array passed for it.
    pub writes: Vec<bool>,
    /// What the optimizer did to the sub-module (one line per pass and function).
    pub optimizer_report: String,
    /// Wall time of this specialization's compile (optimizer + LLVM, or the disk load).
    pub compile_seconds: f64,
    /// What the on-disk cache did for it, for `explain`: `off`, `loaded from DIR`,
    /// `compiled; written to DIR`, `entry not loaded: REASON; ...` or `not used: REASON`.
    pub disk: String,
}

/// How long a report waits for background compiles to end (`cpu::tiers`).
const BACKGROUND_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

impl Specialized {
    /// What the on-disk cache did for this specialization, for `explain`; for one
    /// compiled quick first, what its background compile did, once it has ended
    /// (waited for).
    pub fn disk_report(&self) -> String {
        if !self.compiled.wait_for_full_tier(BACKGROUND_WAIT) {
            return self.disk.clone();
        }
        self.compiled.tier_disk_report().unwrap_or_else(|| self.disk.clone())
    }

    pub fn signature(&self) -> &Function {
        self.module
            .function(&self.function)
            .expect("a specialized module holds its function")
    }
}

/// How often the cache answered and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Compilations by LLVM.
    pub compiles: u64,
    /// Requests answered from this process's cache.
    pub memory_hits: u64,
    /// Requests answered with machine code from the on-disk cache.
    pub disk_hits: u64,
    /// Entries written to the on-disk cache.
    pub disk_writes: u64,
    /// On-disk entries found bad (then deleted and rebuilt).
    pub disk_rejects: u64,
    /// Cache directories and entries refused because someone other than this user (or
    /// root) could have written them (`cache_trust`); nothing was loaded from them.
    pub disk_untrusted: u64,
}

#[derive(Default)]
pub struct CompileCache {
    entries: Mutex<HashMap<String, Arc<Specialized>>>,
    compiles: AtomicU64,
    memory_hits: AtomicU64,
    /// Machine code kept across processes, when enabled.
    /// Shared with background compiles that store their object (`cpu::tiers`).
    disk: std::sync::OnceLock<Arc<DiskCache>>,
    /// Why the on-disk cache, or an entry of it, was not used: the first reason.
    /// Shared with background compiles (a disk entry they could not write).
    disk_note: Arc<Mutex<Option<String>>>,
    disk_untrusted: AtomicU64,
}

/// Identifies the compiler that made an entry: this crate's version and the file it
/// was loaded from (its size and modification time), so any rebuild of the compiler
/// invalidates what an older build cached, even without a version bump.
fn compiler_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let file = own_file()
            .and_then(|p| {
                let m = std::fs::metadata(&p).ok()?;
                let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
                Some(format!("{} {} {}", p.display(), m.len(), mtime.as_nanos()))
            })
            .unwrap_or_else(|| "unknown build".into());
        format!(
            "velociraptor {} entry-format {} build {file}",
            env!("CARGO_PKG_VERSION"),
            crate::runtime::disk_cache::FORMAT_VERSION
        )
    })
}

/// The executable or shared library this code lives in.
fn own_file() -> Option<std::path::PathBuf> {
    // SAFETY: dladdr only reads the loader's tables; `info` is a plain out-parameter.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let here = compiler_id as *const () as *const libc::c_void;
        if libc::dladdr(here, &mut info) == 0 || info.dli_fname.is_null() {
            return std::env::current_exe().ok();
        }
        let name = std::ffi::CStr::from_ptr(info.dli_fname).to_string_lossy().into_owned();
        std::fs::canonicalize(name).ok().or_else(|| std::env::current_exe().ok())
    }
}

fn type_error(f: &Function, msg: String) -> VrError {
    VrError::new(ErrorKind::Type, msg).with_function(&f.name)
}

/// Check `given` against `f`'s parameters; the parameter types to compile with (strided
/// parameters narrowed to the contiguous layout given).
fn specialize_params(f: &Function, given: &[Type]) -> VrResult<Vec<Type>> {
    if given.len() != f.params.len() {
        return Err(VrError::new(
            ErrorKind::InvalidArgument,
            format!(
                "`{}` takes {} arguments but {} argument types were given",
                f.name,
                f.params.len(),
                given.len()
            ),
        )
        .with_function(&f.name));
    }
    f.params
        .iter()
        .zip(given)
        .map(|(p, g)| match (&p.ty, g) {
            (Type::Scalar { elem }, Type::Scalar { elem: h }) if elem == h => Ok(p.ty.clone()),
            (Type::Array(d), Type::Array(h)) if d.elem == h.elem && d.ndims == h.ndims => {
                let contiguous_1d = d.ndims == 1 && h.layout != Layout::Strided;
                if d.layout == Layout::Strided && h.layout != Layout::Strided {
                    Ok(Type::Array(crate::vrir::types::ArrayType { layout: h.layout, ..*d }))
                } else if d.layout == h.layout || contiguous_1d {
                    Ok(p.ty.clone())
                } else {
                    Err(type_error(
                        f,
                        format!(
                            "parameter `{}` of `{}` is declared {} but the argument type is {}",
                            p.name, f.name, p.ty, g
                        ),
                    ))
                }
            }
            _ => Err(type_error(
                f,
                format!(
                    "parameter `{}` of `{}` is declared {} but the argument type is {}",
                    p.name, f.name, p.ty, g
                ),
            )),
        })
        .collect()
}

/// `m` with every array access's bounds check switched off.
fn without_bounds_checks(m: &Module) -> Module {
    // Through the JSON form: every access node carries its flags as `check`; rewriting
    // the tree generically keeps this independent of the AST's shape.
    fn clear(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(serde_json::Value::Object(flags)) = o.get_mut("flags") {
                    flags.insert("check".into(), serde_json::Value::Bool(false));
                }
                o.values_mut().for_each(clear);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(clear),
            _ => {}
        }
    }
    let mut j = serde_json::to_value(m).expect("a module serializes");
    clear(&mut j);
    serde_json::from_value(j).expect("flags rewritten in place still deserialize")
}

impl CompileCache {
    /// The counts, once every background compile (`cpu::tiers`) of the process has
    /// ended: their disk writes are counted.
    pub fn stats(&self) -> CacheStats {
        crate::cpu::tiers::wait_all(BACKGROUND_WAIT);
        self.stats_now()
    }

    /// The counts as they are now, without waiting: a background compile counts its
    /// disk write when it ends. For hosts that read a count after every compile (R, for
    /// an untrusted entry): a wait there would make every first call wait for its full
    /// tier.
    pub fn stats_now(&self) -> CacheStats {
        let disk = |f: fn(&DiskCache) -> &AtomicU64| {
            self.disk.get().map_or(0, |d| f(d).load(Ordering::Relaxed))
        };
        CacheStats {
            compiles: self.compiles.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            disk_hits: disk(|d| &d.hits),
            disk_writes: disk(|d| &d.writes),
            disk_rejects: disk(|d| &d.rejects),
            disk_untrusted: self.disk_untrusted.load(Ordering::Relaxed),
        }
    }

    /// Keep machine code in `dir` across processes (created mode 0700 when missing).
    /// The cache is an optimization: when the directory cannot be made, or someone other
    /// than this user or root could write it (`cache_trust`), compiles go on in memory
    /// and the reason is kept (`disk_note`) and returned.
    pub fn enable_disk(&self, dir: &std::path::Path) -> Result<(), Problem> {
        match DiskCache::open(dir) {
            Ok(d) => {
                let _ = self.disk.set(Arc::new(d));
                Ok(())
            }
            Err(p) => {
                let note = match &p {
                    Problem::Untrusted(why) => {
                        self.disk_untrusted.fetch_add(1, Ordering::Relaxed);
                        format!("not used: {why}, so another user could plant machine code there; functions compile in memory")
                    }
                    Problem::Unusable(why) => format!("not used: {why}"),
                };
                self.note(note);
                Err(p)
            }
        }
    }

    fn note(&self, note: String) {
        self.disk_note.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(note);
    }

    /// Why the on-disk cache (or one of its entries) was not used, the first time it
    /// was not; None while it worked or was off.
    pub fn disk_note(&self) -> Option<String> {
        self.disk_note.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// One line on the on-disk cache: `off`, `in use: DIR` (then `; entry not loaded:
    /// REASON` for the first entry refused, or `; entry not written (ERROR); ...` for the
    /// first that could not be stored), or `not used: REASON`.
    pub fn disk_status(&self) -> String {
        crate::cpu::tiers::wait_all(BACKGROUND_WAIT);
        match (self.disk.get(), self.disk_note()) {
            (Some(d), None) => format!("in use: {}", d.dir().display()),
            (Some(d), Some(note)) => format!("in use: {}; {note}", d.dir().display()),
            (None, Some(note)) => note,
            (None, None) => "off".to_string(),
        }
    }

    /// Compile `sub` (for `func`), through the on-disk cache when enabled; with what
    /// the disk cache did (`Specialized::disk`). The compile itself is the driver's
    /// (`driver::compile_unit`: it chooses the backend); the counts are the cache's.
    fn compile(&self, sub: &Module, key: &str, opts: &CompileOptions) -> VrResult<(CompiledModule, String)> {
        // Without a cache, the only note is why its directory was refused.
        let off_note = || self.disk_note().unwrap_or_else(|| "off".to_string());
        let tiering = crate::driver::Tiering {
            mode: opts.tiers,
            notes: Arc::clone(&self.disk_note),
        };
        let unit = crate::driver::compile_unit(sub, key, opts.cpu(), opts.gpu.then_some(opts.placement), self.disk.get(), &compiler_id(), off_note, tiering)?;
        if unit.built {
            self.compiles.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(why) = &unit.untrusted {
            self.disk_untrusted.fetch_add(1, Ordering::Relaxed);
            self.note(format!("entry not loaded: {why}; that function compiles in memory"));
        }
        if let Some(why) = unit.not_written {
            self.note(why);
        }
        Ok((unit.compiled, unit.disk))
    }

    /// `func` of `m` (a verified module) compiled for arguments of types `given`, from
    /// the cache when it was compiled before.
    pub fn get_or_compile(
        &self,
        m: &Module,
        func: &str,
        given: &[Type],
        opts: &CompileOptions,
    ) -> VrResult<Arc<Specialized>> {
        let mut sub = calls::submodule(m, func).ok_or_else(|| {
            VrError::new(
                ErrorKind::InvalidArgument,
                format!("no function `{func}` in module `{}`", m.name),
            )
        })?;
        let f = sub.function(func).expect("the root is in its sub-module");
        let params = specialize_params(f, given)?;
        if params.iter().zip(&f.params).any(|(t, p)| *t != p.ty) {
            let mut narrowed = sub.clone();
            if let Some(nf) = narrowed.functions.iter_mut().find(|g| g.name == func) {
                for (p, t) in nf.params.iter_mut().zip(&params) {
                    p.ty = t.clone();
                }
            }
            // Narrowing is an optimization: keep the declared types when it does not verify.
            if crate::vrir::verify::verify_module(&narrowed).is_ok() {
                sub = narrowed;
            }
        }
        if !opts.bounds_checks {
            sub = without_bounds_checks(&sub);
        }
        let key = format!("{}\n{func}\n{}", crate::vrir::json::to_json(&sub), opts.key_line());
        if let Some(hit) = self.lock().get(&key) {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit.clone());
        }
        // Compile without holding the lock: other functions stay available meanwhile
        // (two threads may compile the same key at once; the first result is kept).
        let started = std::time::Instant::now();
        // Which parameters a call may write is read off the module as the host wrote it
        // (the by-value convention copies those); the optimizer never adds writes.
        let writes = param_writes::params_possibly_written(&sub, func)
            .expect("the root is in its sub-module");
        let passes = crate::opt::OptOptions { parallel_loops: opts.parallel, ..opts.passes.clone() };
        let (optimized, stats) = crate::opt::optimize(&sub, &passes)?;
        // Safe points (cpu::interrupt): the optimizer and the backend poll inside too.
        crate::cpu::interrupt::check_compile("the backend")?;
        let (compiled, disk) = self.compile(&optimized, &key, opts)?;
        let spec = Arc::new(Specialized {
            module: optimized,
            function: func.to_string(),
            compiled,
            writes,
            optimizer_report: stats.to_string(),
            compile_seconds: started.elapsed().as_secs_f64(),
            disk,
        });
        Ok(self.lock().entry(key).or_insert(spec).clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Specialized>>> {
        // A panic while holding the lock cannot leave the map half-updated (inserts are
        // single calls), so a poisoned lock is still usable.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}
