//! Functions with several results: the engine's results marker (`.vr_results(a, b)` in
//! R source, written by Velociraptor itself for outlined sections and list results)
//! lowers to one VRIR return of several values, joined per position across returns.
//! Expected values are hand-computed.

use serde_json::json;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::ErrorKind;

fn run(src: &str, args: serde_json::Value, backend: Backend) -> velociraptor::VrResult<Vec<Value>> {
    let items = args.as_array().expect("an argument list").clone();
    let (m, values) = r::compile_for_json(src, "f", &items)?;
    backend::execute(backend, &m, "f", values)
}

fn f64s(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(Scalar::F64(x)) => vec![*x],
        Value::Scalar(Scalar::I32(x)) => vec![*x as f64],
        Value::Array(a) => a
            .elements()
            .iter()
            .map(|x| x.as_f64().expect("real"))
            .collect(),
        other => panic!("not numeric: {other:?}"),
    }
}

#[test]
fn several_results_leave_in_the_order_written() {
    let src = "f <- function(x) {\n  s <- 0\n  m <- -Inf\n  for (v in x) {\n    s <- s + v\n    if (v > m) m <- v\n  }\n  .vr_results(s, m, length(x), x * 2)\n}";
    for b in Backend::available() {
        let out =
            run(src, json!([[1.5, 4.0, -2.0]]), b).unwrap_or_else(|e| panic!("{}: {e}", b.name()));
        assert_eq!(out.len(), 4, "{}", b.name());
        assert_eq!(f64s(&out[0]), vec![3.5], "{}", b.name());
        assert_eq!(f64s(&out[1]), vec![4.0], "{}", b.name());
        assert_eq!(f64s(&out[2]), vec![3.0], "{}", b.name());
        assert_eq!(f64s(&out[3]), vec![3.0, 8.0, -4.0], "{}", b.name());
    }
}

#[test]
fn results_of_several_returns_join_per_position() {
    // The first result is an integer on one path and a double on the other: double.
    let src = "f <- function(x) {\n  if (x > 0) .vr_results(1L, x)\n  .vr_results(2.5, -x)\n}";
    for b in Backend::available() {
        let out = run(src, json!([3.0]), b).unwrap();
        assert!(
            out[0].same(&Value::Scalar(Scalar::F64(1.0))),
            "{}: {:?}",
            b.name(),
            out[0]
        );
        assert!(
            out[1].same(&Value::Scalar(Scalar::F64(3.0))),
            "{}: {:?}",
            b.name(),
            out[1]
        );
        let out = run(src, json!([-1.0]), b).unwrap();
        assert_eq!(f64s(&out[0]), vec![2.5]);
        assert_eq!(f64s(&out[1]), vec![1.0]);
    }
}

#[test]
fn a_different_number_of_results_is_refused() {
    let src = "f <- function(x) {\n  if (x > 0) .vr_results(1, x)\n  x\n}";
    let e = run(src, json!([1.0]), Backend::Interp)
        .expect_err("one path returns 2 values, the other 1");
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(
        e.message.contains("2 values") && e.message.contains("line 3"),
        "{e}"
    );
}

#[test]
fn a_function_of_several_results_is_no_value() {
    let src = "g <- function(x) .vr_results(x, x)\nf <- function(x) g(x) + 1";
    let e = run(src, json!([1.0]), Backend::Interp).expect_err("g has two results");
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(
        e.message.contains("function `g`") && e.message.contains("2 values"),
        "{e}"
    );
    let src = "f <- function(x) {\n  y <- .vr_results(x)\n  y\n}";
    let e = run(src, json!([1.0]), Backend::Interp).expect_err("the marker is a statement");
    assert!(e.message.contains(".vr_results"), "{e}");
}
