//! Unit tests of the interpreter, written as text-form modules. Expected values are
//! computed by hand or with NumPy/Octave (noted where they come from).

use super::run;
use crate::runtime::error::{ErrorKind, VrError};
use crate::runtime::value::{Array, Scalar, Value};
use crate::vrir::text::parse_module;
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};
use serde_json::json;

/// Parse `src` and run `func` on JSON arguments read against the parameter types.
fn call(src: &str, func: &str, args: serde_json::Value) -> Result<Vec<Value>, VrError> {
    let m = parse_module(src).unwrap_or_else(|e| panic!("test module does not parse: {e}"));
    let f = m.function(func).expect("function exists");
    let list = args.as_array().expect("arguments are a JSON list").clone();
    let vals = list.iter().zip(&f.params).map(|(j, p)| Value::from_json(j, &p.ty).expect("argument")).collect();
    run(&m, func, vals)
}

/// The results as JSON (the form `vr run` prints).
fn ok(src: &str, func: &str, args: serde_json::Value) -> serde_json::Value {
    match call(src, func, args) {
        Ok(vals) if vals.len() == 1 => vals[0].to_json(),
        Ok(vals) => serde_json::Value::Array(vals.iter().map(Value::to_json).collect()),
        Err(e) => panic!("unexpected error: {e} ({e:?})"),
    }
}

fn err(src: &str, func: &str, args: serde_json::Value) -> VrError {
    match call(src, func, args) {
        Ok(v) => panic!("expected an error, got {:?}", v.iter().map(Value::to_json).collect::<Vec<_>>()),
        Err(e) => e,
    }
}

#[test]
fn dot_product() {
    let src = "(module dot :index-base 0
  (function dot ((x f64[1,row]) (y f64[1,row])) (f64)
    (locals (i i64) (s f64))
    (set s 0.0)
    (for (i) (range 0 (- (dim x 0) 1))
      (block
        (set s (+ s (* (index x i) (index y i))))))
    (return s)))";
    assert_eq!(ok(src, "dot", json!([[1.0, 2.0], [3.0, 4.0]])), json!(11.0));
}
