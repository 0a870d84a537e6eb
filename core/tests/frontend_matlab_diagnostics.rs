//! The MATLAB front end's refusals and errors: constructs it does not compile are
//! `unsupported` at compile time naming the construct, the function and the line; run-time
//! checks name the function and line; `vr run`/`vr dump` take `.m` files; token soup never
//! panics the parser or the engine.

use proptest::prelude::*;
use serde_json::json;
use std::path::PathBuf;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::matlab;
use velociraptor::ErrorKind;

fn compile_err(src: &str, func: &str, args: serde_json::Value) -> velociraptor::VrError {
    match matlab::compile_for_json(src, func, args.as_array().unwrap()) {
        Ok(_) => panic!("`{func}` compiled"),
        Err(e) => e,
    }
}

#[test]
fn unsupported_constructs_are_named_with_their_line() {
    let cases: Vec<(&str, &str)> = vec![
        ("function y = f(x)\n  y = x;\n  disp(y);\nend\n", "`disp`"),
        ("function y = f(x)\n  y = x\nend\n", "display of `y`"),
        ("function y = f(x)\n  y = rand(3);\nend\n", "`rand`"),
        ("function y = f(x)\n  s.a = 1;\n  y = x;\nend\n", "structure field"),
        ("function y = f(x)\n  c = {1, 2};\n  y = x;\nend\n", "cell array"),
        ("function y = f(x)\n  g = @(t) t + 1;\n  y = x;\nend\n", "anonymous function"),
        ("function y = f(x)\n  global G\n  y = x;\nend\n", "`global`"),
        ("function y = f(x)\n  y = x;\n  y(2) = [];\nend\n", "deleting elements"),
        ("function y = f(x)\n  y = 0;\n  parfor i = 1:3\n    y = y + i;\n  end\nend\n", "parfor"),
        ("function y = f(x)\n  y = x;\n  gpu_begin();\n  y = 2 * y;\nend\n", "gpu_begin"),
        // int8 ... uint32 compile; what they do not compile is named.
        ("function y = f(x)\n  y = sum(int8(x));\nend\n", "`sum`"),
        ("function y = f(x)\n  y = int8(x) .^ 2;\nend\n", "`.^`"),
        ("function y = f(x)\n  y = int8(x) + uint16(x);\nend\n", "uint16"),
        ("function y = f(x)\n  y = int8(x) + int32(x);\nend\n", "int32"),
        ("function y = f(x)\n  y = x;\n  if x > 0\n    y = int8(x);\n  end\nend\n", "class"),
        ("function y = f(x)\n  y = uint64(x);\nend\n", "`uint64`"),
        ("function y = f(x)\n  y = int64(x) + int32(x);\nend\n", "int64 operand"),
        ("function y = f(x)\n  y = sum(int64(x));\nend\n", "`sum`"),
        ("function y = f(x)\n  y = int64(x) .^ 2;\nend\n", "`.^`"),
        ("function y = f(x)\n  y = 0;\n  y = int64(x);\nend\n", "assignment to `y`"),
        ("function y = f(x)\n  try\n    y = x;\n  catch\n    y = 0;\n  end\nend\n", "`try`"),
    ];
    for (src, construct) in cases {
        let e = compile_err(src, "f", json!([1.0]));
        assert_eq!(e.kind, ErrorKind::Unsupported, "{src}: {e}");
        assert!(e.message.contains(construct), "{src}: `{}` does not name {construct}", e.message);
        assert!(e.line.is_some() && e.message.contains("(line "), "{src}: {e} names no line");
        assert_eq!(e.function.as_deref(), Some("f"), "{src}: {e}");
    }
}

#[test]
fn parse_errors_name_the_line() {
    let e = compile_err("function y = f(x)\n  y = (x + ;\nend\n", "f", json!([1.0]));
    assert_eq!(e.kind, ErrorKind::Parse);
    assert!(e.message.contains("line 2"), "{e}");
    let e = compile_err("x = 1;\n", "f", json!([]));
    assert!(e.message.contains("script"), "{e}");
    let e = compile_err("function y = f(x)\n  y = x;\nend\n", "g", json!([]));
    assert!(e.message.contains("no function `g`"), "{e}");
}

#[test]
fn run_time_errors_name_function_line_and_kind() {
    let src = "function y = f(x, i)\n  y = x(i);\nend\nfunction y = g(x)\n  y = sqrt(x);\nend\n";
    for b in Backend::available() {
        let (m, v) = matlab::compile_for_json(src, "f", &[json!([1.0, 2.0]), json!(1.5)]).unwrap();
        let e = matlab::explain_error_in(&m, backend::execute(b, &m, "f", v).unwrap_err());
        assert_eq!(e.kind, ErrorKind::Runtime, "{b}: {e}");
        assert!(e.message.contains("subscripts must be either integers"), "{b}: {e}");
        assert_eq!((e.function.as_deref(), e.line), (Some("f"), Some(2)), "{b}: {e}");
        let (m, v) = matlab::compile_for_json(src, "f", &[json!([1.0, 2.0]), json!(3.0)]).unwrap();
        let e = matlab::explain_error_in(&m, backend::execute(b, &m, "f", v).unwrap_err());
        assert_eq!(e.kind, ErrorKind::OutOfBounds, "{b}: {e}");
        assert_eq!((e.variable.as_deref(), e.index, e.bound), (Some("x"), Some(3), Some(2)), "{b}: {e}");
        let (m, v) = matlab::compile_for_json(src, "g", &[json!([4.0, -1.0])]).unwrap();
        let e = matlab::explain_error_in(&m, backend::execute(b, &m, "g", v).unwrap_err());
        assert_eq!(e.kind, ErrorKind::Unsupported, "{b}: {e}");
        assert!(e.message.contains("complex"), "{b}: {e}");
        assert_eq!((e.function.as_deref(), e.line), (Some("g"), Some(5)), "{b}: {e}");
    }
}

fn vr(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_vr")).args(args).current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")).output().expect("vr runs");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn vr_runs_and_dumps_m_files() {
    let cases = "core/tests/frontend_matlab/cases.m";
    let (code, stdout, stderr) = vr(&["run", cases, "fib", "--args", "[10]", "--backend", "interp"]);
    assert_eq!((code, stdout.trim()), (0, "55.0"), "{stderr}");
    let (code, stdout, stderr) = vr(&["run", cases, "sum_prod", "--args", "[[1, 2, 3]]", "--backend", "cpu"]);
    assert_eq!((code, stdout.trim()), (0, "[6.0,6.0]"), "{stderr}");
    let (code, stdout, stderr) = vr(&["dump", cases, "sumsq", "--args", "[[1.0, 2.0]]"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("(module sumsq :index-base 1\n  (function sumsq ((x f64[2,col])) (f64)"), "{stdout}");
    let (code, _, stderr) = vr(&["run", cases, "bad_index", "--args", "[[1, 2], 3]"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("out of bounds"), "{stderr}");
}

const WORDS: [&str; 40] = [
    "function", "end", "if", "else", "elseif", "for", "parfor", "while", "switch", "case", "otherwise", "break", "continue", "return", "x", "y", "f",
    "(", ")", "[", "]", "{", "}", "=", "==", "+", "-", ".*", "*", "'", ".'", ":", ";", ",", "\n", "1", "2.5", "3i", "end", "@",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(0usize..WORDS.len(), 0..40)) {
        let body: Vec<&str> = tokens.iter().map(|&k| WORDS[k]).collect();
        let src = format!("function y = f(x)\n{}\nend\n", body.join(" "));
        if let Ok((m, _)) = matlab::compile_for_json(&src, "f", &[json!([1.0, 2.0])]) {
            velociraptor::vrir::verify::verify_module(&m).unwrap();
        }
    }
}
