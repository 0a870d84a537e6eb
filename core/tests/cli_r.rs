//! `vr run FILE.R` and `vr dump FILE.R`: the R front end from the command line.
//! Expected values are hand-computed (the R comparisons are in frontend_r_semantics.rs).

use std::path::PathBuf;
use std::process::{Command, Output};

const CASES: &str = "core/tests/frontend_r/cases.R";

fn vr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("vr runs")
}

fn out(o: &Output) -> (i32, String, String) {
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn run_compiles_and_runs_an_r_function() {
    let (code, stdout, stderr) = out(&vr(&["run", CASES, "fib", "--args", "[10]", "--backend", "interp"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "55.0");
    let (code, stdout, stderr) = out(&vr(&["run", CASES, "fill_matrix", "--args", r#"[{"dtype":"i32","data":2},{"dtype":"i32","data":2}]"#]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), r#"{"data":[[11.0,12.0],[21.0,22.0]],"dtype":"f64","shape":[2,2]}"#);
    let (code, stdout, _) = out(&vr(&["run", CASES, "count_up", "--args", r#"[{"dtype":"i32","data":4}]"#, "--backend", "cpu"]));
    assert_eq!((code, stdout.trim()), (0, "10"));
}

#[test]
fn run_reports_r_level_errors_with_function_and_line() {
    let (code, _, stderr) = out(&vr(&["run", CASES, "iadd", "--args", r#"[{"dtype":"i32","data":2147483647},{"dtype":"i32","data":1}]"#]));
    assert_eq!(code, 1);
    assert!(stderr.contains("integer overflow") && stderr.contains("in iadd (line 24)"), "{stderr}");
}

#[test]
fn dump_prints_the_vrir() {
    let (code, stdout, stderr) = out(&vr(&["dump", CASES, "sumsq", "--args", "[[1.0, 2.0]]"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("(module sumsq :index-base 1\n  (function sumsq ((x f64[1,col])) (f64)"), "{stdout}");
}

#[test]
fn unknown_functions_and_bad_arguments_are_errors() {
    let (code, _, stderr) = out(&vr(&["run", CASES, "no_such_function", "--args", "[]"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("no function `no_such_function`"), "{stderr}");
    let (code, _, stderr) = out(&vr(&["run", CASES, "fib", "--args", r#"[{"dtype":"i64","data":1}]"#]));
    assert_eq!(code, 1);
    assert!(stderr.contains("no R type"), "{stderr}");
}
