//! The LLVM CPU backend against hand-computed results (and, where noted, NumPy).

use velociraptor::cpu;
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};
use velociraptor::{ErrorKind, VrError};

fn compile(src: &str) -> cpu::CompiledModule {
    let m = parse_module(src).expect("parses");
    cpu::compile(&m).unwrap_or_else(|e| panic!("compiles: {e}"))
}

fn run(src: &str, func: &str, args: Vec<Value>) -> Result<Vec<Value>, VrError> {
    compile(src).call(func, args)
}

fn i64v(v: i64) -> Value {
    Value::Scalar(Scalar::I64(v))
}
fn i32v(v: i32) -> Value {
    Value::Scalar(Scalar::I32(v))
}
fn f64v(v: f64) -> Value {
    Value::Scalar(Scalar::F64(v))
}
fn boolv(v: bool) -> Value {
    Value::Scalar(Scalar::Bool(v))
}

fn f64_array(dims: Vec<usize>, layout: Layout, logical: &[f64]) -> Array {
    let elems: Vec<Scalar> = logical.iter().map(|v| Scalar::F64(*v)).collect();
    Array::from_logical(ArrayType::new(ScalarType::F64, dims.len() as u32, layout), dims, &elems)
}

fn one(r: Result<Vec<Value>, VrError>) -> Value {
    let mut v = r.unwrap_or_else(|e| panic!("runs: {e}"));
    assert_eq!(v.len(), 1);
    v.remove(0)
}

#[test]
fn scalar_arithmetic() {
    let src = "(module m :index-base 0
      (function f ((a i64) (b i64)) (i64)
        (locals)
        (return (+ (* a b) (- a b)))))";
    assert!(one(run(src, "f", vec![i64v(6), i64v(4)])).same(&i64v(26)));
}
