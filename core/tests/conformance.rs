//! The conformance suite (tests/vrir) on every backend this build has. On the
//! interpreter every case must pass; a compiled backend may skip a case only because it
//! does not compile a construct yet (reported, never counted as passed) and must agree
//! on every case it runs. The cpu backend runs modules through the optimizer (all passes
//! on, then each pass off in turn), and the interpreter also runs the optimized modules.

use std::path::PathBuf;
use velociraptor::backend::{load, Backend};
use velociraptor::conformance::run_paths;
use velociraptor::opt::{optimize, with_options, OptOptions, PASSES};

/// The suite must hold at least this many cases (directives).
const MIN_INTERP_CASES: usize = 200;
/// Cases the cpu backend must run (not skip): raise it as the backend grows.
const MIN_CPU_CASES: usize = 600;
/// Cases the cpu-par backend must run (parfor on the thread pool): as many as cpu.
const MIN_CPU_PAR_CASES: usize = 600;

#[test]
fn every_case_passes_on_every_available_backend() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vrir");
    assert!(dir.is_dir(), "the conformance suite {} is missing", dir.display());
    let mut failures = Vec::new();
    // gpu runs the suite with every body wrapped in a GPU section (below): unwrapped it
    // is cpu-par.
    for backend in Backend::available().into_iter().filter(|b| *b != Backend::Gpu) {
        let report = run_paths(std::slice::from_ref(&dir), backend);
        eprintln!("conformance on {backend}: {}", report.summary());
        failures.extend(report.failures().map(|f| format!("[{backend}] {f}")));
        let ran = report.passed() + report.failed();
        match backend {
            Backend::Interp => {
                assert_eq!(report.skipped(), 0, "the interpreter skips nothing");
                assert!(ran >= MIN_INTERP_CASES, "only {ran} cases ran on interp; the suite needs {MIN_INTERP_CASES}");
            }
            Backend::Cpu => {
                assert!(ran >= MIN_CPU_CASES, "only {ran} cases ran on cpu; expected at least {MIN_CPU_CASES}");
            }
            Backend::CpuPar => {
                assert!(ran >= MIN_CPU_PAR_CASES, "only {ran} cases ran on cpu-par; expected at least {MIN_CPU_PAR_CASES}");
            }
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{} conformance case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// The `gpu` backend with every function body wrapped in one GPU section (`vr test
/// --backend gpu --wrap-gpu`): parfors run as kernels on the OpenCL device (PoCL in CI),
/// or on the CPU without one; every case agrees.
#[test]
fn every_case_passes_on_the_gpu_backend_with_bodies_in_gpu_sections() {
    let dir = suite();
    let options = velociraptor::conformance::RunOptions { wrap_gpu: true };
    let report = velociraptor::conformance::run_paths_with(std::slice::from_ref(&dir), Backend::Gpu, options);
    eprintln!("conformance on gpu (wrapped): {}", report.summary());
    let failures: Vec<String> = report.failures().map(|f| f.to_string()).collect();
    assert!(failures.is_empty(), "{} case(s) failed on gpu:\n{}", failures.len(), failures.join("\n"));
    let ran = report.passed() + report.failed();
    assert!(ran >= MIN_CPU_PAR_CASES, "only {ran} cases ran on gpu; expected at least {MIN_CPU_PAR_CASES}");
}

fn suite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vrir")
}

/// Every conformance file whose module the optimizer changes (with all passes on):
/// the files where switching a pass off can make a difference.
fn files_the_optimizer_changes() -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "vrir") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&suite(), &mut files);
    files
        .into_iter()
        .filter(|p| {
            let src = std::fs::read_to_string(p).unwrap();
            match load(&src) {
                Ok(m) => optimize(&m, &OptOptions::all()).map(|(o, _)| o != m).unwrap_or(true),
                Err(_) => false,
            }
        })
        .collect()
}

/// Run `paths` with `opts` in force on this thread (the cpu backend optimizes with
/// them; inside `with_options` the interpreter runs the optimized module too).
fn failures_with(paths: &[PathBuf], opts: OptOptions, backend: Backend) -> Vec<String> {
    let report = with_options(opts.clone(), || run_paths(paths, backend));
    eprintln!("conformance on {backend} with passes off {:?}: {}", opts.disabled, report.summary());
    assert!(report.passed() > 0, "nothing passed on {backend}");
    report.failures().map(|f| format!("[{backend}, off: {:?}] {f}", opts.disabled)).collect()
}

#[test]
fn the_interpreter_agrees_on_the_optimized_module() {
    let failures = failures_with(&[suite()], OptOptions::all(), Backend::Interp);
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_cpu_backend_passes_with_each_optimizer_pass_off() {
    let changed = files_the_optimizer_changes();
    assert!(changed.len() >= 15, "the optimizer changes only {} conformance files", changed.len());
    let mut failures = Vec::new();
    for pass in PASSES {
        let mut opts = OptOptions::all();
        opts.set(pass.name, false).unwrap();
        failures.extend(failures_with(&changed, opts, Backend::Cpu));
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}
