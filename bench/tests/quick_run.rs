//! The harness runs end to end: `vr-bench --quick` builds the C references (serial and
//! OpenMP), checks the compiled results against them, prints a row per kernel and writes
//! the run's CSV. No timing is asserted.

use std::process::Command;

const KERNELS: [&str; 8] = [
    "arc_distance",
    "julia_set",
    "growcut",
    "rosen_der",
    "stencil5",
    "matmul_loops",
    "nbody1d",
    "black_scholes",
];

#[test]
fn quick_run_prints_a_row_per_kernel() {
    let run = tempfile::tempdir().expect("a temporary folder");
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .arg("--quick")
        .arg("--out")
        .arg(run.path())
        .output()
        .expect("vr-bench starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "vr-bench failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The main table: up to the first blank line (the STREAM tables follow).
    let table = stdout.split("\n\n").next().unwrap_or("");
    for k in KERNELS {
        assert_eq!(
            table
                .lines()
                .filter(|l| l.starts_with(&format!("| {k} |")))
                .count(),
            1,
            "row for {k}:\n{stdout}"
        );
    }
    assert!(stdout.contains("median cpu/C over 8 kernels"), "{stdout}");

    // The CSV: one row per kernel and configuration, OpenMP for each (all have a parfor).
    let csv = std::fs::read_to_string(run.path().join("vr-bench.csv")).expect("vr-bench.csv written");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("kernel,size,config,threads,median_s,min_s,max_s,reps,machine,date,commit"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    for k in KERNELS {
        for config in ["interp", "c", "cpu-checks-on", "cpu-optimized", "cpu-checks-off", "cpu-par", "openmp", "compile"] {
            let row = rows.iter().find(|r| r[0] == k && r[2] == config).unwrap_or_else(|| panic!("no {k} {config} row in:\n{csv}"));
            let (median, min, max): (f64, f64, f64) = (row[4].parse().unwrap(), row[5].parse().unwrap(), row[6].parse().unwrap());
            assert!(min <= median && median <= max && min >= 0.0, "{row:?}");
        }
    }
}

#[test]
fn thread_sweep_times_cpu_par_and_openmp_at_each_count() {
    let run = tempfile::tempdir().expect("a temporary folder");
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .args(["--quick", "--kernel", "rosen_der", "--threads", "1,2", "--out"])
        .arg(run.path())
        .output()
        .expect("vr-bench starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "vr-bench failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for t in [1, 2] {
        assert!(stdout.lines().any(|l| l.starts_with(&format!("| rosen_der | {t} |"))), "sweep row for {t} threads:\n{stdout}");
    }
    let csv = std::fs::read_to_string(run.path().join("vr-bench.csv")).expect("vr-bench.csv written");
    for config in ["cpu-par-sweep", "openmp-sweep"] {
        for t in ["1", "2"] {
            assert!(csv.lines().any(|l| l.split(',').nth(2) == Some(config) && l.split(',').nth(3) == Some(t)), "{config} at {t} threads:\n{csv}");
        }
    }
}

#[test]
fn one_kernel_can_be_selected() {
    // Its CSV goes to a folder of its own, not into the source tree.
    let run = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .args(["--quick", "--kernel", "rosen_der"])
        .env("VR_BENCH_OUT", run.path())
        .output()
        .expect("vr-bench starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let table = stdout.split("\n\n").next().unwrap_or("");
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("| ")
                && !l.starts_with("| kernel")
                && !l.starts_with("| ---"))
            .count(),
        1,
        "{stdout}"
    );
}

#[test]
fn unknown_kernel_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .args(["--quick", "--kernel", "nope"])
        .output()
        .expect("vr-bench starts");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no kernel named `nope`"));
}

#[test]
fn passes_mode_prints_every_pass_for_every_kernel() {
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .args(["--quick", "--passes", "--kernel", "rosen_der"])
        .output()
        .expect("vr-bench starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let header = stdout.lines().next().unwrap_or("");
    for p in velociraptor::opt::PASSES {
        assert!(header.contains(&format!("-{}", p.name)), "{header}");
    }
    // rosen_der's four inner-loop checks are all removed (counted by the optimizer).
    assert!(stdout.lines().any(|l| l.starts_with("rosen_der") && l.ends_with("4/4 (100%)")), "{stdout}");
}
