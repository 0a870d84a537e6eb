//! The conformance suite (tests/vrir) on every backend this build has: each case must
//! pass on each, and the suite must be big enough to mean something.

use std::path::PathBuf;
use velociraptor::backend::Backend;
use velociraptor::conformance::run_paths;

/// The suite must hold at least this many cases (directives) once it exists.
const MIN_INTERP_CASES: usize = 200;

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vrir")
}

#[test]
fn every_case_passes_on_every_available_backend() {
    let dir = suite_dir();
    if !dir.is_dir() {
        eprintln!(
            "note: {} does not exist yet; no conformance cases to run",
            dir.display()
        );
        return;
    }
    let mut failures = Vec::new();
    for backend in Backend::available() {
        let report = run_paths(std::slice::from_ref(&dir), backend);
        eprintln!("conformance on {backend}: {}", report.summary());
        failures.extend(report.failures().map(|f| format!("[{backend}] {f}")));
        if backend == Backend::Interp {
            assert!(
                report.cases.len() >= MIN_INTERP_CASES,
                "only {} conformance cases ran on interp; the suite needs at least {MIN_INTERP_CASES}",
                report.cases.len()
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} conformance case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
