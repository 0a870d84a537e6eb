//! The conformance suite (tests/vrir) on every backend this build has. On the
//! interpreter every case must pass; a compiled backend may skip a case only because it
//! does not compile a construct yet (reported, never counted as passed) and must agree
//! on every case it runs.

use std::path::PathBuf;
use velociraptor::backend::Backend;
use velociraptor::conformance::run_paths;

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
    for backend in Backend::available() {
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
