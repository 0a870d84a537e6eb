//! Outlined sections compiled through the R front end (`name <- .vr_section_of("f", k)`
//! in the source, as the R adapter writes it; frontend/sections.rs): a section is a
//! function of its inputs returning its outputs, compiled and run on every backend this
//! build has, with errors at the user's lines. Expected values are hand-computed.

use serde_json::json;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::ErrorKind;

fn run(src: &str, entry: &str, args: serde_json::Value, backend: Backend) -> velociraptor::VrResult<Vec<Value>> {
    let items = args.as_array().expect("an argument list").clone();
    let (m, values) = r::compile_for_json(src, entry, &items)?;
    backend::execute(backend, &m, entry, values).map_err(r::explain_error)
}

fn f64s(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(Scalar::F64(x)) => vec![*x],
        Value::Scalar(Scalar::I32(x)) => vec![*x as f64],
        Value::Array(a) => a.elements().iter().map(|x| x.as_f64().expect("real")).collect(),
        other => panic!("not numeric: {other:?}"),
    }
}

const SUMSQ: &str =
    "f <- function(x, k) {\n  cat(\"start\\n\")\n  s <- 0\n  for (i in 1:k) s <- s + x[i] * x[i]\n  cat(s)\n  s\n}\nf__sec_1 <- .vr_section_of(\"f\", 1L)\n";

#[test]
fn a_section_is_a_function_of_its_inputs() {
    // Inputs in order of first use: k (in `1:k`), then x.
    for b in Backend::available() {
        let out = run(SUMSQ, "f__sec_1", json!([{"dtype": "i32", "data": 3}, [1.5, -2.0, 3.25]]), b).unwrap_or_else(|e| panic!("{}: {e}", b.name()));
        // 2.25 + 4 + 10.5625
        assert_eq!(out.len(), 1);
        assert_eq!(f64s(&out[0]), vec![16.8125], "{}", b.name());
    }
}

#[test]
fn a_read_past_the_end_in_a_section_falls_back_naming_the_users_line() {
    // R reads NA there: compiled code cannot give that answer, so the section says so
    // (kind unsupported) and the R adapter runs it in R.
    for b in Backend::available() {
        let e = run(SUMSQ, "f__sec_1", json!([{"dtype": "i32", "data": 4}, [1.5, -2.0, 3.25]]), b).expect_err("x[4] is past the end");
        assert_eq!(e.kind, ErrorKind::Unsupported, "{}: {e}", b.name());
        assert_eq!(e.line, Some(4), "{}: {e}", b.name());
        assert!(e.message.contains("x[4]: index 4 is beyond length 3"), "{}: {e}", b.name());
    }
}

#[test]
fn an_error_in_a_section_names_the_users_line() {
    // R: `m[3, 1]` of a 2 x 2 matrix is "subscript out of bounds".
    let src = "g <- function(m, k) {\n  cat(1)\n  s <- 0\n  for (i in 1:k) s <- s + m[i, 1]\n  s\n}\ng__sec_1 <- .vr_section_of(\"g\", 1L)\n";
    let m = json!([[1.0, 3.0], [2.0, 4.0]]);
    for b in Backend::available() {
        let e = run(src, "g__sec_1", json!([{"dtype": "i32", "data": 3}, m]), b).expect_err("m[3, 1] is out of bounds");
        assert_eq!(e.kind, ErrorKind::OutOfBounds, "{}: {e}", b.name());
        assert_eq!(e.line, Some(4), "{}: {e}", b.name());
        assert_eq!(e.index, Some(3), "{}: {e}", b.name());
    }
}

#[test]
fn several_outputs_are_several_results_in_order_of_assignment() {
    let src = "f <- function(x) {\n  print(1)\n  s <- 0\n  p <- 1\n  for (v in x) {\n    s <- s + v\n    p <- p * v\n  }\n  print(2)\n  c(s, p)\n}\nf__sec_1 <- .vr_section_of(\"f\", 1L)\n";
    for b in Backend::available() {
        let out = run(src, "f__sec_1", json!([[2.0, 0.5, 3.0]]), b).unwrap_or_else(|e| panic!("{}: {e}", b.name()));
        assert_eq!(out.len(), 2, "{}", b.name());
        assert_eq!(f64s(&out[0]), vec![5.5], "{}", b.name());
        assert_eq!(f64s(&out[1]), vec![3.0], "{}", b.name());
    }
}

#[test]
fn a_section_inside_a_loop_that_prints_takes_and_gives_its_state() {
    // Section 1 is the inner loop: inputs x, s, it; output s.
    let src = "f <- function(x, iters) {\n  s <- 0\n  for (it in 1:iters) {\n    cat(it)\n    for (i in seq_along(x)) s <- s + x[i] * it\n  }\n  s\n}\nf__sec_1 <- .vr_section_of(\"f\", 1L)\n";
    for b in Backend::available() {
        let out = run(src, "f__sec_1", json!([[1.0, 2.0], 10.0, {"dtype": "i32", "data": 3}]), b).unwrap_or_else(|e| panic!("{}: {e}", b.name()));
        // 10 + (1 + 2) * 3
        assert_eq!(f64s(&out[0]), vec![19.0], "{}", b.name());
    }
}

#[test]
fn a_directive_for_a_missing_section_is_an_error() {
    let src = SUMSQ.replace("1L)", "7L)");
    let e = r::compile(&src, "f__sec_1", vec![]).expect_err("f has one section");
    assert_eq!(e.kind, ErrorKind::InvalidArgument, "{e}");
    assert!(e.message.contains("no section 7"), "{e}");
}
