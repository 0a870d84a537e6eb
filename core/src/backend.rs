//! Choosing a backend and calling a function through it: the one entry point that the
//! `vr` tool, the conformance runner and (later) the C API share, so that every
//! backend is reached the same way and a missing one fails with the same message.
//!
//! Also the JSON calling convention of `vr run` and the conformance files: arguments are
//! read against the function's declared parameter types, results printed as one JSON
//! value (one result), an array (several) or `null` (void).

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::Value;
use crate::vrir::ast::{Function, Module};
use crate::vrir::{json, text, verify};
use serde_json::Value as Json;
use std::fmt;
use std::str::FromStr;

/// Where a function runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The reference interpreter: the semantic oracle.
    Interp,
    /// LLVM-compiled code, serial (first increment: scalar code and element access to
    /// arrays handed in; other constructs fail to compile as `Unsupported`).
    Cpu,
    /// LLVM-compiled code with parfor loops (and large element-wise operators) on a
    /// rayon thread pool of `VR_THREADS` threads (default: every core).
    CpuPar,
    /// OpenCL for accelerated sections, the CPU for the rest.
    Gpu,
    /// `gpu` with each task of a section placed on the device or the CPU's threads by a
    /// cost model (`gpu::placement`); `cpu-par` where there is no device.
    Auto,
}

impl Backend {
    pub const ALL: [Backend; 5] = [
        Backend::Interp,
        Backend::Cpu,
        Backend::CpuPar,
        Backend::Gpu,
        Backend::Auto,
    ];

    /// The name used on the command line (`--backend cpu-par`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::Cpu => "cpu",
            Backend::CpuPar => "cpu-par",
            Backend::Gpu => "gpu",
            Backend::Auto => "auto",
        }
    }

    /// Whether this build can run code on this backend at all. (`gpu` always exists:
    /// without an OpenCL device its sections run on the CPU, with a note.)
    pub fn exists(self) -> bool {
        true
    }

    /// The concrete backends (not `Auto`) that exist in this build: the ones every
    /// conformance case must pass on.
    pub fn available() -> Vec<Backend> {
        Backend::ALL
            .into_iter()
            .filter(|b| *b != Backend::Auto && b.exists())
            .collect()
    }

    fn missing(self) -> VrError {
        VrError::new(
            ErrorKind::Unsupported,
            format!("backend `{}` does not exist yet", self.name()),
        )
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = VrError;
    fn from_str(s: &str) -> VrResult<Backend> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
                VrError::new(
                    ErrorKind::InvalidArgument,
                    format!(
                        "unknown backend `{s}` (expected one of {})",
                        names.join(", ")
                    ),
                )
            })
    }
}

/// Parse a module from its text or JSON form, without verifying it. JSON is recognised
/// by a leading `{` (after whitespace); anything else is read as the text form.
pub fn parse_source(src: &str) -> VrResult<Module> {
    if src.trim_start().starts_with('{') {
        json::from_json(src)
    } else {
        text::parse_module(src)
    }
}

/// Parse (text or JSON) and verify: the module every backend may run.
pub fn load(src: &str) -> VrResult<Module> {
    let m = parse_source(src)?;
    verify::verify_module(&m)?;
    Ok(m)
}

/// Run `func` of `m` with `args` on `backend`. The module is verified first (cheap, and
/// backends rely on it: the verifier is the only type checker).
pub fn execute(backend: Backend, m: &Module, func: &str, args: Vec<Value>) -> VrResult<Vec<Value>> {
    execute_reporting(backend, m, func, args).map(|(r, _)| r)
}

/// [`execute`], with the offload engine's report after the call (where each GPU section
/// ran, what moved, and for `auto` the placement model's estimates; empty on the other
/// backends).
pub fn execute_reporting(
    backend: Backend,
    m: &Module,
    func: &str,
    args: Vec<Value>,
) -> VrResult<(Vec<Value>, String)> {
    if !backend.exists() {
        return Err(backend.missing());
    }
    verify::verify_module(m)?;
    lookup(m, func)?;
    match backend {
        // The interpreter is the oracle and runs modules as given, except inside
        // `opt::with_options` (tests of the optimizer).
        Backend::Interp => match crate::opt::scoped() {
            Some(opts) => crate::interp::run(&crate::opt::optimize(m, &opts)?.0, func, args),
            None => crate::interp::run(m, func, args),
        }
        .map(|r| (r, String::new())),
        Backend::Cpu | Backend::CpuPar | Backend::Gpu | Backend::Auto => {
            let opts = crate::opt::OptOptions {
                parallel_loops: backend != Backend::Cpu,
                ..crate::opt::OptOptions::current()?
            };
            let (optimized, _) = crate::opt::optimize(m, &opts)?;
            let options = if backend == Backend::Cpu {
                crate::cpu::CpuOptions::default()
            } else {
                crate::cpu::CpuOptions::parallel()
            };
            let options = crate::cpu::CpuOptions {
                quick: crate::cpu::tiers::quick_only(),
                ..options.following(&opts)
            };
            // On_gpu sections through the GPU's engine (placed by the cost model for
            // `auto`), the rest as cpu-par.
            let compiled = match backend {
                Backend::Gpu => crate::driver::compile_gpu(&optimized, options)?,
                Backend::Auto => crate::driver::compile_auto(&optimized, options)?,
                _ => crate::cpu::compile_with(&optimized, options)?,
            };
            let results = compiled.call(func, args)?;
            Ok((results, compiled.offload_report()))
        }
    }
}

/// The function named `func`, or an error listing the functions there are.
pub fn lookup<'m>(m: &'m Module, func: &str) -> VrResult<&'m Function> {
    m.function(func).ok_or_else(|| {
        let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
        VrError::new(
            ErrorKind::InvalidArgument,
            format!(
                "no function `{func}` in module `{}` (it has: {})",
                m.name,
                names.join(", ")
            ),
        )
    })
}

/// Read arguments for `f` from a JSON array holding one value per parameter.
pub fn args_from_json(f: &Function, j: &Json) -> VrResult<Vec<Value>> {
    let list = j.as_array().ok_or_else(|| {
        VrError::new(
            ErrorKind::InvalidArgument,
            format!("arguments must be a JSON array (one item per parameter), got {j}"),
        )
    })?;
    args_from_json_items(f, list)
}

/// Read one argument per parameter of `f` from JSON values.
pub fn args_from_json_items(f: &Function, items: &[Json]) -> VrResult<Vec<Value>> {
    if items.len() != f.params.len() {
        return Err(VrError::new(
            ErrorKind::InvalidArgument,
            format!(
                "`{}` takes {} argument(s), got {}",
                f.name,
                f.params.len(),
                items.len()
            ),
        ));
    }
    f.params
        .iter()
        .zip(items)
        .map(|(p, j)| {
            Value::from_json(j, &p.ty).map_err(|e| {
                VrError::new(
                    e.kind,
                    format!("argument `{}` of type {}: {}", p.name, p.ty, e.message),
                )
            })
        })
        .collect()
}

/// The JSON form of a call's results: the value itself for one result, an array for
/// several, `null` for none.
pub fn results_to_json(results: &[Value]) -> Json {
    match results {
        [] => Json::Null,
        [one] => one.to_json(),
        many => Json::Array(many.iter().map(Value::to_json).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_choices() {
        for b in Backend::ALL {
            assert_eq!(b.name().parse::<Backend>().unwrap(), b);
        }
        let e = "fpga".parse::<Backend>().unwrap_err();
        assert_eq!(
            e.message,
            "unknown backend `fpga` (expected one of interp, cpu, cpu-par, gpu, auto)"
        );
    }

    #[test]
    fn every_backend_exists() {
        assert_eq!(
            Backend::available(),
            vec![Backend::Interp, Backend::Cpu, Backend::CpuPar, Backend::Gpu]
        );
        let _ = Backend::Gpu.missing();
    }

    #[test]
    fn json_is_detected_by_its_leading_brace() {
        let m = Module {
            name: "m".into(),
            index_base: 1,
            functions: vec![],
        };
        let from_json = parse_source(&format!("  \n{}", json::to_json(&m))).unwrap();
        assert_eq!(from_json, m);
        let e = parse_source("{ not json").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Parse);
        assert!(e.message.starts_with("JSON at line 1"), "{}", e.message);
        assert!(parse_source("(module m :index-base 1)").is_ok());
    }

    #[test]
    fn results_print_as_one_value_a_list_or_null() {
        use crate::runtime::value::Scalar;
        assert_eq!(results_to_json(&[]), Json::Null);
        assert_eq!(
            results_to_json(&[Value::Scalar(Scalar::F64(2.5))]).to_string(),
            "2.5"
        );
        let two = [
            Value::Scalar(Scalar::I64(1)),
            Value::Scalar(Scalar::F64(f64::NAN)),
        ];
        assert_eq!(results_to_json(&two).to_string(), r#"[1,"nan"]"#);
    }
}
