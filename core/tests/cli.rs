//! The `vr` command as a user meets it: exit codes (0 ok, 1 error, 2 usage), output
//! formats, and the messages for unknown or missing backends.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn vr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("vr runs")
}

fn vr_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(args)
        .current_dir(repo_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vr runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch file under the target directory, unique per test.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const NBODY: &str = "examples/nbody1d.vrir";

const DIVMOD: &str = "\
(module divmod :index-base 0
  (function divmod ((a i64) (b i64)) (i64 i64)
    (locals)
    (return (idiv a b) (mod a b)))
  (function half ((x f64)) (f64)
    (locals)
    (return (/ x 2.0)))
  (function nothing () ()
    (locals)
    (return)))
";

#[test]
fn help_prints_usage_and_succeeds() {
    for flag in ["--help", "-h", "help"] {
        let o = vr(&[flag]);
        assert_eq!(o.status.code(), Some(0));
        assert!(
            stdout(&o).starts_with("usage: vr <command>"),
            "{}",
            stdout(&o)
        );
        assert!(stdout(&o).contains("vr test [PATH...] [--backend B]"));
    }
    let o = vr(&["run", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("usage: vr"));
}

#[test]
fn usage_errors_exit_2_with_the_usage_text() {
    for (args, message) in [
        (&[][..], "error: no command given"),
        (&["frobnicate"][..], "error: unknown command `frobnicate`"),
        (&["check"][..], "error: missing FILE"),
        (&["run", NBODY][..], "error: missing FUNCTION"),
        (
            &["check", NBODY, "extra"][..],
            "error: unexpected argument `extra`",
        ),
        (
            &["dump", NBODY, "--yaml"][..],
            "error: unknown option `--yaml`",
        ),
        (
            &["dump", NBODY, "--json", "--text"][..],
            "error: `--json` and `--text` exclude each other",
        ),
        (
            &["run", NBODY, "nbody", "--args"][..],
            "error: `--args` needs a value",
        ),
        (
            &["run", NBODY, "nbody", "--args", "[]", "--args-file", "x"][..],
            "error: `--args` and `--args-file` exclude each other",
        ),
    ] {
        let o = vr(args);
        assert_eq!(o.status.code(), Some(2), "vr {args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with(message), "vr {args:?}: {err}");
        assert!(err.contains("usage: vr <command>"), "vr {args:?}: {err}");
    }
}

#[test]
fn unknown_backend_is_a_usage_error_naming_the_choices() {
    let o = vr(&["run", NBODY, "accel", "--backend", "fpga"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(
            "error: unknown backend `fpga` (expected one of interp, cpu, cpu-par, gpu, auto)\n"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_gpu_backend_runs_what_the_interpreter_runs_and_names_its_device() {
    let args = r#"--args=[[0.0, 1.0], [2.0, 3.0], 0.0]"#;
    let gpu = vr(&["run", NBODY, "accel", args, "--backend", "gpu"]);
    let interp = vr(&["run", NBODY, "accel", args, "--backend", "interp"]);
    assert_eq!(gpu.status.code(), Some(0), "{}", stderr(&gpu));
    assert_eq!(stdout(&gpu), stdout(&interp));
    // stderr names the device (or why there is none) and the transfer counts.
    assert!(stderr(&gpu).contains("note: gpu: "), "{}", stderr(&gpu));
    let o = vr(&["test", "examples", "--backend", "gpu", "--wrap-gpu"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn the_parallel_cpu_backend_runs_what_the_serial_one_runs() {
    let args = r#"--args=[[0.0, 1.0], [2.0, 3.0], 0.0]"#;
    let par = vr(&["run", NBODY, "accel", args, "--backend", "cpu-par"]);
    let interp = vr(&["run", NBODY, "accel", args, "--backend", "interp"]);
    assert_eq!(par.status.code(), Some(0), "{}", stderr(&par));
    assert_eq!(stdout(&par), stdout(&interp));
    let o = vr(&["test", "tests/vrir/parfor", "--backend", "cpu-par"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).ends_with(" passed, 0 failed\n"), "{}", stdout(&o));
}

#[test]
fn the_cpu_backend_names_what_it_does_not_compile_yet() {
    // The n-body example compiles (allocation, copies, element-wise operators) and
    // agrees with the interpreter.
    let args = r#"--args=[[0.0, 1.0], [2.0, 3.0], 0.0]"#;
    let cpu = vr(&["run", NBODY, "accel", args, "--backend", "cpu"]);
    let interp = vr(&["run", NBODY, "accel", args, "--backend", "interp"]);
    assert_eq!(cpu.status.code(), Some(0), "{}", stderr(&cpu));
    assert_eq!(stdout(&cpu), stdout(&interp));
    // Complex matmul compiles too now: [[1, 2], [3, 4+i]] squared, element (0, 0) is
    // 1*1 + 2*3 = 7 (by hand), printed as the interpreter prints it.
    let reduce = scratch(
        "reduce.vrir",
        "(module r :index-base 0 (function total ((a c128[2,row])) (c128) (locals) (return (index (matmul a a) 0 0))))",
    );
    let path = reduce.to_str().unwrap();
    let args = r#"--args=[[[{"re": 1.0, "im": 0.0}, {"re": 2.0, "im": 0.0}], [{"re": 3.0, "im": 0.0}, {"re": 4.0, "im": 1.0}]]]"#;
    let cpu = vr(&["run", path, "total", args, "--backend", "cpu"]);
    let interp = vr(&["run", path, "total", args, "--backend", "interp"]);
    assert_eq!(cpu.status.code(), Some(0), "{}", stderr(&cpu));
    assert_eq!(stdout(&cpu), stdout(&interp));
    assert!(stdout(&cpu).contains("7"), "{}", stdout(&cpu));
}

#[test]
fn check_accepts_good_modules_and_names_the_file_of_bad_ones() {
    let o = vr(&["check", NBODY]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "examples/nbody1d.vrir: ok (module `nbody1d`, 2 function(s))\n"
    );

    let bad = scratch(
        "bad.vrir",
        "(module m :index-base 0\n  (function f () (f64) (locals) (return 1.0))\n",
    );
    let o = vr(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("error: {}: parse error: line ", bad.display())),
        "{err}"
    );

    let o = vr(&["check", "no/such/file.vrir"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("error: cannot read no/such/file.vrir: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn dump_converts_between_text_and_json() {
    let text = vr(&["dump", NBODY]);
    assert_eq!(text.status.code(), Some(0));
    assert!(
        stdout(&text)
            .starts_with("(module nbody1d :index-base 0\n  (function accel ((x f64[1,row])"),
        "{}",
        stdout(&text)
    );
    assert_eq!(stdout(&vr(&["dump", NBODY, "--text"])), stdout(&text));

    let json = vr(&["dump", NBODY, "--json"]);
    assert_eq!(json.status.code(), Some(0));
    let parsed: serde_json::Value =
        serde_json::from_slice(&json.stdout).expect("dump --json prints JSON");
    assert_eq!(parsed["name"], "nbody1d");
    assert_eq!(parsed["index_base"], 0);
    assert_eq!(parsed["functions"][1]["name"], "nbody");

    // JSON in (recognised by its leading brace), text out: the same text as before.
    let back = vr_stdin(&["dump", "-"], &stdout(&json));
    assert_eq!(back.status.code(), Some(0), "{}", stderr(&back));
    assert_eq!(stdout(&back), stdout(&text));
}

#[test]
fn run_prints_one_result_as_a_value_several_as_a_list_and_none_as_null() {
    let file = scratch("divmod.vrir", DIVMOD);
    let file = file.to_str().unwrap();
    let o = vr(&["run", file, "divmod", "--args", "[-7, 2]"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Floor division and modulo, as Python: -7 // 2 == -4, -7 % 2 == 1.
    assert_eq!(stdout(&o), "[-4,1]\n");
    let o = vr(&["run", file, "half", "--args", "[3.0]"]);
    assert_eq!(stdout(&o), "1.5\n");
    let o = vr(&["run", file, "half", "--args", r#"["inf"]"#]);
    assert_eq!(stdout(&o), "\"inf\"\n");
    let o = vr(&["run", file, "nothing"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "null\n");
}

#[test]
fn run_reads_arguments_from_a_file_and_prints_arrays() {
    let args = scratch("accel-args.json", "[[0.0, 1.0], [2.0, 3.0], 0.0]");
    let o = vr(&[
        "run",
        NBODY,
        "accel",
        "--args-file",
        args.to_str().unwrap(),
        "--backend",
        "interp",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // By hand: a[0] = 3 * 1 / 1, a[1] = 2 * (-1) / 1.
    assert_eq!(
        stdout(&o),
        "{\"data\":[3.0,-2.0],\"dtype\":\"f64\",\"shape\":[2]}\n"
    );
}

#[test]
fn run_errors_exit_1_and_say_what_is_wrong() {
    let file = scratch("divmod-errors.vrir", DIVMOD);
    let file = file.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["run", file, "divmod", "--args", "[1, 0]"], "error: integer division by zero"),
        (&["run", file, "divmod", "--args", "[1]"], "error: invalid argument: `divmod` takes 2 argument(s), got 1"),
        (&["run", file, "divmod", "--args", "[1, 2.5]"], "error: invalid argument: argument `b` of type i64: cannot read 2.5 as i64"),
        (&["run", file, "divmod", "--args", "[1, "], "error: arguments are not JSON: "),
        (&["run", file, "nope"], "error: invalid argument: no function `nope` in module `divmod` (it has: divmod, half, nothing)"),
    ];
    for (args, message) in cases {
        let o = vr(args);
        assert_eq!(o.status.code(), Some(1), "vr {args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with(message),
            "vr {args:?}: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn test_reports_each_failure_and_the_totals() {
    let o = vr(&["test", "examples", "--backend", "interp"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), "3 passed, 0 failed\n");

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-suite");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("sub/wrong.vrir"),
        format!("; expected: hand\n; run: half(3.0) == 2.0\n; run: half(1.0) == 0.5\n{DIVMOD}"),
    )
    .unwrap();
    std::fs::write(dir.join("empty.vrir"), DIVMOD).unwrap();
    std::fs::write(dir.join("ignored.txt"), "not a test").unwrap();
    let o = vr(&["test", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], format!("FAIL {}:1: file: no run lines (expected `; run:`, `; error:`, `; verify-error:` or `; parse-error:`)", dir.join("empty.vrir").display()));
    assert_eq!(
        lines[1],
        format!(
            "FAIL {}:2: run half(3.0): expected 2.0, got 1.5",
            dir.join("sub/wrong.vrir").display()
        )
    );
    assert_eq!(lines[2], "1 passed, 2 failed");
}
