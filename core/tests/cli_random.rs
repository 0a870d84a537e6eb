//! `vr run --seed N`: random draws start as after R's `set.seed(N)`. Expected values are
//! R's (R 4.2.2, `print(x, digits = 17)`, quoted at each check).

use std::path::PathBuf;
use std::process::{Command, Output};

fn vr(args: &[&str]) -> (i32, String, String) {
    let o: Output = Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env_remove("VR_SEED")
        .output()
        .expect("vr runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn seed_gives_rs_numbers_for_r_source_and_vrir() {
    // set.seed(42); runif(3): 0.91480604349635541 0.93707541329786181 0.28613953478634357
    let (code, stdout, stderr) = vr(&[
        "run",
        "core/tests/frontend_r/random.R",
        "unif_n",
        "--args",
        "[3]",
        "--seed",
        "42",
        "--backend",
        "interp",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim(),
        r#"{"data":[0.9148060434963554,0.9370754132978618,0.2861395347863436],"dtype":"f64","shape":[3]}"#
    );
    // set.seed(42); sample(10): 1 5 10 8 2 4 6 9 7 3
    let (code, stdout, stderr) = vr(&[
        "run",
        "core/tests/frontend_r/random.R",
        "perm",
        "--args",
        "[10]",
        "--seed",
        "42",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim(),
        r#"{"data":[1,5,10,8,2,4,6,9,7,3],"dtype":"i32","shape":[10]}"#
    );
    // set.seed(-5); rnorm(2): 0.62676929973578810 -0.87405082082450392
    let (code, stdout, stderr) = vr(&[
        "run",
        "tests/vrir/random/norm_negative_seed.vrir",
        "f",
        "--args",
        "[]",
        "--seed",
        "-5",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "[0.6267692997357881,-0.8740508208245039]");
}

#[test]
fn a_bad_seed_is_a_usage_error() {
    let (code, _, stderr) = vr(&[
        "run",
        "core/tests/frontend_r/random.R",
        "unif_n",
        "--args",
        "[3]",
        "--seed",
        "1.5",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--seed 1.5"), "{stderr}");
}
