//! Unit tests of the interpreter, written as text-form modules. Expected values are
//! by hand, or from NumPy/Octave where noted.

use super::run;
use crate::runtime::error::{ErrorKind, VrError};
use crate::runtime::value::{Array, Value};
use crate::vrir::text::parse_module;
use crate::vrir::types::{ArrayType, Layout, ScalarType};
use serde_json::{json, Value as Json};

/// A module of one function `f` with the given parameter list, result list, locals and
/// body (all in text form), indexed from `base`.
fn prog(base: u8, params: &str, results: &str, locals: &str, body: &str) -> String {
    format!("(module t :index-base {base}\n (function f ({params}) ({results})\n (locals {locals})\n {body}))")
}

/// Parse `src` and run `func` on JSON arguments read against the parameter types.
fn call_values(src: &str, func: &str, args: Vec<Value>) -> Result<Vec<Value>, VrError> {
    let m = parse_module(src).unwrap_or_else(|e| panic!("test module does not parse: {e}\n{src}"));
    run(&m, func, args)
}

fn json_args(src: &str, func: &str, args: &Json) -> Vec<Value> {
    let m = parse_module(src).unwrap_or_else(|e| panic!("test module does not parse: {e}\n{src}"));
    let f = m.function(func).expect("function exists");
    let list = args.as_array().expect("arguments are a JSON list");
    list.iter()
        .zip(&f.params)
        .map(|(j, p)| Value::from_json(j, &p.ty).expect("argument"))
        .collect()
}

fn call(src: &str, func: &str, args: Json) -> Result<Vec<Value>, VrError> {
    let vals = json_args(src, func, &args);
    call_values(src, func, vals)
}

/// A value as JSON, arrays as plain nested lists (logical order).
fn plain(v: &Value) -> Json {
    match v {
        Value::Array(a) => a.to_json()["data"].clone(),
        Value::Tuple(items) => Json::Array(items.iter().map(plain).collect()),
        other => other.to_json(),
    }
}

/// The results as JSON: one value, or a list of several.
fn ok(src: &str, args: Json) -> Json {
    match call(src, "f", args) {
        Ok(vals) if vals.len() == 1 => plain(&vals[0]),
        Ok(vals) => Json::Array(vals.iter().map(plain).collect()),
        Err(e) => panic!("unexpected error: {e} ({e:?})"),
    }
}

fn err(src: &str, args: Json) -> VrError {
    match call(src, "f", args) {
        Ok(v) => panic!(
            "expected an error, got {:?}",
            v.iter().map(Value::to_json).collect::<Vec<_>>()
        ),
        Err(e) => e,
    }
}

/// Evaluate one expression of result type `ty` with no arguments.
fn expr(ty: &str, e: &str) -> Json {
    ok(&prog(0, "", ty, "", &format!("(return {e})")), json!([]))
}

fn expr_err(ty: &str, e: &str) -> VrError {
    err(&prog(0, "", ty, "", &format!("(return {e})")), json!([]))
}

fn f64_array(layout: Layout, rows: &Json) -> Value {
    let nd = if rows
        .as_array()
        .is_some_and(|r| r.first().is_some_and(|x| x.is_array()))
    {
        2
    } else {
        1
    };
    Value::Array(
        Array::from_json(rows, ArrayType::new(ScalarType::F64, nd, layout)).expect("array"),
    )
}

// ---------------------------------------------------------------- scalar arithmetic

#[test]
fn dot_product_loop() {
    let src = prog(
        0,
        "(x f64[1,row]) (y f64[1,row])",
        "f64",
        "(i i64) (s f64)",
        "(set s 0.0)
         (for (i) (range 0 (- (dim x 0) 1)) (block (set s (+ s (* (index x i) (index y i))))))
         (return s)",
    );
    assert_eq!(ok(&src, json!([[1.0, 2.0], [3.0, 4.0]])), json!(11.0));
}

#[test]
fn integers_wrap_on_overflow() {
    assert_eq!(
        expr("i32", "(+ 2147483647:i32 1:i32)"),
        json!(-2147483648i64)
    );
    assert_eq!(expr("i64", "(* 9223372036854775807 2)"), json!(-2));
    assert_eq!(expr("i32", "(neg -2147483648:i32)"), json!(-2147483648i64));
    assert_eq!(expr("i32", "(abs -2147483648:i32)"), json!(-2147483648i64));
    // NumPy: np.int64(3)**np.int64(41)
    assert_eq!(expr("i64", "(pow 3 41)"), json!(-420491770248316829i64));
}

#[test]
fn integer_division_family() {
    // Octave: mod(-7,3) = 2, rem(-7,3) = -1, idivide(-7, 2, "floor") = -4.
    assert_eq!(expr("i64", "(/ -7 2)"), json!(-3));
    assert_eq!(expr("i64", "(idiv -7 2)"), json!(-4));
    assert_eq!(expr("i64", "(mod -7 3)"), json!(2));
    assert_eq!(expr("i64", "(rem -7 3)"), json!(-1));
    assert_eq!(expr("i64", "(mod 7 -3)"), json!(-2));
    assert_eq!(expr("i64", "(idiv 7 -2)"), json!(-4));
    assert_eq!(expr("i64", "(idiv 6 3)"), json!(2));
    assert_eq!(expr("i32", "(mod -6:i32 3:i32)"), json!(0));
}

#[test]
fn integer_division_by_zero_is_an_error() {
    for e in ["(/ 1 0)", "(idiv 1 0)", "(mod 1 0)", "(rem 1 0)"] {
        assert_eq!(expr_err("i64", e).kind, ErrorKind::DivisionByZero, "{e}");
    }
    assert_eq!(
        expr_err("i32", "(/ 1:i32 0:i32)").kind,
        ErrorKind::DivisionByZero
    );
}

#[test]
fn min_divided_by_minus_one_wraps() {
    assert_eq!(expr("i64", "(/ -9223372036854775808 -1)"), json!(i64::MIN));
    assert_eq!(expr("i64", "(mod -9223372036854775808 -1)"), json!(0));
    assert_eq!(expr("i64", "(rem -9223372036854775808 -1)"), json!(0));
    assert_eq!(
        expr("i32", "(idiv -2147483648:i32 -1:i32)"),
        json!(-2147483648i64)
    );
}

#[test]
fn float_arithmetic_is_ieee() {
    assert_eq!(expr("f64", "(/ 1.0 0.0)"), json!("inf"));
    assert_eq!(expr("f64", "(/ 0.0 0.0)"), json!("nan"));
    // Python: -7.5 % 2 == 0.5, -7.5 // 2 == -4.0, np.fmod(-7.5, 2) == -1.5
    assert_eq!(expr("f64", "(mod -7.5 2.0)"), json!(0.5));
    assert_eq!(expr("f64", "(idiv -7.5 2.0)"), json!(-4.0));
    assert_eq!(expr("f64", "(rem -7.5 2.0)"), json!(-1.5));
    assert_eq!(expr("f32", "(+ 0.1:f32 0.2:f32)"), json!(0.3f32));
}

#[test]
fn comparisons_with_nan() {
    assert_eq!(expr("bool", "(< nan 1.0)"), json!(false));
    assert_eq!(expr("bool", "(>= nan nan)"), json!(false));
    assert_eq!(expr("bool", "(== nan nan)"), json!(false));
    assert_eq!(expr("bool", "(!= nan nan)"), json!(true));
    assert_eq!(
        expr("bool", "(== (c128 1.0 2.0) (c128 1.0 2.0))"),
        json!(true)
    );
    assert_eq!(expr("bool", "(!= true false)"), json!(true));
}

#[test]
fn casts_truncate_and_reject_invalid_values() {
    assert_eq!(expr("i32", "(cast i32 3.9)"), json!(3));
    assert_eq!(expr("i32", "(cast i32 -3.9)"), json!(-3));
    assert_eq!(
        expr("i64", "(cast i64 -9.223372036854775808e18)"),
        json!(i64::MIN)
    );
    assert_eq!(expr("i32", "(cast i32 1099511627777)"), json!(1)); // 2^40 + 1 wraps
    assert_eq!(expr("bool", "(cast bool 0.5)"), json!(true));
    assert_eq!(expr("bool", "(cast bool 0)"), json!(false));
    assert_eq!(expr("f64", "(cast f64 true)"), json!(1.0));
    // np.float32(16777217) == 16777216: integer to float rounds to nearest even.
    assert_eq!(expr("f32", "(cast f32 16777217)"), json!(16777216.0));
    assert_eq!(expr("c128", "(cast c128 2)"), json!({"re": 2.0, "im": 0.0}));
    for e in [
        "(cast i32 nan)",
        "(cast i32 3e9)",
        "(cast i64 inf)",
        "(cast i64 9.3e18)",
    ] {
        let x = expr_err(if e.contains("i32") { "i32" } else { "i64" }, e);
        assert_eq!(x.kind, ErrorKind::Runtime, "{e}");
        assert!(x.message.contains("invalid cast"), "{}", x.message);
    }
}

#[test]
fn complex_arithmetic_and_functions() {
    assert_eq!(
        expr("c128", "(* (c128 1.0 2.0) (c128 3.0 -1.0))"),
        json!({"re": 5.0, "im": 5.0})
    );
    // NumPy: (1+2j)/(3-4j) == (-0.2+0.4j)
    let q = expr("c128", "(/ (c128 1.0 2.0) (c128 3.0 -4.0))");
    assert!(
        (q["re"].as_f64().unwrap() + 0.2).abs() < 1e-15
            && (q["im"].as_f64().unwrap() - 0.4).abs() < 1e-15
    );
    assert_eq!(expr("f64", "(abs (c128 3.0 4.0))"), json!(5.0));
    assert_eq!(
        expr("c128", "(sqrt (c128 -4.0 0.0))"),
        json!({"re": 0.0, "im": 2.0})
    );
    assert_eq!(expr("f64", "(imag (c128 1.0 -2.0))"), json!(-2.0));
    assert_eq!(expr("f32", "(real (c64 1.5 -2.0))"), json!(1.5));
    assert_eq!(
        expr("c128", "(conj (c128 1.0 -2.0))"),
        json!({"re": 1.0, "im": 2.0})
    );
    assert_eq!(
        expr("c128", "(complex 1.0 2.0)"),
        json!({"re": 1.0, "im": 2.0})
    );
    assert_eq!(expr("f64", "(imag 3.0)"), json!(0.0));
}

#[test]
fn rounding_functions() {
    // NumPy: np.rint([0.5, 1.5, 2.5, -0.5, -2.5]) == [0, 2, 2, -0, -2]
    assert_eq!(expr("f64", "(round 2.5)"), json!(2.0));
    assert_eq!(expr("f64", "(round 1.5)"), json!(2.0));
    assert_eq!(expr("f64", "(round -2.5)"), json!(-2.0));
    assert_eq!(expr("f64", "(floor -1.5)"), json!(-2.0));
    assert_eq!(expr("f64", "(ceil -1.5)"), json!(-1.0));
    assert_eq!(expr("f64", "(trunc -1.5)"), json!(-1.0));
    assert_eq!(expr("i64", "(floor 7)"), json!(7));
}

#[test]
fn math_library_values() {
    assert_eq!(expr("f64", "(sqrt -1.0)"), json!("nan"));
    assert_eq!(expr("f64", "(log 0.0)"), json!("-inf"));
    assert_eq!(expr("f64", "(log10 1000.0)"), json!(3.0));
    assert_eq!(
        expr("f64", "(atan2 1.0 1.0)"),
        json!(std::f64::consts::FRAC_PI_4)
    );
    assert_eq!(
        expr("f64", "(pow 2.0 0.5)"),
        json!(std::f64::consts::SQRT_2)
    );
    assert_eq!(expr("bool", "(isnan nan)"), json!(true));
    assert_eq!(expr("bool", "(isinf -inf)"), json!(true));
    assert_eq!(expr("bool", "(isnan 3)"), json!(false));
    assert_eq!(expr("i64", "(pow -2 3)"), json!(-8));
    let e = expr_err("i64", "(pow 2 -1)");
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("negative integer exponent"));
}

#[test]
fn min_max_propagate_nan() {
    assert_eq!(expr("f64", "(min 1.0 nan)"), json!("nan"));
    assert_eq!(expr("f64", "(max nan 1.0)"), json!("nan"));
    assert_eq!(expr("f64", "(min 1.0 -2.0)"), json!(-2.0));
    assert_eq!(expr("i64", "(max 3 -2)"), json!(3));
}

#[test]
fn and_or_short_circuit_on_scalars() {
    // The right operand would be out of bounds: it must not be evaluated.
    let src = prog(
        0,
        "(a f64[1,row]) (i i64)",
        "bool bool",
        "",
        "(return (and (< i (dim a 0)) (> (index a i) 0.0))
                 (or (>= i (dim a 0)) (> (index a i) 0.0)))",
    );
    assert_eq!(ok(&src, json!([[1.0], 5])), json!([false, true]));
    assert_eq!(ok(&src, json!([[1.0], 0])), json!([true, true]));
}

#[test]
fn logical_operators_element_wise_on_arrays() {
    let src = prog(
        0,
        "(a bool[1,row]) (b bool[1,row])",
        "bool[1,row] bool[1,row] bool[1,row] bool[1,row]",
        "",
        "(return (and a b) (or false b) (and false b) (or true (not b)))",
    );
    // A scalar left operand that decides the result still yields an array when the
    // right operand is one.
    assert_eq!(
        ok(&src, json!([[true, true, false], [true, false, false]])),
        json!([
            [true, false, false],
            [true, false, false],
            [false, false, false],
            [true, true, true]
        ])
    );
}

// ---------------------------------------------------------------- array operations

#[test]
fn element_wise_with_scalar_broadcast() {
    let src = prog(
        0,
        "(a f64[2,row]) (b f64[2,row])",
        "f64[2,row] f64[2,row] bool[2,row]",
        "",
        "(return (+ a b) (- 10.0 a) (< a 2.5))",
    );
    assert_eq!(
        ok(
            &src,
            json!([[[1.0, 2.0], [3.0, 4.0]], [[10.0, 20.0], [30.0, 40.0]]])
        ),
        json!([
            [[11.0, 22.0], [33.0, 44.0]],
            [[9.0, 8.0], [7.0, 6.0]],
            [[true, true], [false, false]]
        ])
    );
}

#[test]
fn element_wise_shape_mismatch() {
    let src = prog(
        0,
        "(a f64[1,row]) (b f64[1,row])",
        "f64[1,row]",
        "",
        "(return (* a b) :line 7)",
    );
    let e = err(&src, json!([[1.0, 2.0], [1.0, 2.0, 3.0]]));
    assert_eq!(e.kind, ErrorKind::ShapeMismatch);
    assert_eq!(e.function.as_deref(), Some("f"));
    assert_eq!(e.line, Some(7));
}

#[test]
fn element_wise_result_takes_first_array_layout() {
    let src = prog(
        0,
        "(a f64[2,col]) (b f64[2,strided])",
        "f64[2,col] f64[2,row]",
        "",
        "(return (+ a b) (+ b a))",
    );
    let a = f64_array(Layout::Col, &json!([[1.0, 2.0], [3.0, 4.0]]));
    let b = f64_array(Layout::Row, &json!([[1.0, 1.0], [1.0, 1.0]]));
    let out = call_values(&src, "f", vec![a, b]).unwrap();
    let (Value::Array(x), Value::Array(y)) = (&out[0], &out[1]) else {
        panic!()
    };
    assert_eq!((x.ty.layout, y.ty.layout), (Layout::Col, Layout::Row));
    assert_eq!(x.strides, vec![1, 2]);
    assert_eq!(plain(&out[1]), json!([[2.0, 3.0], [4.0, 5.0]]));
}

#[test]
fn math_functions_apply_element_wise() {
    let src = prog(
        0,
        "(a f64[1,row]) (c c128[1,row])",
        "f64[1,row] f64[1,row] bool[1,row]",
        "",
        "(return (sqrt a) (abs c) (isnan (pow a 0.5)))",
    );
    assert_eq!(
        ok(
            &src,
            json!([[4.0, 9.0], [{"re": 3.0, "im": 4.0}, {"re": 0.0, "im": -2.0}]])
        ),
        json!([[2.0, 3.0], [5.0, 2.0], [false, false]])
    );
    let src = prog(0, "(a i64[1,row])", "i64[1,row]", "", "(return (max a 2))");
    assert_eq!(ok(&src, json!([[1, 5, 2]])), json!([2, 5, 2]));
}

#[test]
fn reductions_whole_and_axis() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64 f64 f64 f64 f64[1,row] f64[1,row] f64[1,row]",
        "",
        "(return (sum a) (prod a) (amin a) (amax a) (sum a :axis 0) (sum a :axis 1) (amax a :axis 0))",
    );
    // NumPy: a = [[1,2,3],[4,5,-6]]: sum 9, prod -720, min -6, max 5,
    // sum(axis=0) = [5,7,-3], sum(axis=1) = [6,3], max(axis=0) = [4,5,3]
    assert_eq!(
        ok(&src, json!([[[1.0, 2.0, 3.0], [4.0, 5.0, -6.0]]])),
        json!([
            9.0,
            -720.0,
            -6.0,
            5.0,
            [5.0, 7.0, -3.0],
            [6.0, 3.0],
            [4.0, 5.0, 3.0]
        ])
    );
    let src = prog(
        0,
        "(a i32[1,row])",
        "i32 i32",
        "",
        "(return (sum a :axis 0) (prod a))",
    );
    assert_eq!(ok(&src, json!([[]])), json!([0, 1]));
}

#[test]
fn reductions_accumulate_in_storage_order() {
    // Logical [[1e16, 1], [-1e16, 1]]. Column-major storage order: 1e16, -1e16, 1, 1 -> 2.
    // Row-major: 1e16, 1 (absorbed), -1e16, 1 -> 1.
    let col = prog(0, "(a f64[2,col])", "f64", "", "(return (sum a))");
    let row = prog(0, "(a f64[2,row])", "f64", "", "(return (sum a))");
    let data = json!([[[1e16, 1.0], [-1e16, 1.0]]]);
    assert_eq!(ok(&col, data.clone()), json!(2.0));
    assert_eq!(ok(&row, data), json!(1.0));
}

#[test]
fn empty_min_reduction_is_an_error() {
    let src = prog(0, "(a f64[1,row])", "f64", "", "(return (amin a))");
    let e = err(&src, json!([[]]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("empty reduction"));
    assert_eq!(
        ok(
            &prog(0, "(a f64[1,row])", "f64", "", "(return (amax a))"),
            json!([[nan_str(), 1.0]])
        ),
        json!("nan")
    );
}

fn nan_str() -> Json {
    json!("nan")
}

#[test]
fn matmul_all_rank_combinations() {
    let src = prog(
        0,
        "(a f64[2,row]) (b f64[2,row]) (v f64[1,row]) (w f64[1,row])",
        "f64[2,row] f64[1,row] f64[1,row] f64",
        "",
        "(return (matmul a b) (matmul a v) (matmul w b) (matmul v v))",
    );
    // NumPy: [[1,2,3],[4,5,6]] @ [[1,2],[3,4],[5,6]] = [[22,28],[49,64]];
    // a @ [1,0,-1] = [-2,-2]; [1,2] @ b... (w has 3 elements) [1,2,3] @ b = [22,28]; v.v = 2
    assert_eq!(
        ok(
            &src,
            json!([
                [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                [1.0, 0.0, -1.0],
                [1.0, 2.0, 3.0]
            ])
        ),
        json!([
            [[22.0, 28.0], [49.0, 64.0]],
            [-2.0, -2.0],
            [22.0, 28.0],
            2.0
        ])
    );
}

#[test]
fn matmul_inner_extent_mismatch() {
    let src = prog(
        0,
        "(a f64[2,row]) (b f64[2,row])",
        "f64[2,row]",
        "",
        "(return (matmul a b))",
    );
    assert_eq!(
        err(&src, json!([[[1.0, 2.0]], [[1.0, 2.0]]])).kind,
        ErrorKind::ShapeMismatch
    );
}

#[test]
fn matmul_keeps_column_layout_and_integers() {
    let src = prog(
        0,
        "(a i64[2,col]) (b i64[2,col])",
        "i64[2,col]",
        "",
        "(return (matmul a b))",
    );
    assert_eq!(
        ok(&src, json!([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])),
        json!([[19, 22], [43, 50]])
    );
}

#[test]
fn transpose_copy_and_sizes() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64[2,row] i64 i64 i64 i64",
        "",
        "(return (transpose a) (len a) (ndims a) (dim a 0) (dim a 1))",
    );
    assert_eq!(
        ok(&src, json!([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]])),
        json!([[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]], 6, 2, 2, 3])
    );
}

#[test]
fn copy_is_independent_and_set_aliases() {
    let src = prog(
        0,
        "(a f64[1,row])",
        "f64[1,row] f64[1,row] f64[1,row]",
        "(b f64[1,row]) (c f64[1,row])",
        "(set b a) (set c (copy a))
         (set (index b 0) 9.0)
         (return a b c)",
    );
    assert_eq!(
        ok(&src, json!([[1.0, 2.0]])),
        json!([[9.0, 2.0], [9.0, 2.0], [1.0, 2.0]])
    );
}

#[test]
fn array_arguments_are_passed_by_reference() {
    let src = prog(
        1,
        "(a f64[1,col])",
        "",
        "",
        "(set (index a 2) 7.0) (return)",
    );
    let a = f64_array(Layout::Col, &json!([1.0, 2.0, 3.0]));
    let out = call_values(&src, "f", vec![a.clone()]).unwrap();
    assert!(out.is_empty());
    assert_eq!(plain(&a), json!([1.0, 7.0, 3.0]));
}

#[test]
fn allocation_functions() {
    let src = prog(
        0,
        "(n i64)",
        "f64[2,row] i32[1,row] c128[1,col] bool[1,row] f64[2,col]",
        "",
        "(return (zeros f64[2,row] 2 n) (ones i32[1,row] n) (fill c128[1,col] (c128 1.0 1.0) 2) (empty bool[1,row] 1) (zeros f64[2,col] 0 n))",
    );
    let out = ok(&src, json!([3]));
    assert_eq!(out[0], json!([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]));
    assert_eq!(out[1], json!([1, 1, 1]));
    assert_eq!(
        out[2],
        json!([{"re": 1.0, "im": 1.0}, {"re": 1.0, "im": 1.0}])
    );
    assert_eq!(out[3], json!([false]));
    assert_eq!(out[4], json!([]));
    let e = err(&src, json!([-1]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("negative dimension"));
}

#[test]
fn alloc_statement_and_huge_allocation() {
    let src = prog(
        0,
        "(n i64)",
        "f64[1,row]",
        "(a f64[1,row])",
        "(alloc a n) (set (index a 0) 1.0) (return a)",
    );
    assert_eq!(ok(&src, json!([2])), json!([1.0, 0.0]));
    let src = prog(
        0,
        "(n i64)",
        "f64[2,row]",
        "",
        "(return (zeros f64[2,row] n n))",
    );
    assert_eq!(
        err(&src, json!([4_000_000_000i64])).kind,
        ErrorKind::Runtime
    );
}

#[test]
fn array_casts_change_type_and_layout() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "i32[2,col]",
        "",
        "(return (cast i32[2,col] a))",
    );
    let out = call(&src, "f", json!([[[1.5, -2.5], [3.9, 4.0]]])).unwrap();
    let Value::Array(x) = &out[0] else { panic!() };
    assert_eq!(x.ty.layout, Layout::Col);
    assert_eq!(x.strides, vec![1, 2]);
    assert_eq!(plain(&out[0]), json!([[1, -2], [3, 4]]));
    assert_eq!(err(&src, json!([[[1.0, "nan"]]])).kind, ErrorKind::Runtime);
}

#[test]
fn map_applies_a_module_function() {
    let src = "(module t :index-base 0
      (function f ((a f64[1,row]) (b f64[1,row])) (f64[1,row] f64[1,row])
        (locals)
        (return (map axpy 2.0 a b) (map axpy 1.0 a 0.5)))
      (function axpy ((s f64) (x f64) (y f64)) (f64)
        (locals)
        (return (+ (* s x) y))))";
    assert_eq!(
        ok(src, json!([[1.0, 2.0], [10.0, 20.0]])),
        json!([[12.0, 24.0], [1.5, 2.5]])
    );
    assert_eq!(
        err(src, json!([[1.0, 2.0], [10.0]])).kind,
        ErrorKind::ShapeMismatch
    );
}

// ---------------------------------------------------------------- control flow

#[test]
fn while_break_continue() {
    // Sum of odd i below 10, stopping at 7: 1 + 3 + 5 = 9.
    let src = prog(
        0,
        "",
        "i64",
        "(i i64) (s i64)",
        "(set i 0) (set s 0)
         (while true (block
           (set i (+ i 1))
           (if (== i 7) (block (break)))
           (if (== (mod i 2) 0) (block (continue)))
           (set s (+ s i))))
         (return s)",
    );
    assert_eq!(ok(&src, json!([])), json!(9));
}

#[test]
fn for_over_domain_first_variable_slowest() {
    let src = prog(
        0,
        "",
        "i64[1,row] i64 i64",
        "(i i64) (j i64) (k i64) (out i64[1,row])",
        "(set out (zeros i64[1,row] 6)) (set k 0)
         (for (i j) (domain (range 1 2) (range 10 30 10))
           (block (set (index out k) (+ i j)) (set k (+ k 1))))
         (return out i j)",
    );
    assert_eq!(
        ok(&src, json!([])),
        json!([[11, 21, 31, 12, 22, 32], 2, 30])
    );
}

#[test]
fn for_loops_ranges_and_loop_variables() {
    // Negative step, inclusive stop; assignment to the loop variable lasts one iteration.
    let src = prog(
        0,
        "(n i64)",
        "i64 i64",
        "(i i32) (s i64)",
        "(set s 0) (set i 100:i32)
         (for (i) (range n 1 -2) (block (set s (+ (* s 10) (cast i64 i))) (set i 0:i32)))
         (return s (cast i64 i))",
    );
    assert_eq!(ok(&src, json!([5])), json!([531, 0]));
    // Zero iterations leave the loop variable unchanged.
    assert_eq!(ok(&src, json!([0])), json!([0, 100]));
}

#[test]
fn range_values_and_zero_step() {
    let src = prog(0, "(n i64)", "range", "", "(return (range 0 10 n))");
    assert_eq!(
        ok(&src, json!([3])),
        json!({"start": 0, "stop": 10, "step": 3})
    );
    let e = err(&src, json!([0]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("zero step"));
}

#[test]
fn recursion_and_multiple_results() {
    let src = "(module t :index-base 0
      (function f ((n i64)) (i64 i64)
        (locals (a i64) (b i64) (t (tuple i64 i64)))
        (mset (a b) (call divmod n 7))
        (set t (tuple (call fib n) b))
        (return (tget t 0) (+ a (tget t 1))))
      (function divmod ((x i64) (y i64)) (i64 i64)
        (locals)
        (return (idiv x y) (mod x y)))
      (function fib ((n i64)) (i64)
        (locals)
        (if (< n 2) (block (return n)))
        (return (+ (call fib (- n 1)) (call fib (- n 2))))))";
    assert_eq!(ok(src, json!([20])), json!([6765, 8]));
}

#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let src = "(module t :index-base 0
      (function f ((n i64)) (i64)
        (locals)
        (if (== n 0) (block (return 0)))
        (return (+ 1 (call f (- n 1))))))";
    assert_eq!(ok(src, json!([9000])), json!(9000));
    let e = err(src, json!([20000]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("recursion too deep"), "{}", e.message);
}

#[test]
fn missing_return_is_a_runtime_error() {
    let src = prog(0, "(x i64)", "i64", "", "(if (> x 0) (block (return x)))");
    assert_eq!(ok(&src, json!([3])), json!(3));
    let e = err(&src, json!([-3]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("missing return"));
    assert_eq!(e.function.as_deref(), Some("f"));
}

#[test]
fn free_makes_a_variable_unassigned() {
    let src = prog(
        0,
        "",
        "f64",
        "(a f64[1,row]) (x f64)",
        "(set a (ones f64[1,row] 2)) (refincr a) (refdecr a) (free a) (return (sum a) :line 4)",
    );
    let e = err(&src, json!([]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(e.variable.as_deref(), Some("a"));
    assert_eq!(e.line, Some(4));
    let e = err(&prog(0, "", "f64", "(x f64)", "(return x)"), json!([]));
    assert!(e.message.contains("unassigned"));
}

#[test]
fn parfor_with_atomics_and_gpu_blocks() {
    let src = prog(
        0,
        "(n i64)",
        "i64[1,row] i32[1,row] i64",
        "(i i64) (h i64[1,row]) (flag i32[1,row]) (old i64) (was i32)",
        "(set h (zeros i64[1,row] 3)) (set flag (zeros i32[1,row] 1))
         (gpu
           (parfor (i) (range 0 (- n 1))
             (block
               (set old (atomic-add h (mod i 3) :value 1))
               (set was (atomic-cas flag 0 :expected 0:i32 :new (cast i32 (+ i 1)))))))
         (return h flag (atomic-add h 0 :value 0))",
    );
    assert_eq!(ok(&src, json!([7])), json!([[3, 2, 2], [1], 3]));
}

#[test]
fn argument_checks() {
    let src = prog(0, "(x f64) (a f64[1,row])", "f64", "", "(return x)");
    let e = call(&src, "f", json!([1.0])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    let m = parse_module(&src).unwrap();
    let e = run(
        &m,
        "f",
        vec![
            Value::Scalar(crate::runtime::value::Scalar::I64(1)),
            f64_array(Layout::Row, &json!([1.0])),
        ],
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    let e = run(
        &m,
        "f",
        vec![
            Value::Scalar(crate::runtime::value::Scalar::F64(1.0)),
            f64_array(Layout::Col, &json!([1.0])),
        ],
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert_eq!(
        run(&m, "nope", vec![]).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    // A window that does not fit its buffer is refused, not read.
    let Value::Array(mut bad) = f64_array(Layout::Row, &json!([1.0, 2.0])) else {
        panic!()
    };
    bad.dims = vec![5];
    let e = run(
        &m,
        "f",
        vec![
            Value::Scalar(crate::runtime::value::Scalar::F64(1.0)),
            Value::Array(bad),
        ],
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
}

#[test]
fn strided_parameter_accepts_any_layout() {
    let src = prog(1, "(a f64[2,strided])", "f64", "", "(return (index a 2 1))");
    // Strided arrays flatten last-index-fastest even when the data is column-major.
    let a = f64_array(Layout::Col, &json!([[1.0, 2.0], [3.0, 4.0]]));
    assert_eq!(
        plain(&call_values(&src, "f", vec![a]).unwrap()[0]),
        json!(3.0)
    );
    let src = prog(
        1,
        "(a f64[2,strided])",
        "f64",
        "",
        "(return (index a 2 :flat))",
    );
    let a = f64_array(Layout::Col, &json!([[1.0, 2.0], [3.0, 4.0]]));
    assert_eq!(
        plain(&call_values(&src, "f", vec![a]).unwrap()[0]),
        json!(2.0)
    );
}

// ---------------------------------------------------------------- indexing

const A23: &str = "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]";
const V5: &str = "[10.0, 20.0, 30.0, 40.0, 50.0]";

fn arg(s: &str) -> Json {
    serde_json::from_str(s).unwrap()
}

#[test]
fn element_reads_zero_and_one_based() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64 f64",
        "",
        "(return (index a 1 2) (index a 0 1))",
    );
    assert_eq!(ok(&src, json!([arg(A23)])), json!([6.0, 2.0]));
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64 f64",
        "",
        "(return (index a 2 3) (index a 1 2))",
    );
    assert_eq!(ok(&src, json!([arg(A23)])), json!([6.0, 2.0]));
    let src = prog(
        1,
        "(a f64[1,row]) (i i32)",
        "f64",
        "",
        "(return (index a i))",
    );
    assert_eq!(ok(&src, json!([arg(V5), 5])), json!(50.0));
}

#[test]
fn out_of_bounds_error_names_everything() {
    let src = prog(
        1,
        "(a f64[2,col]) (i i64) (j i64)",
        "f64",
        "(x f64)",
        "(set x 0.0 :line 4) (set x (index a i j) :line 5) (return x)",
    );
    let e = err(&src, json!([arg(A23), 3, 1]));
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.function.as_deref(), Some("f"));
    assert_eq!(e.line, Some(5));
    assert_eq!(e.variable.as_deref(), Some("a"));
    assert_eq!((e.index, e.bound, e.dim), (Some(3), Some(2), Some(0)));
    // Index base 1: 0 is out of bounds and reported as written.
    let e = err(&src, json!([arg(A23), 1, 0]));
    assert_eq!((e.index, e.bound, e.dim), (Some(0), Some(3), Some(1)));
    let e = err(&src, json!([arg(A23), 1, 4]));
    assert_eq!((e.index, e.bound, e.dim), (Some(4), Some(3), Some(1)));
    assert_eq!(
        e.to_string(),
        "index out of bounds in f (line 5): a[1, 4]: index 4 out of bounds 1..4 in dimension 1"
    );
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64[1,row]",
        "",
        "(return (index a (range 1 2) 7))",
    );
    let e = err(&src, json!([arg(A23)]));
    assert_eq!(
        e.message,
        "a[1:2, 7]: index 2 out of bounds 0..2 in dimension 0"
    );
}

#[test]
fn out_of_bounds_in_a_callee_names_the_callee() {
    let src = "(module t :index-base 0
      (function f ((a f64[1,row])) (f64)
        (locals)
        (return (call g a 9) :line 10))
      (function g ((b f64[1,row]) (i i64)) (f64)
        (locals)
        (block (return (index b i) :line 3))))";
    let e = err(src, json!([[1.0]]));
    assert_eq!(e.function.as_deref(), Some("g"));
    assert_eq!(e.line, Some(3));
    assert_eq!(e.variable.as_deref(), Some("b"));
}

#[test]
fn nocheck_accesses_are_still_checked() {
    let src = prog(
        0,
        "(a f64[1,row])",
        "f64",
        "",
        "(return (index a 5 :nocheck))",
    );
    assert_eq!(err(&src, json!([[1.0]])).kind, ErrorKind::OutOfBounds);
}

#[test]
fn write_out_of_bounds() {
    let src = prog(
        0,
        "(v f64[1,row])",
        "",
        "",
        "(set (index v 10) 1.0 :line 3) (return)",
    );
    let e = err(&src, json!([arg(V5)]));
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound, e.line),
        (Some("v"), Some(10), Some(5), Some(3))
    );
}

#[test]
fn negative_indices() {
    let src = prog(
        0,
        "(v f64[1,row]) (i i64)",
        "f64",
        "",
        "(return (index v i :neg))",
    );
    assert_eq!(ok(&src, json!([arg(V5), -1])), json!(50.0));
    assert_eq!(ok(&src, json!([arg(V5), -5])), json!(10.0));
    assert_eq!(ok(&src, json!([arg(V5), 2])), json!(30.0));
    let e = err(&src, json!([arg(V5), -6]));
    assert_eq!(
        (e.kind, e.index, e.bound),
        (ErrorKind::OutOfBounds, Some(-6), Some(5))
    );
    // Without :neg a negative index is out of bounds.
    let src = prog(
        0,
        "(v f64[1,row]) (i i64)",
        "f64",
        "",
        "(return (index v i))",
    );
    assert_eq!(err(&src, json!([arg(V5), -1])).index, Some(-1));
    // Negative range endpoints (NumPy v[-3:] with inclusive stop -1).
    let src = prog(
        0,
        "(v f64[1,row])",
        "f64[1,row]",
        "",
        "(return (index v (range -3 -1) :neg))",
    );
    assert_eq!(ok(&src, json!([arg(V5)])), json!([30.0, 40.0, 50.0]));
}

#[test]
fn range_slices_inclusive_stop_steps_and_absent_ends() {
    let src = prog(
        0,
        "(v f64[1,row])",
        "f64[1,row] f64[1,row] f64[1,row] f64[1,row] f64[1,row] f64[1,row] f64[1,row]",
        "",
        "(return (index v (range 1 3)) (index v (range _ _ 2)) (index v (range _ _ -1)) (index v (range 3 _))
                 (index v (range 4 0 -2)) (index v (range 3 1)) (index v :))",
    );
    assert_eq!(
        ok(&src, json!([arg(V5)])),
        json!([
            [20.0, 30.0, 40.0],
            [10.0, 30.0, 50.0],
            [50.0, 40.0, 30.0, 20.0, 10.0],
            [40.0, 50.0],
            [50.0, 30.0, 10.0],
            [],
            arg(V5)
        ])
    );
    let src = prog(
        1,
        "(v f64[1,row])",
        "f64[1,row] f64[1,row]",
        "",
        "(return (index v (range 2 4)) (index v (range _ 2)))",
    );
    assert_eq!(
        ok(&src, json!([arg(V5)])),
        json!([[20.0, 30.0, 40.0], [10.0, 20.0]])
    );
}

#[test]
fn range_bounds_and_zero_step() {
    let src = prog(
        0,
        "(v f64[1,row]) (a i64) (b i64) (s i64)",
        "f64[1,row]",
        "",
        "(return (index v (range a b s)))",
    );
    let e = err(&src, json!([arg(V5), 1, 5, 1]));
    assert_eq!(
        (e.kind, e.index, e.bound, e.dim),
        (ErrorKind::OutOfBounds, Some(5), Some(5), Some(0))
    );
    let e = err(&src, json!([arg(V5), 7, 9, 1]));
    assert_eq!(e.index, Some(7));
    let e = err(&src, json!([arg(V5), -1, 2, 1]));
    assert_eq!(e.index, Some(-1));
    // The stop may lie beyond the extent when the last selected position does not: 0, 3.
    assert_eq!(ok(&src, json!([arg(V5), 0, 5, 3])), json!([10.0, 40.0]));
    // An empty selection is fine wherever its endpoints are.
    assert_eq!(ok(&src, json!([arg(V5), 9, 3, 1])), json!([]));
    assert_eq!(ok(&src, json!([arg(V5), -4, 10, -1])), json!([]));
    let e = err(&src, json!([arg(V5), 0, 4, 0]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("zero step"));
}

#[test]
fn range_variables_as_indices() {
    let src = prog(
        1,
        "(v f64[1,row])",
        "f64[1,row]",
        "(r range)",
        "(set r (range 4 2 -1)) (return (index v r))",
    );
    assert_eq!(ok(&src, json!([arg(V5)])), json!([40.0, 30.0, 20.0]));
}

#[test]
fn implicit_trailing_ranges() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64[1,row]",
        "",
        "(return (index a 1))",
    );
    assert_eq!(ok(&src, json!([arg(A23)])), json!([4.0, 5.0, 6.0]));
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[1,col] f64[2,col]",
        "",
        "(return (index a 2) (index a (range 1 2) (range 2 3)))",
    );
    assert_eq!(
        ok(&src, json!([arg(A23)])),
        json!([[4.0, 5.0, 6.0], [[2.0, 3.0], [5.0, 6.0]]])
    );
}

#[test]
fn slices_of_two_dimensions_match_octave() {
    // Octave: A = magic(4); A(2:3, [1 3]) = [5 10; 9 6]; A(end:-1:3, 2)' = [14 7]
    let magic = json!([[
        [16.0, 2.0, 3.0, 13.0],
        [5.0, 11.0, 10.0, 8.0],
        [9.0, 7.0, 6.0, 12.0],
        [4.0, 14.0, 15.0, 1.0]
    ]]);
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[2,col] f64[1,col]",
        "(idx i64[1,col])",
        "(set idx (fill i64[1,col] 1 2)) (set (index idx 2) 3)
         (return (index a (range 2 3) idx) (index a (range 4 3 -1) 2))",
    );
    assert_eq!(
        ok(&src, magic),
        json!([[[5.0, 10.0], [9.0, 6.0]], [14.0, 7.0]])
    );
}

#[test]
fn flat_indexing_column_major_is_matlab_linear_indexing() {
    // Octave: A = [1 2 3; 4 5 6]; A(:)' = [1 4 2 5 3 6]; A(5) = 3; A(2:4) = [4 2 5]
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[1,col] f64 f64[1,col]",
        "",
        "(return (index a : :flat) (index a 5 :flat) (index a (range 2 4) :flat))",
    );
    assert_eq!(
        ok(&src, json!([arg(A23)])),
        json!([[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], 3.0, [4.0, 2.0, 5.0]])
    );
    let src = prog(1, "(a f64[2,col])", "f64", "", "(return (index a 7 :flat))");
    let e = err(&src, json!([arg(A23)]));
    assert_eq!(
        (e.kind, e.index, e.bound, e.dim),
        (ErrorKind::OutOfBounds, Some(7), Some(6), Some(0))
    );
}

#[test]
fn flat_indexing_row_major_is_last_index_fastest() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64 f64[1,row]",
        "",
        "(return (index a 4 :flat) (index a : :flat))",
    );
    assert_eq!(
        ok(&src, json!([arg(A23)])),
        json!([5.0, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    );
}

/// A 2x3x4 array with a[i][j][k] = 1 + i + 2j + 6k (Octave's reshape(1:24, 2, 3, 4)).
fn octave_cube() -> Json {
    let mut out = Vec::new();
    for i in 0..2 {
        let mut plane = Vec::new();
        for j in 0..3 {
            plane.push(
                (0..4)
                    .map(|k| json!((1 + i + 2 * j + 6 * k) as f64))
                    .collect::<Vec<_>>(),
            );
        }
        out.push(plane);
    }
    json!(out)
}

#[test]
fn flat_indexing_of_trailing_dimensions() {
    // Octave: B = reshape(1:24, 2, 3, 4); B(2, 7) = 14; B(1, [1 4 12]) = [1 7 23]
    let src = prog(
        1,
        "(b f64[3,col])",
        "f64 f64[1,col]",
        "(idx i64[1,col])",
        "(set idx (fill i64[1,col] 1 3)) (set (index idx 2) 4) (set (index idx 3) 12)
         (return (index b 2 7 :flat) (index b 1 idx :flat))",
    );
    assert_eq!(
        ok(&src, json!([octave_cube()])),
        json!([14.0, [1.0, 7.0, 23.0]])
    );
    let src = prog(
        1,
        "(b f64[3,col])",
        "f64",
        "",
        "(return (index b 2 13 :flat))",
    );
    let e = err(&src, json!([octave_cube()]));
    assert_eq!((e.index, e.bound, e.dim), (Some(13), Some(12), Some(1)));
    // Row-major: NumPy np.arange(24).reshape(2,3,4).reshape(2,12)[1,5] == 17.
    let data: Vec<Json> = (0..2)
        .map(|i| {
            json!((0..3)
                .map(|j| (0..4)
                    .map(|k| (12 * i + 4 * j + k) as f64)
                    .collect::<Vec<_>>())
                .collect::<Vec<_>>())
        })
        .collect();
    let src = prog(
        0,
        "(b f64[3,row])",
        "f64",
        "",
        "(return (index b 1 5 :flat))",
    );
    assert_eq!(ok(&src, json!([data])), json!(17.0));
}

#[test]
fn flat_writes() {
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[2,col]",
        "",
        "(set (index a (range 2 3) :flat) 0.0) (set (index a 6 :flat) 9.0) (return a)",
    );
    assert_eq!(
        ok(&src, json!([arg(A23)])),
        json!([[1.0, 0.0, 3.0], [0.0, 5.0, 9.0]])
    );
}

#[test]
fn views_alias_their_array() {
    let src = prog(
        0,
        "(n i64)",
        "f64[2,row] f64[2,strided]",
        "(a f64[2,row]) (v f64[1,strided]) (w f64[2,strided]) (x f64[1,strided])",
        "(set a (zeros f64[2,row] n 4))
         (set v (index a 1 : :view))
         (set (index v 2) 5.0)
         (set w (index a (range 0 2 2) (range 1 3 2) :view))
         (set (index w 1 1) 7.0)
         (set x (index w 0 : :view))
         (set (index x 0) 3.0)
         (set (index a 2 1) 8.0)
         (return a w)",
    );
    assert_eq!(
        ok(&src, json!([3])),
        json!([
            [
                [0.0, 3.0, 0.0, 0.0],
                [0.0, 0.0, 5.0, 0.0],
                [0.0, 8.0, 0.0, 7.0]
            ],
            [[3.0, 0.0], [8.0, 7.0]]
        ])
    );
}

#[test]
fn view_strides_offsets_and_reversal() {
    let src = prog(
        0,
        "(a f64[1,col])",
        "f64[1,strided]",
        "(v f64[1,strided])",
        "(set v (index a (range _ _ -2) :view)) (set (index v 0) 0.0) (return v)",
    );
    let a = f64_array(Layout::Col, &arg(V5));
    let out = call_values(&src, "f", vec![a.clone()]).unwrap();
    let Value::Array(v) = &out[0] else { panic!() };
    assert_eq!(
        (v.ty.layout, v.offset, v.strides.clone(), v.dims.clone()),
        (Layout::Strided, 4, vec![-2], vec![3])
    );
    assert!(v.shares_buffer(match &a {
        Value::Array(a) => a,
        _ => unreachable!(),
    }));
    assert_eq!(plain(&out[0]), json!([0.0, 30.0, 10.0]));
    assert_eq!(plain(&a), json!([10.0, 20.0, 30.0, 40.0, 0.0]));
}

#[test]
fn views_of_column_major_arrays() {
    // A column of a column-major matrix is contiguous; a row is strided by the row count.
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[1,strided] f64[1,strided]",
        "",
        "(return (index a : 2 :view) (index a 2 : :view))",
    );
    let a = f64_array(Layout::Col, &arg(A23));
    let out = call_values(&src, "f", vec![a]).unwrap();
    let (Value::Array(c), Value::Array(r)) = (&out[0], &out[1]) else {
        panic!()
    };
    assert_eq!(
        (c.offset, c.strides.clone(), r.offset, r.strides.clone()),
        (2, vec![1], 1, vec![2])
    );
    assert_eq!(
        (plain(&out[0]), plain(&out[1])),
        (json!([2.0, 5.0]), json!([4.0, 5.0, 6.0]))
    );
}

#[test]
fn flat_index_of_a_strided_view_is_last_index_fastest() {
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[1,row]",
        "(w f64[2,strided])",
        "(set w (index a : (range 2 3) :view)) (return (index w : :flat))",
    );
    assert_eq!(ok(&src, json!([arg(A23)])), json!([2.0, 3.0, 5.0, 6.0]));
}

#[test]
fn view_with_only_scalar_indices_is_the_element() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64",
        "",
        "(return (index a 1 1 :view))",
    );
    assert_eq!(ok(&src, json!([arg(A23)])), json!(5.0));
}

#[test]
fn slices_without_view_are_copies() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64[2,row] f64[1,row]",
        "(b f64[1,row])",
        "(set b (index a 1 :)) (set (index b 0) 0.0) (return a b)",
    );
    assert_eq!(
        ok(&src, json!([arg(A23)])),
        json!([arg(A23), [0.0, 5.0, 6.0]])
    );
}

#[test]
fn slice_of_a_column_major_array_stays_column_major() {
    let src = prog(
        1,
        "(a f64[2,col])",
        "f64[2,col]",
        "",
        "(return (index a : (range 1 2)))",
    );
    let out = call(&src, "f", json!([arg(A23)])).unwrap();
    let Value::Array(x) = &out[0] else { panic!() };
    assert_eq!((x.ty.layout, x.strides.clone()), (Layout::Col, vec![1, 2]));
    assert_eq!(plain(&out[0]), json!([[1.0, 2.0], [4.0, 5.0]]));
}

#[test]
fn gather_reads() {
    let src = prog(
        0,
        "(v f64[1,row]) (idx i64[1,row])",
        "f64[1,row]",
        "",
        "(return (index v idx))",
    );
    assert_eq!(
        ok(&src, json!([arg(V5), [4, 0, 0, 2]])),
        json!([50.0, 10.0, 10.0, 30.0])
    );
    assert_eq!(ok(&src, json!([arg(V5), []])), json!([]));
    let e = err(&src, json!([arg(V5), [1, 7]]));
    assert_eq!(
        (e.kind, e.index, e.bound),
        (ErrorKind::OutOfBounds, Some(7), Some(5))
    );
    let src = prog(
        0,
        "(a f64[2,row]) (idx i32[1,row])",
        "f64[2,row] f64[1,row]",
        "",
        "(return (index a : idx) (index a 1 idx))",
    );
    assert_eq!(
        ok(&src, json!([arg(A23), [2, 0]])),
        json!([[[3.0, 1.0], [6.0, 4.0]], [6.0, 4.0]])
    );
}

#[test]
fn gather_writes_last_duplicate_wins() {
    let src = prog(
        0,
        "(v f64[1,row]) (idx i64[1,row]) (x f64[1,row])",
        "f64[1,row]",
        "",
        "(set (index v idx) x) (return v)",
    );
    assert_eq!(
        ok(&src, json!([arg(V5), [1, 1, 3], [7.0, 8.0, 9.0]])),
        json!([10.0, 8.0, 30.0, 9.0, 50.0])
    );
    assert_eq!(
        err(&src, json!([arg(V5), [1, 3], [7.0, 8.0, 9.0]])).kind,
        ErrorKind::ShapeMismatch
    );
}

#[test]
fn mask_reads_and_writes() {
    let src = prog(
        0,
        "(v f64[1,row]) (m bool[1,row])",
        "f64[1,row] f64[1,row]",
        "(c f64[1,row])",
        "(set c (index v m)) (set (index v m) 0.0) (return c v)",
    );
    assert_eq!(
        ok(&src, json!([arg(V5), [true, false, true, false, true]])),
        json!([[10.0, 30.0, 50.0], [0.0, 20.0, 0.0, 40.0, 0.0]])
    );
    let e = err(&src, json!([arg(V5), [true, false]]));
    assert_eq!(
        (e.kind, e.variable.as_deref(), e.bound),
        (ErrorKind::ShapeMismatch, Some("v"), Some(5))
    );
    // A mask built by a comparison (R: v[v > 25]).
    let src = prog(
        1,
        "(v f64[1,col])",
        "f64[1,col]",
        "",
        "(return (index v (> v 25.0)))",
    );
    assert_eq!(ok(&src, json!([arg(V5)])), json!([30.0, 40.0, 50.0]));
}

#[test]
fn writes_broadcast_scalars_and_check_shapes() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64[2,row]",
        "",
        "(set (index a : (range 1 2)) -1.0) (return a)",
    );
    assert_eq!(
        ok(&src, json!([arg(A23)])),
        json!([[1.0, -1.0, -1.0], [4.0, -1.0, -1.0]])
    );
    let src = prog(
        1,
        "(a f64[2,col]) (r f64[1,row])",
        "f64[2,col]",
        "",
        "(set (index a 2 :) r) (return a)",
    );
    assert_eq!(
        ok(&src, json!([arg(A23), [7.0, 8.0, 9.0]])),
        json!([[1.0, 2.0, 3.0], [7.0, 8.0, 9.0]])
    );
    let e = err(&src, json!([arg(A23), [7.0, 8.0]]));
    assert_eq!(
        (e.kind, e.variable.as_deref()),
        (ErrorKind::ShapeMismatch, Some("a"))
    );
    let src = prog(
        0,
        "(a f64[2,row]) (b f64[2,row])",
        "f64[2,row]",
        "",
        "(set (index a : (range 0 1)) b) (return a)",
    );
    assert_eq!(
        ok(&src, json!([arg(A23), [[0.0, 0.5], [0.25, 0.125]]])),
        json!([[0.0, 0.5, 3.0], [0.25, 0.125, 6.0]])
    );
    // Same number of elements but another shape is still a mismatch.
    assert_eq!(
        err(&src, json!([arg(A23), [[0.0, 0.5, 0.25, 0.125]]])).kind,
        ErrorKind::ShapeMismatch
    );
}

#[test]
fn overlapping_writes_read_the_right_side_first() {
    let src = prog(
        0,
        "(v f64[1,row])",
        "f64[1,row]",
        "",
        "(set (index v (range 1 3)) (index v (range 0 2) :view)) (return v)",
    );
    assert_eq!(
        ok(&src, json!([[1.0, 2.0, 3.0, 4.0, 5.0]])),
        json!([1.0, 1.0, 2.0, 3.0, 5.0])
    );
    let src = prog(
        0,
        "(v f64[1,row])",
        "f64[1,row]",
        "",
        "(set (index v :) (index v (range _ _ -1) :view)) (return v)",
    );
    assert_eq!(ok(&src, json!([[1.0, 2.0, 3.0]])), json!([3.0, 2.0, 1.0]));
}

#[test]
fn index_of_a_computed_array() {
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64",
        "",
        "(return (index (transpose a) 2 1))",
    );
    assert_eq!(ok(&src, json!([arg(A23)])), json!(6.0));
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64",
        "",
        "(return (index (transpose a) 2 2))",
    );
    let e = err(&src, json!([arg(A23)]));
    assert_eq!(
        (e.kind, e.variable.clone(), e.bound, e.dim),
        (ErrorKind::OutOfBounds, None, Some(2), Some(1))
    );
}

#[test]
fn indexing_bool_and_complex_arrays() {
    let src = prog(
        1,
        "(c c128[1,row]) (b bool[2,col])",
        "c128 bool[1,col]",
        "",
        "(set (index c 1) (c128 0.0 1.0)) (return (index c 1) (index b 2 :))",
    );
    assert_eq!(
        ok(
            &src,
            json!([[{"re": 1.0, "im": 1.0}], [[true, false], [false, true]]])
        ),
        json!([{"re": 0.0, "im": 1.0}, [false, true]])
    );
}

#[test]
fn empty_arrays_index_with_empty_ranges() {
    let src = prog(
        0,
        "(n i64)",
        "f64[1,row] i64",
        "(a f64[1,row])",
        "(set a (zeros f64[1,row] n)) (return (index a :) (len (index a (range _ _ -1))))",
    );
    assert_eq!(ok(&src, json!([0])), json!([[], 0]));
}

// ---------------------------------------------------------------- modules built as ASTs

#[test]
fn modules_built_directly_as_asts() {
    use crate::runtime::value::Scalar;
    use crate::vrir::ast::{BinOp, Expr, Function, Literal, Module, Param, Stmt, StmtKind};
    use crate::vrir::types::Type;
    // f(x) = (x + 1) * 2 over i32, with a source line on the return.
    let body = Expr::binary(
        BinOp::Mul,
        Expr::binary(BinOp::Add, Expr::var("x"), Expr::lit(Literal::I32(1))),
        Expr::lit(Literal::I32(2)),
    );
    let f = Function {
        name: "f".into(),
        params: vec![Param {
            name: "x".into(),
            ty: Type::I32,
            restrict: false,
        }],
        results: vec![Type::I32],
        locals: vec![],
        body: vec![Stmt {
            kind: StmtKind::Return { values: vec![body] },
            line: Some(2),
        }],
        line: None,
    };
    let m = Module {
        name: "m".into(),
        index_base: 0,
        functions: vec![f],
    };
    let out = run(&m, "f", vec![Value::Scalar(Scalar::I32(20))]).unwrap();
    assert!(out[0].same(&Value::Scalar(Scalar::I32(42))));
    // The JSON form runs the same; (MAX + 1) * 2 wraps to 0.
    let m2: Module = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
    let out = run(&m2, "f", vec![Value::Scalar(Scalar::I32(i32::MAX))]).unwrap();
    assert!(out[0].same(&Value::Scalar(Scalar::I32(0))));
}

#[test]
fn ill_formed_modules_give_internal_errors_not_panics() {
    // What the verifier rules out must not crash the interpreter.
    let cases = [
        ("", "f64", "", "(return (+ 1 2.0))"),
        ("", "f64", "", "(return (index 3.0 0))"),
        ("(a f64[1,row])", "f64", "", "(return (index a 0 0 0))"),
        ("", "i64", "", "(return (call nowhere 1))"),
        ("", "i64", "", "(return y)"),
        ("", "i64", "(x f64)", "(set x 1) (return 1)"),
        (
            "(a f64[2,row])",
            "f64[1,strided]",
            "",
            "(return (index a (range 0 _) :view :flat))",
        ),
        ("", "i64", "", "(break)"),
        ("", "f64", "", "(return (matmul 1.0 2.0))"),
        ("", "i64 i64", "", "(return 1)"),
    ];
    for (params, results, locals, body) in cases {
        let src = prog(0, params, results, locals, body);
        let args = if params.is_empty() {
            json!([])
        } else if params.contains("[2") {
            json!([[[1.0]]])
        } else {
            json!([[1.0]])
        };
        let e = call(&src, "f", args).expect_err(body);
        assert_eq!(e.kind, ErrorKind::Internal, "{body}: {e}");
    }
}

// ---------------------------------------------------------------- more operations

#[test]
fn reductions_on_column_major_and_other_types() {
    // NumPy: [[1,2,3],[4,5,6]].prod(axis=1) == [6, 120]; amin(axis=0) of [[1,nan],[0,2]] == [0, nan]
    let src = prog(
        0,
        "(a i32[2,col])",
        "i32[1,col] i32",
        "",
        "(return (prod a :axis 1) (sum a))",
    );
    let out = call(&src, "f", json!([[[1, 2, 3], [4, 5, 6]]])).unwrap();
    let Value::Array(p) = &out[0] else { panic!() };
    assert_eq!(p.ty.layout, Layout::Col);
    assert_eq!(
        (plain(&out[0]), plain(&out[1])),
        (json!([6, 120]), json!(21))
    );
    let src = prog(
        0,
        "(a f64[2,row])",
        "f64[1,row]",
        "",
        "(return (amin a :axis 0))",
    );
    assert_eq!(
        ok(&src, json!([[[1.0, "nan"], [0.0, 2.0]]])),
        json!([0.0, "nan"])
    );
    let src = prog(
        0,
        "(c c128[1,row]) (k i32[1,row])",
        "c128 i32",
        "",
        "(return (sum c) (prod k))",
    );
    assert_eq!(
        ok(
            &src,
            json!([[{"re": 1.0, "im": 2.0}, {"re": 3.0, "im": -1.0}], [2147483647, 2]])
        ),
        json!([{"re": 4.0, "im": 1.0}, -2])
    );
    // An empty axis of amin with other extents non-zero is an empty reduction.
    let src = prog(
        0,
        "(n i64)",
        "f64[1,row]",
        "",
        "(return (amax (zeros f64[2,row] 3 n) :axis 1))",
    );
    assert_eq!(err(&src, json!([0])).kind, ErrorKind::Runtime);
    assert_eq!(ok(&src, json!([2])), json!([0.0, 0.0, 0.0]));
}

#[test]
fn copy_and_transpose_keep_or_normalize_layouts() {
    let src = prog(
        0,
        "(a f64[2,col])",
        "f64[2,strided] f64[2,col] f64[2,row]",
        "(v f64[2,strided])",
        "(set v (index a : (range 0 1) :view)) (return (copy v) (transpose a) (transpose v))",
    );
    let out = call(&src, "f", json!([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]])).unwrap();
    let layouts: Vec<Layout> = out
        .iter()
        .map(|v| match v {
            Value::Array(a) => a.ty.layout,
            _ => panic!(),
        })
        .collect();
    assert_eq!(layouts, vec![Layout::Strided, Layout::Col, Layout::Row]);
    assert_eq!(
        out.iter().map(plain).collect::<Vec<_>>(),
        vec![
            json!([[1.0, 2.0], [4.0, 5.0]]),
            json!([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]),
            json!([[1.0, 4.0], [2.0, 5.0]])
        ]
    );
}

#[test]
fn returns_from_nested_loops_and_mutual_recursion() {
    let src = "(module t :index-base 1
      (function f ((a i64[2,row]) (x i64)) (i64 i64 bool)
        (locals (i i64) (j i64))
        (while true (block
          (for (i j) (domain (range 1 (dim a 0)) (range 1 (dim a 1)))
            (block (if (== (index a i j) x) (block (return i j (call even x))))))
          (return 0 0 (call even x)))))
      (function even ((n i64)) (bool)
        (locals)
        (if (== n 0) (block (return true)))
        (return (call odd (- n 1))))
      (function odd ((n i64)) (bool)
        (locals)
        (if (== n 0) (block (return false)))
        (return (call even (- n 1)))))";
    assert_eq!(ok(src, json!([[[1, 2], [3, 4]], 3])), json!([2, 1, false]));
    assert_eq!(ok(src, json!([[[1, 2], [3, 4]], 8])), json!([0, 0, true]));
}

#[test]
fn atomic_cas_on_bool_arrays_and_bounds() {
    let src = prog(
        0,
        "(flags bool[1,row]) (k i64)",
        "bool[1,row] bool",
        "(i i64) (was bool)",
        "(parfor (i) (range 0 2) (block (set was (atomic-cas flags k :expected false :new true))))
         (return flags was)",
    );
    assert_eq!(
        ok(&src, json!([[false, false], 1])),
        json!([[false, true], true])
    );
    let e = err(&src, json!([[false, false], 2]));
    assert_eq!(
        (e.kind, e.variable.as_deref(), e.index),
        (ErrorKind::OutOfBounds, Some("flags"), Some(2))
    );
}

#[test]
fn element_wise_casts_and_complex_arrays() {
    let src = prog(
        0,
        "(b bool[1,row]) (x f64[1,row])",
        "f64[1,row] c128[1,row] f64[1,row]",
        "",
        "(return (cast f64[1,row] b) (complex x (neg x)) (imag (complex x 1.0)))",
    );
    assert_eq!(
        ok(&src, json!([[true, false], [1.0, 2.0]])),
        json!([[1.0, 0.0], [{"re": 1.0, "im": -1.0}, {"re": 2.0, "im": -2.0}], [1.0, 1.0]])
    );
}

#[test]
fn tuples_and_single_item_mset() {
    let src = "(module t :index-base 0
      (function f ((x i64)) (i64 f64)
        (locals (a i64) (t (tuple i64 f64)) (y f64))
        (set t (call two x))
        (mset (a y) t)
        (mset (a) (call one a))
        (return a (tget (call two a) 1)))
      (function one ((x i64)) (i64) (locals) (return (* x 10)))
      (function two ((x i64)) (i64 f64) (locals) (return (+ x 1) (cast f64 x))))";
    assert_eq!(ok(src, json!([4])), json!([50, 50.0]));
}

// ---------------------------------------------------------------- property: slices

mod slice_properties {
    use super::*;
    use proptest::prelude::*;

    /// Positions an inclusive range selects on an axis of extent `u`, computed the
    /// simplest way (walk from start to stop), or None when one falls outside.
    fn expected_positions(start: i64, stop: i64, step: i64, base: i64, u: i64) -> Option<Vec<i64>> {
        let (p0, p1) = (start - base, stop - base);
        let mut out = Vec::new();
        let mut p = p0;
        while (step > 0 && p <= p1) || (step < 0 && p >= p1) {
            if p < 0 || p >= u {
                return None;
            }
            out.push(p);
            p += step;
        }
        Some(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// A copy slice, a view slice and the definition agree, for both layouts and
        /// both index bases; out-of-bounds selections fail in both forms.
        #[test]
        fn copy_and_view_slices_agree_with_the_definition(
            rows in 0usize..5, cols in 0usize..5, col_major in any::<bool>(), base in 0i64..2,
            r in (-2i64..7, -2i64..7, prop_oneof![-3i64..0, 1i64..4]),
            c in (-2i64..7, -2i64..7, prop_oneof![-3i64..0, 1i64..4]),
        ) {
            let layout = if col_major { "col" } else { "row" };
            let data: Vec<Vec<f64>> = (0..rows).map(|i| (0..cols).map(|j| (10 * i + j) as f64).collect()).collect();
            let src = prog(
                base as u8,
                &format!("(a f64[2,{layout}]) (r0 i64) (r1 i64) (rs i64) (c0 i64) (c1 i64) (cs i64)"),
                "f64[2,row] f64[2,row]",
                "(v f64[2,strided])",
                "(set v (index a (range r0 r1 rs) (range c0 c1 cs) :view))
                 (return (cast f64[2,row] (index a (range r0 r1 rs) (range c0 c1 cs))) (cast f64[2,row] v))",
            );
            let args = json!([{"dtype": "f64", "shape": [rows, cols], "data": data}, r.0, r.1, r.2, c.0, c.1, c.2]);
            let want_rows = expected_positions(r.0, r.1, r.2, base, rows as i64);
            let want_cols = expected_positions(c.0, c.1, c.2, base, cols as i64);
            match (want_rows, want_cols) {
                (Some(pr), Some(pc)) => {
                    let want: Vec<Vec<f64>> =
                        pr.iter().map(|&i| pc.iter().map(|&j| (10 * i + j) as f64).collect()).collect();
                    let out = call(&src, "f", args).expect("in bounds");
                    let Value::Array(copy) = &out[0] else { panic!() };
                    prop_assert_eq!(copy.dims.clone(), vec![pr.len(), pc.len()]);
                    prop_assert_eq!(copy.elements().len(), pr.len() * pc.len());
                    if !pr.is_empty() && !pc.is_empty() {
                        prop_assert_eq!(plain(&out[0]), json!(want));
                        prop_assert_eq!(plain(&out[1]), json!(want));
                    }
                }
                _ => {
                    let e = call(&src, "f", args).expect_err("out of bounds");
                    prop_assert_eq!(e.kind, ErrorKind::OutOfBounds);
                }
            }
        }
    }
}
