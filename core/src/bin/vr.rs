//! `vr`: check, print, run and test VRIR modules from the command line.
//!
//! Arguments are parsed by hand: four subcommands with a few flags do not justify a
//! dependency (and its compile time). Exit status: 0 success, 1 an error of the program
//! or its input (`error: ...` on stderr), 2 a usage error (with the usage text).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use velociraptor::backend::{self, Backend};
use velociraptor::conformance;
use velociraptor::opt::OptOptions;
use velociraptor::vrir::{json, text};
use velociraptor::VrError;

const USAGE: &str = "\
usage: vr <command> [options]

commands:
  vr check FILE                       parse and verify a module
  vr dump FILE [--text|--json]        print a module in the text (default) or JSON form
                                      (parsed, not verified: dump shows broken modules too)
  vr run FILE FUNCTION [--args JSON | --args-file F] [--backend B] [--seed N]
                                      run a function; --args is a JSON array with one
                                      item per parameter; prints the results as JSON
                                      (one value, an array of several, null for none);
                                      --seed N: random draws start as after R's
                                      set.seed(N) (default VR_SEED, else the clock)
  vr run FILE.R FUNCTION --args JSON [--backend B] [--seed N]
                                      compile an R function for these arguments' types
                                      and run it (a bare number is an R double, a
                                      boolean a logical, {\"dtype\":\"i32\",\"data\":5} an
                                      integer, {\"dtype\",\"shape\",\"data\"} an array)
  vr run FILE.m FUNCTION --args JSON [--backend B]
                                      the same for a function of a MATLAB/Octave file
                                      (a flat JSON list is a row vector, i32 is int32)
  vr dump FILE.R FUNCTION --args JSON print the VRIR compiled from an R function
  vr dump FILE.m FUNCTION --args JSON print the VRIR compiled from a MATLAB function
  vr run FILE.jl FUNCTION --args JSON [--backend B]
  vr dump FILE.jl FUNCTION --args JSON
                                      the same for a Julia function (a script file:
                                      its other top-level code is stepped over);
                                      2 is an Int64, 2.0 a Float64
  vr explain FILE FUNCTION [--passes SPEC] [--params-never-alias] [--wrap-gpu]
                                      print FUNCTION after the optimizer, with what
                                      each pass did (SPEC as VR_PASSES: -bce-version,
                                      none,+bce-redundant; default VR_PASSES or all)
                                      and whether the default on-disk cache
                                      (VR_CACHE_DIR, ...) would be trusted; then the
                                      GPU sections' kernels and the passes that fired
                                      (VR_GPU_PASSES; --wrap-gpu: the body in a section)
  vr test [PATH...] [--backend B] [--verbose] [--wrap-gpu]
                                      run conformance files (default tests/vrir);
                                      --verbose lists skipped cases; --wrap-gpu wraps
                                      every function body in a GPU section
  vr --help                           this text
  vr --version

FILE is a module in the text form or JSON (a leading `{`); `-` reads standard input.
Backends: interp, cpu, cpu-par, gpu, auto (default interp). auto: gpu sections'
tasks placed on the device or the CPU by a cost model; `vr run` then prints its
estimates on stderr.
Exit status: 0 success, 1 error, 2 usage error.
";

/// Why `vr` stops early.
enum Failure {
    /// Wrong command line: the message, then the usage text; exit 2.
    Usage(String),
    /// The program or its input failed; exit 1.
    Error(String),
    /// `--help` after a command: the usage text on stdout; exit 0.
    Help,
}

impl From<VrError> for Failure {
    fn from(e: VrError) -> Failure {
        Failure::Error(e.to_string())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Error(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
        Err(Failure::Help) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, Failure> {
    let Some((command, rest)) = args.split_first() else {
        return Err(Failure::Usage("no command given".into()));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        "-V" | "--version" => {
            println!("vr {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::SUCCESS)
        }
        "check" => check(rest),
        "dump" => dump(rest),
        "run" => run_function(rest),
        "test" => test(rest),
        "explain" => explain(rest),
        other => Err(Failure::Usage(format!("unknown command `{other}`"))),
    }
}

/// The parsed flags and positional arguments of one subcommand.
#[derive(Default)]
struct Options {
    positional: Vec<String>,
    flags: Vec<(String, Option<String>)>,
}

impl Options {
    /// `valued` flags take the next argument as their value; `switches` take none.
    fn parse(args: &[String], valued: &[&str], switches: &[&str]) -> Result<Options, Failure> {
        let mut o = Options::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "-h" || a == "--help" {
                return Err(Failure::Help);
            }
            if let Some((name, value)) = a.split_once('=').filter(|(n, _)| n.starts_with("--")) {
                if !valued.contains(&name) {
                    return Err(Failure::Usage(format!("unknown option `{name}`")));
                }
                o.flags.push((name.to_string(), Some(value.to_string())));
            } else if valued.contains(&a.as_str()) {
                let value = it
                    .next()
                    .ok_or_else(|| Failure::Usage(format!("`{a}` needs a value")))?;
                o.flags.push((a.clone(), Some(value.clone())));
            } else if switches.contains(&a.as_str()) {
                o.flags.push((a.clone(), None));
            } else if a.starts_with('-') && a != "-" {
                return Err(Failure::Usage(format!("unknown option `{a}`")));
            } else {
                o.positional.push(a.clone());
            }
        }
        Ok(o)
    }

    /// The value of a flag given at most once.
    fn value(&self, name: &str) -> Result<Option<&str>, Failure> {
        let mut found = self.flags.iter().filter(|(n, _)| n == name);
        let first = found.next().and_then(|(_, v)| v.as_deref());
        if found.next().is_some() {
            return Err(Failure::Usage(format!("`{name}` given twice")));
        }
        Ok(first)
    }

    fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == name)
    }

    fn backend(&self) -> Result<Backend, Failure> {
        match self.value("--backend")? {
            None => Ok(Backend::Interp),
            Some(name) => name.parse().map_err(|e: VrError| Failure::Usage(e.message)),
        }
    }

    /// Exactly `n` positional arguments, named in the message when some are missing.
    fn positional(&self, names: &[&str]) -> Result<&[String], Failure> {
        match self.positional.len().cmp(&names.len()) {
            std::cmp::Ordering::Less => Err(Failure::Usage(format!(
                "missing {}",
                names[self.positional.len()..].join(" and ")
            ))),
            std::cmp::Ordering::Greater => Err(Failure::Usage(format!(
                "unexpected argument `{}`",
                self.positional[names.len()]
            ))),
            std::cmp::Ordering::Equal => Ok(&self.positional),
        }
    }
}

fn read_source(path: &str) -> Result<String, Failure> {
    let mut s = String::new();
    let read = if path == "-" {
        std::io::stdin().read_to_string(&mut s).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| s = t)
    };
    read.map_err(|e| Failure::Error(format!("cannot read {path}: {e}")))?;
    Ok(s)
}

/// Errors about a file's contents name the file.
fn in_file(path: &str) -> impl Fn(VrError) -> Failure + '_ {
    move |e| Failure::Error(format!("{path}: {e}"))
}

fn check(args: &[String]) -> Result<ExitCode, Failure> {
    let o = Options::parse(args, &[], &[])?;
    let [file] = o.positional(&["FILE"])? else {
        unreachable!()
    };
    let m = backend::load(&read_source(file)?).map_err(in_file(file))?;
    println!(
        "{file}: ok (module `{}`, {} function(s))",
        m.name,
        m.functions.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// R source is recognised by its extension.
fn is_r_source(path: &str) -> bool {
    path.ends_with(".R") || path.ends_with(".r")
}

/// MATLAB/Octave function files are recognised by their extension.
fn is_matlab_source(path: &str) -> bool {
    path.ends_with(".m")
}

/// Julia source is recognised by its extension.
fn is_julia_source(path: &str) -> bool {
    path.ends_with(".jl")
}

/// Compile a function of a host-language file (R, Julia or MATLAB, by the extension)
/// for the JSON arguments.
fn compile_host(
    o: &Options,
    file: &str,
    func: &str,
) -> Result<
    (
        velociraptor::frontend::r::Compiled,
        Vec<velociraptor::runtime::value::Value>,
    ),
    Failure,
> {
    if is_matlab_source(file) {
        let args_text = args_text(o)?;
        let args_json: serde_json::Value = serde_json::from_str(&args_text)
            .map_err(|e| Failure::Error(format!("arguments are not JSON: {e}")))?;
        let items = args_json.as_array().ok_or_else(|| {
            Failure::Error("arguments must be a JSON array (one item per parameter)".into())
        })?;
        return velociraptor::frontend::matlab::compile_for_json(&read_source(file)?, func, items)
            .map(|(module, values)| {
                (
                    velociraptor::frontend::r::Compiled {
                        module,
                        result_list: None,
                    },
                    values,
                )
            })
            .map_err(in_file(file));
    }
    compile_r(o, file, func)
}

/// Compile an R or Julia function (by the file's extension) for the JSON arguments
/// given with `--args`/`--args-file`.
fn compile_r(
    o: &Options,
    file: &str,
    func: &str,
) -> Result<
    (
        velociraptor::frontend::r::Compiled,
        Vec<velociraptor::runtime::value::Value>,
    ),
    Failure,
> {
    let args_text = args_text(o)?;
    let args_json: serde_json::Value = serde_json::from_str(&args_text)
        .map_err(|e| Failure::Error(format!("arguments are not JSON: {e}")))?;
    let items = args_json.as_array().ok_or_else(|| {
        Failure::Error("arguments must be a JSON array (one item per parameter)".into())
    })?;
    if is_julia_source(file) {
        return velociraptor::frontend::julia::compile_for_json(&read_source(file)?, func, items)
            .map(|(module, values)| {
                (
                    velociraptor::frontend::r::Compiled {
                        module,
                        result_list: None,
                    },
                    values,
                )
            })
            .map_err(in_file(file));
    }
    velociraptor::frontend::r::compile_entry_for_json(&read_source(file)?, func, items)
        .map_err(in_file(file))
}

fn args_text(o: &Options) -> Result<String, Failure> {
    Ok(match (o.value("--args")?, o.value("--args-file")?) {
        (Some(_), Some(_)) => {
            return Err(Failure::Usage(
                "`--args` and `--args-file` exclude each other".into(),
            ))
        }
        (Some(text), None) => text.to_string(),
        (None, Some(path)) => read_source(path)?,
        (None, None) => "[]".to_string(),
    })
}

fn dump(args: &[String]) -> Result<ExitCode, Failure> {
    let o = Options::parse(args, &["--args", "--args-file"], &["--json", "--text"])?;
    if o.positional
        .first()
        .is_some_and(|f| is_r_source(f) || is_julia_source(f) || is_matlab_source(f))
    {
        let [file, func] = o.positional(&["FILE", "FUNCTION"])? else {
            unreachable!()
        };
        let m = compile_host(&o, file, func)?.0.module;
        if o.has("--json") {
            println!("{}", json::to_json(&m));
        } else {
            print!("{}", text::print_module(&m));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let [file] = o.positional(&["FILE"])? else {
        unreachable!()
    };
    if o.has("--json") && o.has("--text") {
        return Err(Failure::Usage(
            "`--json` and `--text` exclude each other".into(),
        ));
    }
    let m = backend::parse_source(&read_source(file)?).map_err(in_file(file))?;
    if o.has("--json") {
        println!("{}", json::to_json(&m));
    } else {
        print!("{}", text::print_module(&m));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_function(args: &[String]) -> Result<ExitCode, Failure> {
    let o = Options::parse(args, &["--args", "--args-file", "--backend", "--seed"], &[])?;
    let [file, func] = o.positional(&["FILE", "FUNCTION"])? else {
        unreachable!()
    };
    let backend = o.backend()?;
    if let Some(seed) = o.value("--seed")? {
        let n = seed.parse::<i32>().map_err(|_| {
            Failure::Usage(format!(
                "--seed {seed}: expected an integer (R's set.seed takes 32-bit integers)"
            ))
        })?;
        velociraptor::runtime::rng::set_seed(n);
    }
    if is_julia_source(file) {
        let (c, values) = compile_r(&o, file, func)?;
        let entry = velociraptor::frontend::julia::entry_name(func);
        let results = backend::execute(backend, &c.module, &entry, values)
            .map_err(velociraptor::frontend::julia::explain_error)?;
        println!("{}", backend::results_to_json(&results));
        return Ok(ExitCode::SUCCESS);
    }
    if is_r_source(file) || is_matlab_source(file) {
        let (c, values) = compile_host(&o, file, func)?;
        let results = backend::execute(backend, &c.module, func, values).map_err(|e| {
            if is_matlab_source(file) {
                velociraptor::frontend::matlab::explain_error_in(&c.module, e)
            } else {
                velociraptor::frontend::r::explain_error(e)
            }
        })?;
        match &c.result_list {
            // A list result prints as the list: {"list": [["name", value], ...]}.
            Some(l) => println!(
                "{}",
                velociraptor::frontend::r::results_to_json(&results, Some(l))
            ),
            None => println!("{}", backend::results_to_json(&results)),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let args_text = args_text(&o)?;
    let m = backend::load(&read_source(file)?).map_err(in_file(file))?;
    let f = backend::lookup(&m, func)?;
    let args_json: serde_json::Value = serde_json::from_str(&args_text)
        .map_err(|e| Failure::Error(format!("arguments are not JSON: {e}")))?;
    let values = backend::args_from_json(f, &args_json)?;
    let (results, report) = backend::execute_reporting(backend, &m, func, values)?;
    println!("{}", backend::results_to_json(&results));
    if backend == Backend::Gpu {
        gpu_notes();
    }
    if backend == Backend::Auto {
        for line in report.lines() {
            eprintln!("note: {line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// On stderr: the device the `gpu` backend used (or why none), and why tasks ran on
/// the CPU.
fn gpu_notes() {
    match velociraptor::gpu::device() {
        Ok(d) => eprintln!("note: gpu: sections ran on {}", d.describe()),
        Err(why) => eprintln!("note: gpu: no OpenCL device ({why}): sections ran on the CPU"),
    }
    for n in velociraptor::gpu::engine::notes() {
        eprintln!("note: {n}");
    }
    let c = velociraptor::gpu::engine::counters();
    let get = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "note: gpu: {} kernel launches, {} tasks on the CPU, {} uploads ({} bytes), {} downloads ({} bytes), {} device copies",
        get(&c.launches),
        get(&c.declined),
        get(&c.uploads),
        get(&c.upload_bytes),
        get(&c.downloads),
        get(&c.download_bytes),
        get(&c.device_copies)
    );
    let fired: Vec<String> = velociraptor::gpu::kernel::passes::fired_in_process()
        .into_iter()
        .map(|(p, n)| format!("{p} {n}"))
        .collect();
    eprintln!(
        "note: gpu: kernels the code generator's passes fired on (VR_GPU_PASSES): {}",
        fired.join(", ")
    );
    if let Ok(gpu) = velociraptor::gpu::opencl::gpu() {
        let k = gpu.programs.stats();
        eprintln!(
            "note: gpu: programs: {} built, {} loaded from the kernel cache on disk, {} reused in this process, {} written to disk, {} bad entries rebuilt",
            k.builds, k.disk_hits, k.memory_hits, k.disk_writes, k.disk_rejects
        );
        if let Some(why) = gpu.programs.note() {
            eprintln!("note: gpu: {why}");
        }
    }
}

fn explain(args: &[String]) -> Result<ExitCode, Failure> {
    let o = Options::parse(args, &["--passes"], &["--params-never-alias", "--wrap-gpu"])?;
    let [file, func] = o.positional(&["FILE", "FUNCTION"])? else {
        unreachable!()
    };
    let mut opts = match o.value("--passes")? {
        Some(spec) => OptOptions::parse(spec).map_err(|e| Failure::Usage(e.message))?,
        None => OptOptions::from_env()?,
    };
    opts.params_never_alias = o.has("--params-never-alias");
    let mut m = backend::load(&read_source(file)?).map_err(in_file(file))?;
    if o.has("--wrap-gpu") {
        m = velociraptor::gpu::wrap_in_sections(&m);
    }
    print!("{}", velociraptor::opt::explain::explain(&m, func, &opts)?);
    // GPU sections: what the kernel generator's passes did (docs/gpu.md).
    let (optimized, _) = velociraptor::opt::optimize(&m, &opts)?;
    print!("{}", velociraptor::gpu::plan(&optimized).explain(func));
    // Where a C-API host with the default configuration would keep machine code, and
    // whether it would trust it (docs/c-api.md, "What the on-disk cache trusts").
    println!(
        "; disk cache: {}",
        velociraptor::runtime::disk_cache::DiskCache::describe_default()
    );
    Ok(ExitCode::SUCCESS)
}

fn test(args: &[String]) -> Result<ExitCode, Failure> {
    let o = Options::parse(args, &["--backend"], &["--verbose", "--wrap-gpu"])?;
    let backend = o.backend()?;
    if !backend.exists() {
        return Err(Failure::Error(format!(
            "unsupported: backend `{backend}` does not exist yet"
        )));
    }
    let paths: Vec<PathBuf> = if o.positional.is_empty() {
        vec![PathBuf::from("tests/vrir")]
    } else {
        o.positional.iter().map(PathBuf::from).collect()
    };
    let options = conformance::RunOptions {
        wrap_gpu: o.has("--wrap-gpu"),
    };
    let report = conformance::run_paths_with(&paths, backend, options);
    if backend == Backend::Gpu {
        gpu_notes();
    }
    for failure in report.failures() {
        println!("FAIL {failure}");
    }
    if o.has("--verbose") {
        for skip in report.skips() {
            println!("SKIP {skip}");
        }
    } else if report.skipped() > 0 {
        println!("({} cases skipped on {backend}: constructs it does not compile yet; --verbose lists them)", report.skipped());
    }
    println!("{}", report.summary());
    Ok(if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
