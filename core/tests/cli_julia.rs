//! `vr run FILE.jl` and `vr dump FILE.jl`: the Julia front end from the command line, on
//! a script file with other top-level code, and on the Julia versions of the benchmark
//! kernels (bench/julia), whose results must be the ones the VRIR kernels' conformance
//! directives state (computed with NumPy; vr-bench-julia also checks them against the C
//! references at full size).

use serde_json::Value as Json;
use std::path::PathBuf;
use std::process::{Command, Output};

const CASES: &str = "core/tests/frontend_julia/cases.jl";

fn vr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vr")).args(args).current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")).output().expect("vr runs")
}

fn out(o: &Output) -> (i32, String, String) {
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn run_compiles_and_runs_a_julia_function_of_a_script() {
    let (code, stdout, stderr) = out(&vr(&["run", CASES, "fib", "--args", "[20]", "--backend", "cpu"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "6765");
    let (code, stdout, stderr) = out(&vr(&["run", CASES, "arith", "--args", "[7, 2]"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "[9,5,14,3.5]");
    let (code, stdout, stderr) = out(&vr(&["run", CASES, "scale!", "--args", "[[1.0, 2.0], 3.0]"]));
    assert_eq!((code, stdout.trim()), (0, "null"), "{stderr}");
    let (code, stdout, stderr) = out(&vr(&["run", CASES, "table", "--args", "[2, 2]", "--backend", "cpu-par"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), r#"{"data":[[11,21],[12,22]],"dtype":"i64","shape":[2,2]}"#);
}

/// A script as Julia users write them, with top-level code around the function.
const SCRIPT: &str = r#"using LinearAlgebra
using Test
include("helpers.jl")

const WEIGHT = 3

"""
    weighted_sum(x, n)

WEIGHT times the sum of the first `n` elements of `x`.
"""
function weighted_sum(x::Vector{Float64}, n)
    s = 0.0
    for i in 1:n
        s += WEIGHT * x[i]
    end
    return s
end

uses_helper(x) = helper(x) + 1

@time weighted_sum([1.0, 2.0], 2)
@test weighted_sum([1.0], 1) == 3.0
println("loaded")
"#;

/// `include("helpers.jl")` is stepped over like the other top-level statements: the
/// included file is not read, so its functions are not the script's (Julia would
/// define them). `using`, `@time`, `@test` and `println` are stepped over; `const` is
/// kept; the docstring is a string statement and stepped over too.
#[test]
fn run_steps_over_using_include_and_macro_calls_of_a_script() {
    let dir = std::env::temp_dir().join(format!("vr_cli_julia_script_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.jl");
    std::fs::write(&script, SCRIPT).unwrap();
    std::fs::write(dir.join("helpers.jl"), "helper(x) = 2x\n").unwrap();
    let script = script.to_str().unwrap();
    let run = |func: &str, args: &str, backend: &str| out(&vr(&["run", script, func, "--args", args, "--backend", backend]));
    for backend in ["interp", "cpu"] {
        // WEIGHT * (1.0 + 2.0) = 9.0: the first n = 2 elements only.
        let (code, stdout, stderr) = run("weighted_sum", "[[1.0, 2.0, 4.5], 2]", backend);
        assert_eq!((code, stdout.trim()), (0, "9.0"), "{backend}: {stderr}");
    }
    // helpers.jl was not read: a call of its function is a named compile-time error,
    // and its function cannot be run.
    let (code, _, stderr) = run("uses_helper", "[1]", "interp");
    assert_eq!(code, 1);
    assert!(stderr.contains("in uses_helper (line 20)") && stderr.contains("call to `helper`"), "{stderr}");
    let (code, _, stderr) = run("helper", "[1]", "interp");
    assert_eq!(code, 1);
    assert!(stderr.contains("no function `helper`") && stderr.contains("it defines: uses_helper, weighted_sum"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_reports_julia_errors_with_function_and_line() {
    let (code, _, stderr) = out(&vr(&["run", CASES, "bounds", "--args", "[[1.0, 2.0], 5]"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("in bounds (line 253)") && stderr.contains("BoundsError") && stderr.contains("index [5]"), "{stderr}");
    let (code, _, stderr) = out(&vr(&["run", CASES, "int_ops", "--args", "[1, 0]", "--backend", "cpu"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("DivideError"), "{stderr}");
    let (code, _, stderr) = out(&vr(&["run", CASES, "no_such_function", "--args", "[]"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("no function `no_such_function`"), "{stderr}");
}

#[test]
fn dump_prints_the_vrir() {
    let (code, stdout, stderr) = out(&vr(&["dump", CASES, "sumsq", "--args", "[[1.0, 2.0]]"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("(module sumsq :index-base 1\n  (function sumsq ((x f64[1,col])) (f64)"), "{stdout}");
    let (code, stdout, _) = out(&vr(&["dump", CASES, "sumsq", "--args", "[[1.0, 2.0]]", "--json"]));
    assert_eq!(code, 0);
    assert!(stdout.trim_start().starts_with('{'), "{stdout}");
}

/// Flattened numbers of a result as `vr run` prints it (arrays' data, in order).
fn numbers(j: &Json, out: &mut Vec<f64>) {
    match j {
        Json::Object(m) if m.contains_key("data") => numbers(&m["data"], out),
        Json::Array(items) => items.iter().for_each(|x| numbers(x, out)),
        Json::Number(n) => out.push(n.as_f64().unwrap()),
        other => panic!("unexpected result {other}"),
    }
}

#[test]
fn julia_bench_kernels_give_the_reference_results_on_every_backend() {
    let kernels = ["arc_distance", "black_scholes", "growcut", "julia_set", "matmul_loops", "nbody1d", "rosen_der", "stencil5"];
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for k in kernels {
        let vrir = std::fs::read_to_string(root.join(format!("bench/kernels/{k}.vrir"))).unwrap();
        for line in vrir.lines().filter_map(|l| l.strip_prefix("; run: check(")) {
            let split = line.find(") ~= ").or_else(|| line.find(") == ")).expect("a run directive");
            let args = format!("[{}]", &line[..split]);
            let want: Json = serde_json::from_str(&format!("[{}]", &line[split + 5..])).unwrap();
            let mut expected = Vec::new();
            numbers(&want, &mut expected);
            for backend in ["interp", "cpu", "cpu-par"] {
                let (code, stdout, stderr) = out(&vr(&["run", &format!("bench/julia/{k}.jl"), "check", "--args", &args, "--backend", backend]));
                assert_eq!(code, 0, "{k} on {backend}: {stderr}");
                let mut got = Vec::new();
                numbers(&serde_json::from_str(&stdout).unwrap(), &mut got);
                assert_eq!(got.len(), expected.len(), "{k} on {backend}: {stdout}");
                for (g, w) in got.iter().zip(&expected) {
                    assert!(g == w || (g - w).abs() <= 1e-12 * g.abs().max(w.abs()), "{k} on {backend}: {g} vs {w}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 24, "{checked}");
}
