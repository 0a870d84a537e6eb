//! The harness runs end to end: `vr-bench --quick` builds the C references, checks the
//! compiled results against them and prints a row per kernel. No timing is asserted.

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
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .arg("--quick")
        .output()
        .expect("vr-bench starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "vr-bench failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for k in KERNELS {
        assert_eq!(
            stdout
                .lines()
                .filter(|l| l.starts_with(&format!("| {k} |")))
                .count(),
            1,
            "row for {k}:\n{stdout}"
        );
    }
    assert!(stdout.contains("median cpu/C over 8 kernels"), "{stdout}");
}

#[test]
fn one_kernel_can_be_selected() {
    let out = Command::new(env!("CARGO_BIN_EXE_vr-bench"))
        .args(["--quick", "--kernel", "rosen_der"])
        .output()
        .expect("vr-bench starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout
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
