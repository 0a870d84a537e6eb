//! What a handle holds: a context (configuration, host hooks, compile cache), a loaded
//! module, a compiled function. Handles share the context through an `Arc`, so a
//! function stays callable after its context handle is destroyed.

use crate::types::{VrHostHooks, VR_BY_REFERENCE, VR_BY_VALUE};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use velociraptor::gpu::placement::Placement;
use velociraptor::runtime::compile_cache::{CompileCache, CompileOptions, Specialized};
use velociraptor::runtime::disk_cache::DiskCache;
use velociraptor::runtime::host::ArgConvention;
use velociraptor::vrir::ast::Module;
use velociraptor::{ErrorKind, VrError, VrResult};

/// Configuration keys a context accepts, with what each means (also the error message
/// for an unknown key).
pub const CONFIG_KEYS: &[(&str, &str)] = &[
    ("threads", "worker threads for parallel loops (positive integer; used by cpu-par)"),
    ("opt_level", "LLVM optimization level, 0 to 3 (default 2)"),
    ("bounds_check", "`on` (default: every access checked unless marked :nocheck) or `off`"),
    ("backend", "`cpu` (serial), `cpu-par` (parfor loops and large element-wise operators on a thread pool), `gpu` (on_gpu sections on the OpenCL device, the rest as cpu-par) or `auto` (= `cpu`)"),
    ("cache_dir", "directory of the on-disk code cache, or `off`"),
    ("passes", "optimizer passes, as VR_PASSES: `-bce,-bce-version`, `none`, `all` (default: every pass; VR_PASSES when set)"),
    ("params_noalias", "`yes` when the host never passes one array's storage as two parameters (R, MATLAB: values), else `no` (default)"),
    ("tiers", "`auto` (quick code for the first calls, full-strength code swapped in when a background compile ends; a first call whose estimated work is long waits for it), `quick-first` (the same, every call) or `full` (one compile at full strength); default `auto`, or VR_TIERS when it names one"),
];

/// A context's configuration, parsed and checked.
#[derive(Clone, Debug)]
pub struct Config {
    pub threads: Option<usize>,
    pub opt_level: u8,
    pub options: CompileOptions,
    pub cache_dir: Option<PathBuf>,
}

fn bad(key: &str, value: &str, want: &str) -> VrError {
    VrError::new(
        ErrorKind::InvalidArgument,
        format!("configuration `{key}` = `{value}`: expected {want}"),
    )
}

impl Config {
    pub fn parse(pairs: &BTreeMap<String, String>) -> VrResult<Config> {
        let mut c = Config {
            threads: None,
            opt_level: 2,
            options: CompileOptions {
                passes: velociraptor::opt::OptOptions::from_env()?,
                ..CompileOptions::default()
            },
            cache_dir: DiskCache::default_dir(),
        };
        for (k, v) in pairs {
            match k.as_str() {
                "threads" => {
                    c.threads = Some(
                        v.parse::<usize>()
                            .ok()
                            .filter(|n| *n > 0)
                            .ok_or_else(|| bad(k, v, "a positive integer"))?,
                    );
                    c.options.threads = c.threads;
                }
                "opt_level" => {
                    c.opt_level = v
                        .parse::<u8>()
                        .ok()
                        .filter(|n| *n <= 3)
                        .ok_or_else(|| bad(k, v, "0, 1, 2 or 3"))?;
                    c.options.opt_level = c.opt_level;
                }
                "bounds_check" => {
                    c.options.bounds_checks = match v.as_str() {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad(k, v, "`on` or `off`")),
                    }
                }
                "backend" => match v.as_str() {
                    "cpu" => (c.options.parallel, c.options.gpu) = (false, false),
                    "cpu-par" => (c.options.parallel, c.options.gpu) = (true, false),
                    "gpu" => {
                        (c.options.parallel, c.options.gpu) = (true, true);
                        c.options.placement = Placement::Device;
                    }
                    // GPU sections' tasks placed by the cost model, the rest cpu-par.
                    "auto" => {
                        (c.options.parallel, c.options.gpu) = (true, true);
                        c.options.placement = Placement::Model;
                    }
                    "interp" => {
                        return Err(VrError::new(
                            ErrorKind::Unsupported,
                            format!("backend `{v}` is not available through the C API yet (use `cpu`)"),
                        ))
                    }
                    _ => return Err(bad(k, v, "`cpu`, `cpu-par`, `gpu` or `auto`")),
                },
                "passes" => {
                    let noalias = c.options.passes.params_never_alias;
                    c.options.passes = velociraptor::opt::OptOptions::parse(v)
                        .map_err(|e| bad(k, v, &format!("a pass list ({})", e.message)))?;
                    c.options.passes.params_never_alias = noalias;
                }
                "params_noalias" => {
                    c.options.passes.params_never_alias = match v.as_str() {
                        "yes" | "true" | "1" => true,
                        "no" | "false" | "0" => false,
                        _ => return Err(bad(k, v, "`yes` or `no`")),
                    }
                }
                "tiers" => {
                    c.options.tiers = velociraptor::cpu::tiers::Tiers::parse(v)
                        .ok_or_else(|| bad(k, v, "`auto`, `quick-first` or `full`"))?;
                }
                "cache_dir" => {
                    c.cache_dir = match v.as_str() {
                        "off" | "" => None,
                        dir => Some(PathBuf::from(dir)),
                    }
                }
                _ => {
                    let known: Vec<String> =
                        CONFIG_KEYS.iter().map(|(k, what)| format!("{k} ({what})")).collect();
                    return Err(VrError::new(
                        ErrorKind::InvalidArgument,
                        format!("unknown configuration key `{k}`; known: {}", known.join("; ")),
                    ));
                }
            }
        }
        Ok(c)
    }
}

/// Host hooks as registered. The host promises they may be called from any thread
/// (see `VrHostHooks`); raw pointers inside make this impossible to derive.
#[derive(Clone, Copy)]
pub struct Hooks(pub VrHostHooks);
// SAFETY: the host contract of VrHostHooks: hooks and user_data are thread-safe.
unsafe impl Send for Hooks {}
unsafe impl Sync for Hooks {}

impl Hooks {
    pub fn none() -> Hooks {
        Hooks(VrHostHooks {
            user_data: std::ptr::null_mut(),
            alloc_array: None,
            release_array: None,
            incref: None,
            decref: None,
            on_error: None,
            arg_convention: VR_BY_REFERENCE,
            random: None,
        })
    }
    /// The host's random generator, as a call hands it to compiled code.
    pub fn random(&self) -> Option<velociraptor::runtime::rng::HostRandom> {
        self.0.random.map(|draw| velociraptor::runtime::rng::HostRandom {
            draw,
            user_data: self.0.user_data,
        })
    }
    pub fn convention(&self) -> VrResult<ArgConvention> {
        match self.0.arg_convention {
            VR_BY_REFERENCE => Ok(ArgConvention::ByReference),
            VR_BY_VALUE => Ok(ArgConvention::ByValue),
            other => Err(VrError::new(
                ErrorKind::InvalidArgument,
                format!("unknown argument convention {other} (VR_BY_REFERENCE = 0, VR_BY_VALUE = 1)"),
            )),
        }
    }
}

pub struct ContextInner {
    pub config: Config,
    pub hooks: RwLock<Hooks>,
    pub cache: CompileCache,
}

impl ContextInner {
    pub fn hooks(&self) -> Hooks {
        *self.hooks.read().unwrap_or_else(|p| p.into_inner())
    }
}

/// `VrContext*` in C.
pub struct VrContext {
    pub inner: Arc<ContextInner>,
}

/// `VrModule*` in C: a verified module.
pub struct VrModule {
    pub ctx: Arc<ContextInner>,
    pub module: Module,
}

/// A front end's explanation of run-time errors (it may keep the module to read it).
pub type Explain = Arc<dyn Fn(velociraptor::VrError) -> velociraptor::VrError + Send + Sync>;

/// `VrFunction*` in C: a function compiled for one list of argument types.
pub struct VrFunction {
    pub ctx: Arc<ContextInner>,
    pub spec: Arc<Specialized>,
    /// How run-time errors read in the host language's terms: the front end's
    /// `explain_error` for a function compiled from host source (None: as VRIR raised
    /// them).
    pub explain: Option<Explain>,
    /// When the host function returns a list: its type as the front end's signature JSON
    /// (`vr_function_result_list`); its elements are the results, in order.
    pub result_list: Option<String>,
}
