//! The sibling bench binaries write their CSV (issue 20): `vr-bench-julia` one row per
//! kernel and version, `vr-bench-compile` one row per compile (the report draws their
//! distribution), `vr-bench-par` and `vr-bench-rvec` one row per kernel and version.
//! Each runs one small kernel; no timing is asserted, only the rows and their columns.

use std::path::Path;
use std::process::Command;

const HEADER: &str = "kernel,size,config,threads,median_s,min_s,max_s,reps,machine,date,commit";

/// Runs `bin` with `args` and `--out DIR`; the rows of `DIR/csv` as (kernel, config,
/// reps), after checking the header and that min <= median <= max in every row.
fn rows(bin: &str, args: &[&str], csv: &str) -> Vec<(String, String, usize)> {
    let run = tempfile::tempdir().expect("a temporary folder");
    let out = Command::new(bin).args(args).arg("--out").arg(run.path()).output().expect("the binary starts");
    assert!(out.status.success(), "{bin} failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(Path::new(run.path()).join(csv)).unwrap_or_else(|e| panic!("{csv} not written: {e}"));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let (median, min, max): (f64, f64, f64) = (f[4].parse().unwrap(), f[5].parse().unwrap(), f[6].parse().unwrap());
            assert!(0.0 <= min && min <= median && median <= max, "{l}");
            (f[0].to_string(), f[2].to_string(), f[7].parse().unwrap())
        })
        .collect()
}

#[test]
fn julia_bench_writes_a_row_per_version() {
    let r = rows(env!("CARGO_BIN_EXE_vr-bench-julia"), &["--quick", "--kernel", "rosen_der"], "vr-bench-julia.csv");
    let configs: Vec<&str> = r.iter().map(|(k, c, _)| {
        assert_eq!(k, "rosen_der");
        c.as_str()
    }).collect();
    assert_eq!(configs, ["c", "vrir-cpu", "julia-cpu", "vrir-par", "julia-par", "julia-compile"]);
    // --quick: 2 repetitions of each timed version, one compile.
    assert!(r[..5].iter().all(|(_, _, reps)| *reps == 2), "{r:?}");
    assert_eq!(r[5].2, 1);
}

#[test]
fn compile_bench_writes_a_row_per_compile() {
    let r = rows(env!("CARGO_BIN_EXE_vr-bench-compile"), &["--reps", "3", "--kernel", "stencil5"], "vr-bench-compile.csv");
    // The process's first compile apart, then 3 compiles in each of the 3 modes, 1 rep a row.
    let count = |c: &str| r.iter().filter(|(_, config, _)| config == c).count();
    assert_eq!(count("process-first"), 1, "{r:?}");
    for mode in ["vrir-cpu", "vrir-par", "r-par"] {
        assert_eq!(count(mode), 3, "{mode}: {r:?}");
    }
    assert_eq!(r.len(), 10);
    assert!(r.iter().all(|(k, _, reps)| k == "stencil5" && *reps == 1), "{r:?}");
}

#[test]
fn par_and_rvec_benches_write_both_versions() {
    let par = rows(env!("CARGO_BIN_EXE_vr-bench-par"), &["--reps", "3", "--scale", "100", "--kernel", "rosen_der"], "vr-bench-par.csv");
    let want = |a: &str, b: &str| vec![("rosen_der".to_string(), a.to_string(), 3), ("rosen_der".to_string(), b.to_string(), 3)];
    assert_eq!(par, want("cpu-optimized", "cpu-par"));
    let rvec = rows(env!("CARGO_BIN_EXE_vr-bench-rvec"), &["--reps", "3", "--scale", "100", "--kernel", "rosen_der"], "vr-bench-rvec.csv");
    assert_eq!(rvec, want("vr-loops", "vr-vec"));
}
