//! The Julia front end on every backend this build has, against answers that do not
//! come from our own interpreter: Julia's answer worked out by hand (`Hand`, compared
//! exactly, types included: `3` is an Int64 result, `3.0` a Float64 one), or computed by
//! R on the same inputs (`R`, Rscript run during this test; within a stated tolerance
//! where Julia's elementary functions are its own and R's are the C library's), or
//! Julia's exception (`Raises`: the kind and words of its message). Where a function
//! mutates an argument, the argument after the call is checked too: Julia passes
//! arrays by reference. Julia itself cannot be installed here; the package's own tests
//! (julia-package/test) run these semantics where it is.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::julia;
use velociraptor::ErrorKind;

const SOURCE: &str = include_str!("frontend_julia/cases.jl");

enum Expect {
    /// Julia's result, worked out by hand (exact, Int64 vs Float64 included).
    Hand(Json),
    /// An R expression whose value is Julia's result, within a relative tolerance.
    R(&'static str, f64),
    /// Julia raises: the error's kind and words of its message.
    Raises(ErrorKind, &'static str),
}
use Expect::*;

struct Case {
    func: &'static str,
    args: Json,
    expect: Expect,
    /// An argument's value after the call (Julia's arrays are passed by reference).
    after: Option<(usize, Json)>,
}

fn f64s(v: &[f64]) -> Json {
    json!({"dtype": "f64", "shape": [v.len()], "data": v})
}

fn i64s(v: &[i64]) -> Json {
    json!({"dtype": "i64", "shape": [v.len()], "data": v})
}

/// A `Vector{ComplexF64}` of (re, im) pairs.
fn c128s(v: &[(f64, f64)]) -> Json {
    let data: Vec<Json> = v.iter().map(|&(re, im)| json!({"re": re, "im": im})).collect();
    json!({"dtype": "c128", "shape": [v.len()], "data": data})
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json, expect| Case { func, args, expect, after: None };
    let m = |func, args: Json, expect, arg: usize, value: Json| Case { func, args, expect, after: Some((arg, value)) };
    let mat = json!([[1.0, 2.0], [3.0, 4.0]]);
    let imat = json!([[1, 2, 3], [4, 5, 6]]);
    vec![
        // Arithmetic: Int64 wraps, `/` is Float64, ÷ % truncate, mod and fld floor.
        c("arith", json!([7, 2]), Hand(json!([9, 5, 14, 3.5]))),
        c("arith", json!([7.5, 2]), Hand(json!([9.5, 5.5, 15.0, 3.75]))),
        c("arith", json!([1, 0]), Hand(json!([1, 1, 0, "inf"]))),
        c("int_ops", json!([-7, 2]), Hand(json!([-3, -1, 1, -4, -3]))),
        c("int_ops", json!([7, -2]), Hand(json!([-3, 1, -1, -4, -3]))),
        c("int_ops", json!([7, 0]), Raises(ErrorKind::DivisionByZero, "DivideError")),
        c("int_ops", json!([-9223372036854775808_i64, -1]), Raises(ErrorKind::Runtime, "DivideError")),
        c("float_mods", json!([-7.5, 2.0]), R("list(-7.5 - trunc(-7.5/2)*2, -7.5 %% 2, -7.5 - trunc(-7.5/2)*2)", 0.0)),
        c("float_mods", json!([5.5, -2.0]), Hand(json!([1.5, -0.5, 1.5]))),
        c("wrap_add", json!([9223372036854775807_i64]), Hand(json!(-9223372036854775808_i64))),
        c("wrap_mul", json!([4611686018427387904_i64, 2]), Hand(json!(-9223372036854775808_i64))),
        c("wrap_mul", json!([3037000500_i64, 3037000500_i64]), Hand(json!(-9223372036709301616_i64))),
        c("powers", json!([1.5, 4]), Hand(json!([2.25, 3.375, 5.0625, 16.0]))),
        c("int_pow", json!([3, 4]), Hand(json!(81))),
        c("int_pow", json!([2, 63]), Hand(json!(-9223372036854775808_i64))),
        c("int_pow", json!([-1, -3]), Hand(json!(-1))),
        c("int_pow", json!([2, -1]), Raises(ErrorKind::Runtime, "DomainError")),
        c("inv_pow", json!([2]), Hand(json!(0.75))),
        c("float_pow", json!([2.0, 0.5]), R("2^0.5", 1e-15)),
        c("float_pow", json!([-8.0, 2.0]), Hand(json!(64.0))),
        c("float_pow", json!([-8.0, 0.5]), Raises(ErrorKind::Runtime, "DomainError")),
        c("bool_arith", json!([true, false]), Hand(json!([1, 3, -1]))),
        c("bits", json!([12, 10]), Hand(json!([8, 14, 6, -13]))),
        c("bits", json!([-100, 37]), Hand(json!([4, -67, -71, 99]))),
        c("shifts", json!([-8, 1]), Hand(json!([-16, -4, 9223372036854775804_i64]))),
        c("shifts", json!([5, 70]), Hand(json!([0, 0, 0]))),
        c("shifts", json!([5, -1]), Hand(json!([2, 10, 10]))),
        c("compare_all", json!([2, 2.5]), Hand(json!([true, true, false, false, false, true]))),
        c("compare_all", json!(["nan", 1.0]), Hand(json!([false, false, false, false, false, true]))),
        c("chained", json!([1, 2, 2]), Hand(json!(true))),
        c("chained", json!([1, 3, 2]), Hand(json!(false))),
        // Control flow.
        c("sumsq", json!([[1.0, 2.0, 3.5]]), R("sum(c(1, 2, 3.5)^2)", 0.0)),
        c("sumsq", json!([[1, 2]]), Raises(ErrorKind::Type, "MethodError")),
        c("count_steps", json!([10, -3, 1]), Hand(json!(22))),
        c("count_steps", json!([1, 2, 10]), R("sum(seq(1, 10, by = 2))", 0.0)),
        c("count_steps", json!([1, 0, 5]), Raises(ErrorKind::Runtime, "step cannot be zero")),
        c("empty_range", json!([3]), Hand(json!(0))),
        c("empty_range", json!([7]), Hand(json!(3))),
        c("collatz", json!([27]), Hand(json!(111))),
        c("first_over", json!([[1.0, 5.0, 9.0], 4.0]), Hand(json!(2))),
        c("first_over", json!([[1.0, 5.0, 9.0], 10.0]), Hand(json!(0))),
        c("skip_odd", json!([10]), Hand(json!(30))),
        c("classify", json!([-2.5]), Hand(json!(-1))),
        c("classify", json!([0]), Hand(json!(0))),
        c("sign_of", json!([0]), Hand(json!(0.0))),
        c("sign_of", json!([-3]), Hand(json!(-1.0))),
        c("guard", json!([4.0]), Hand(json!(2.0))),
        c("guard", json!([-1.0]), Raises(ErrorKind::Runtime, "x must be positive")),
        c("asserted", json!([-1]), Raises(ErrorKind::Runtime, "AssertionError: x is negative")),
        c("asserted", json!([3]), Hand(json!(6))),
        c("fib", json!([20]), Hand(json!(6765))),
        c("even_odd", json!([7]), Hand(json!(false))),
        c("nested_sum", json!([3, 4]), Hand(json!(60))),
        c("let_block", json!([5]), Hand(json!(11))),
        // Arrays: column-major, 1-based, `end`, slices copy, arguments by reference.
        c("fill_matrix", json!([2, 3]), Hand(json!({"data": [[11.0, 12.0, 13.0], [21.0, 22.0, 23.0]], "dtype": "f64", "shape": [2, 3]}))),
        c("col_of", json!([mat, 2]), Hand(f64s(&[2.0, 4.0]))),
        c("row_of", json!([mat, 2]), Hand(f64s(&[3.0, 4.0]))),
        c("last_two", json!([[1, 2, 3, 4]]), Hand(i64s(&[3, 4]))),
        c("ends", json!([imat]), Hand(json!([6, 4, 3]))),
        c("linear_index", json!([imat, 2]), Hand(json!(4))),
        c("linear_index", json!([imat, 7]), Raises(ErrorKind::OutOfBounds, "BoundsError")),
        m("scale!", json!([[1.0, 2.0], 3.0]), Hand(Json::Null), 0, f64s(&[3.0, 6.0])),
        m("alias_write", json!([[1.0, 2.0]]), Hand(json!(100.0)), 0, f64s(&[100.0, 2.0])),
        m("slice_copies", json!([[1.0, 2.0]]), Hand(json!(1.0)), 0, f64s(&[1.0, 2.0])),
        c("view_sum", json!([mat, 2]), Hand(json!(6.0))),
        m("swap_ends!", json!([[1, 2, 3]]), Hand(i64s(&[3, 2, 1])), 0, i64s(&[3, 2, 1])),
        c("swap", json!([1, 5]), Hand(json!(4))),
        c("use_minmax", json!([[3.0, -1.0, 7.0]]), Hand(json!(8.0))),
        c("dims", json!([imat]), Hand(json!([23, 2, 6]))),
        c("gather", json!([[5.0, 6.0, 7.0]]), Hand(f64s(&[7.0, 5.0]))),
        c("mask", json!([[5.0, -6.0, 7.0]]), Hand(f64s(&[5.0, 7.0]))),
        c("builders", json!([3]), Hand(json!(13.5))),
        c(
            "literals",
            json!([]),
            Hand(
                json!([i64s(&[1, 2, 3]), {"data": [[1.5, 2.5]], "dtype": "f64", "shape": [1, 2]}, {"data": [[1, 2], [3, 4]], "dtype": "i64", "shape": [2, 2]}]),
            ),
        ),
        c("vcat_vectors", json!([[1.0], [2.0, 3.0]]), Hand(f64s(&[1.0, 2.0, 3.0]))),
        c("typed_empty", json!([]), Hand(json!(0))),
        c("undef_vector", json!([3]), Hand(f64s(&[0.5, 1.0, 1.5]))),
        c("bounds", json!([[1.0, 2.0], 3]), Raises(ErrorKind::OutOfBounds, "BoundsError: attempt to access `x` at index [3]")),
        c("bounds", json!([[1.0, 2.0], 0]), Raises(ErrorKind::OutOfBounds, "index [0]")),
        m("store_float!", json!([[1, 2]]), Raises(ErrorKind::Runtime, "InexactError"), 0, i64s(&[2, 2])),
        // Broadcasting.
        c("bcast", json!([[1.0, 2.0], [3.0, 4.0]]), Hand(f64s(&[7.0, 10.0]))),
        c("bcast", json!([[1, 2], 3]), Hand(i64s(&[7, 8]))),
        c("dotted_fn", json!([[0.0, 1.0]]), R("sin(c(0, 1)) + cos(c(0, 1))", 1e-15)),
        c("at_dot", json!([[1.0, 2.0]]), Hand(f64s(&[4.0, 10.0]))),
        m("in_place!", json!([[0.0, 0.0], [1.0, 2.0]]), Hand(f64s(&[3.0, 5.0])), 0, f64s(&[3.0, 5.0])),
        c("user_bcast", json!([[1, 2, 3]]), Hand(i64s(&[1, 4, 9]))),
        c("bad_bcast", json!([[1.0, 2.0], [1.0, 2.0, 3.0]]), Raises(ErrorKind::Unsupported, "extents differ")),
        c("eq_arrays", json!([[1, 2], [1, 2]]), Hand(json!(true))),
        c("eq_arrays", json!([[1, 2], [1, 2, 3]]), Hand(json!(false))),
        c("eq_arrays", json!([["nan"], ["nan"]]), Hand(json!(false))),
        // Comprehensions and generators.
        c("squares", json!([4]), Hand(i64s(&[1, 4, 9, 16]))),
        c("squares", json!([0]), Hand(i64s(&[]))),
        c("table", json!([2, 3]), Hand(json!({"data": [[11, 21, 31], [12, 22, 32]], "dtype": "i64", "shape": [2, 3]}))),
        c("gen_sum", json!([[1.0, 2.0, 0.5]]), R("sum(c(1, 2, 0.5)^2)", 0.0)),
        c("gen_any", json!([[1, 2, 3]]), Hand(json!(true))),
        c("gen_any", json!([[1, 2]]), Hand(json!(false))),
        c("gen_count", json!([[-1, 2, -3]]), Hand(json!(2))),
        // Library.
        c("reductions", json!([[1.5, 2.0, -3.0]]), Hand(json!([0.5, -9.0, 2.0, -3.0]))),
        c("reductions", json!([[1, 2, 3]]), Hand(json!([6, 6, 3, 1]))),
        c("reductions", json!([{"dtype": "f64", "shape": [0], "data": []}]), Raises(ErrorKind::Runtime, "empty collection")),
        c("col_sums", json!([mat]), Hand(json!({"data": [[4.0, 6.0]], "dtype": "f64", "shape": [1, 2]}))),
        c("bool_sum", json!([[1.0, 2.0, 3.0]]), Hand(json!(2))),
        c("math1", json!([2.0]), R("list(sqrt(2), exp(2), log(2), sin(2), cos(2), atan(2), 2)", 1e-15)),
        c("two_arg", json!([3.0, 4.0]), R("list(atan2(3, 4), 5, 3, 4)", 1e-15)),
        // max(-0.0, 0.0) === 0.0 and min(0.0, -0.0) === -0.0 in either order; clamp(-0.0, 0.0, 1.0) === -0.0.
        c("zero_ties", json!([-0.0, 0.0]), Hand(json!(["inf", "-inf", "-inf"]))),
        c("zero_ties", json!([0.0, -0.0]), Hand(json!(["inf", "-inf", "inf"]))),
        c("conversions", json!([2.5]), Hand(json!([2, 2.0, 2, 3, 2, 3.0]))),
        c("conversions", json!([-3.5]), Hand(json!([-4, -4.0, -4, -3, -3, 3.0]))),
        c("to_int", json!([3.0]), Hand(json!(3))),
        c("to_int", json!([2.5]), Raises(ErrorKind::Runtime, "InexactError")),
        c("to_int", json!([1e19]), Raises(ErrorKind::Runtime, "InexactError")),
        c("domain_sqrt", json!([-1.0]), Raises(ErrorKind::Runtime, "DomainError")),
        c("domain_sqrt", json!([-0.0]), Hand(json!(-0.0))),
        c("domain_log", json!([-1]), Raises(ErrorKind::Runtime, "DomainError")),
        c("domain_log", json!([0]), Hand(json!("-inf"))),
        c("mat_mul", json!([mat, [[0.0, 1.0], [1.0, 0.0]]]), Hand(json!({"data": [[2.0, 1.0], [4.0, 3.0]], "dtype": "f64", "shape": [2, 2]}))),
        c("mat_mul", json!([[[1.0, 2.0, 3.0]], mat]), Raises(ErrorKind::ShapeMismatch, "DimensionMismatch")),
        c("mat_vec", json!([[[1, 2], [3, 4]], [1, 1]]), Hand(i64s(&[3, 7]))),
        c("vdot", json!([[1.0, 2.0], [3.0, 4.0]]), Hand(json!(11.0))),
        c("transposed", json!([imat]), Hand(json!({"data": [[1, 4], [2, 5], [3, 6]], "dtype": "i64", "shape": [3, 2]}))),
        c("row_vector", json!([[1.0, 2.0]]), Hand(json!({"data": [[1.0, 2.0]], "dtype": "f64", "shape": [1, 2]}))),
        c("cumulative", json!([[1, 2, 3]]), Hand(json!([i64s(&[1, 3, 6]), i64s(&[1, 2, 6])]))),
        c(
            "complex_ops",
            json!([{"re": 1.0, "im": 2.0}, {"re": 3.0, "im": -1.0}]),
            Hand(json!([{"re": 5.0, "im": 5.0}, {"re": 0.1, "im": 0.7}, 2.23606797749979, 1.0, 4.0])),
        ),
        c("complex_build", json!([1.0, 2]), Hand(json!({"re": 2.0, "im": 4.0}))),
        c("mandel", json!([{"re": -0.5, "im": 0.5}]), Hand(json!(80))),
        c("mandel", json!([{"re": 1.0, "im": 1.0}]), Hand(json!(1))),
        c("uses_consts", json!([2]), Hand(json!(15.0))),
        c("typed_arg", json!([1]), Hand(json!(2))),
        c("typed_arg", json!([1.0]), Raises(ErrorKind::Type, "MethodError")),
        c("limits", json!([]), Hand(json!([9223372036854775807_i64, -9223372036854775808_i64]))),
        c("rev", json!([[1, 2, 3]]), Hand(i64s(&[3, 2, 1]))),
        c("enum_sum", json!([[1.0, 2.0]]), Hand(json!(5.0))),
        c("zip_dot", json!([[1.0, 2.0], [3.0, 4.0, 5.0]]), Hand(json!(11.0))),
        // Parallel loops and GPU sections give the serial answer.
        m("par_square!", json!([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]), Hand(f64s(&[1.0, 4.0, 9.0])), 0, f64s(&[1.0, 4.0, 9.0])),
        c("gpu_scale", json!([[1.0, 2.0], 3.0]), Hand(f64s(&[3.0, 6.0]))),
        // More loop forms and hints.
        c("axes_sum", json!([[[1.0, 2.0], [3.0, 4.0]]]), Hand(json!(17.0))),
        c("simd_sum", json!([[1, 2, 3, 9223372036854775807_i64]]), Hand(json!(-9223372036854775803_i64))),
        c("fast_norm2", json!([[3.0, 4.0]]), Hand(json!(5.0))),
        // Iterating an array reads it as it is at each turn.
        m("iter_sees_writes", json!([[1.0, 2.0, 3.0]]), Hand(json!(103.0)), 0, f64s(&[1.0, 2.0, 100.0])),
        // ComplexF64 as a constructor: the real arguments converted to Float64.
        c("to_complex", json!([2]), Hand(json!({"re": 2.0, "im": 0.0}))), // ComplexF64(2) == 2.0 + 0.0im
        c("to_complex", json!([2.5]), Hand(json!({"re": 2.5, "im": 0.0}))),
        c("to_complex", json!([true]), Hand(json!({"re": 1.0, "im": 0.0}))), // true converts to 1.0
        c("to_complex", json!([{"re": 1.0, "im": -2.0}]), Hand(json!({"re": 1.0, "im": -2.0}))),
        c("complex_pair", json!([1, 2]), Hand(json!({"re": 1.0, "im": 2.0}))), // ComplexF64(1, 2) == 1.0 + 2.0im
        c("complex_pair", json!([1.5, -2]), Hand(json!({"re": 1.5, "im": -2.0}))),
        // z = 3 + 4im: real 3, imag 4, abs sqrt(9 + 16) = 5, conj 3 - 4im.
        c("complex_parts", json!([{"re": 3.0, "im": 4.0}]), Hand(json!([3.0, 4.0, 5.0, {"re": 3.0, "im": -4.0}]))),
        c("complex_parts", json!([3.0]), Raises(ErrorKind::Type, "MethodError")), // a Float64 is not a ComplexF64
        // |1 + 2im|^2 + |3 - 1im|^2 = (1 + 4) + (9 + 1) = 15.
        c("complex_norm2", json!([c128s(&[(1.0, 2.0), (3.0, -1.0)])]), Hand(json!(15.0))),
        c("complex_norm2", json!([[1.0, 2.0]]), Raises(ErrorKind::Type, "MethodError")), // Vector{Float64} is not a Vector{ComplexF64}
        // zeros(ComplexF64, 3), z[k] = k - k*im, then z[1] = 2.5 stores 2.5 + 0.0im.
        c("complex_ramp", json!([3]), Hand(c128s(&[(2.5, 0.0), (2.0, -2.0), (3.0, -3.0)]))),
        c("complex_ramp", json!([0]), Raises(ErrorKind::OutOfBounds, "BoundsError")), // z[1] of an empty vector
        c("complex_result", json!([3]), Hand(json!({"re": 6.0, "im": 0.0}))), // 2 * 3 = 6, converted by `::ComplexF64`
        c("typed_complex", json!([]), Hand(c128s(&[(1.0, 0.0), (2.5, 0.0)]))),
        // Rows [1+2im 3-1im; 0+1im 5+5im]: A[1, 2] + A[2, 1] = (3 - 1im) + (0 + 1im) = 3 + 0im.
        c(
            "complex_corner",
            json!([{"dtype": "c128", "shape": [2, 2], "data": [[{"re": 1.0, "im": 2.0}, {"re": 3.0, "im": -1.0}], [{"re": 0.0, "im": 1.0}, {"re": 5.0, "im": 5.0}]]}]),
            Hand(json!({"re": 3.0, "im": 0.0})),
        ),
        c("complex_corner", json!([[[1.0, 2.0], [3.0, 4.0]]]), Raises(ErrorKind::Type, "MethodError")),
        // A store converts to the array's element type: 3 + 0im into a Vector{Float64} is 3.0,
        // 1 + 2im an InexactError (the array unchanged); 2 into a Vector{ComplexF64} is 2.0 + 0.0im.
        m("store_complex!", json!([[1.0, 2.0], {"re": 3.0, "im": 0.0}]), Hand(Json::Null), 0, f64s(&[3.0, 2.0])),
        m("store_complex!", json!([[1.0, 2.0], {"re": 1.0, "im": 2.0}]), Raises(ErrorKind::Runtime, "InexactError"), 0, f64s(&[1.0, 2.0])),
        m("store_complex!", json!([c128s(&[(0.0, 0.0), (0.0, 1.0)]), 2]), Hand(Json::Null), 0, c128s(&[(2.0, 0.0), (0.0, 1.0)])),
    ]
}

/// Run every `R` expression in one Rscript process: each value as JSON.
fn r_values(cases: &[Case]) -> HashMap<usize, Json> {
    // Numbers in 17 significant digits (round-trip), non-finite ones as strings.
    let mut script = String::from(
        "options(warn = 2)
num <- function(v) ifelse(is.finite(v), sprintf('%.17g', v), paste0('\"', tolower(format(v)), '\"'))
tojs <- function(x) if (is.list(x)) paste0('[', paste(sapply(x, tojs), collapse = ','), ']') else if (length(x) == 1) num(x) else paste0('[', paste(num(x), collapse = ','), ']')
",
    );
    for (i, c) in cases.iter().enumerate() {
        if let R(expr, _) = c.expect {
            script.push_str(&format!("cat('CASE {i} ', tojs({expr}), '\\n', sep = '')\n"));
        }
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_julia_{}.R", std::process::id()));
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("Rscript").arg("--vanilla").arg(&path).output().expect("Rscript runs (R is part of the test setup)");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "Rscript failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("CASE "))
        .map(|l| {
            let (id, v) = l.split_once(' ').unwrap();
            (id.parse().unwrap(), serde_json::from_str(v).unwrap())
        })
        .collect()
}

fn number(j: &Json) -> Option<f64> {
    match j {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => match s.as_str() {
            "nan" | "NaN" => Some(f64::NAN),
            "inf" | "Inf" => Some(f64::INFINITY),
            "-inf" | "-Inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// `got` (our printed results) equals `want`: exactly (number kinds, dtypes, shapes,
/// the sign of zero) when `tol` is None; within `tol` relative, R's nested lists
/// against our arrays' data, when Some.
fn same(got: &Json, want: &Json, tol: Option<f64>) -> bool {
    if let (Json::Object(g), Some(t)) = (got, tol) {
        if let Some(data) = g.get("data") {
            if !want.is_object() {
                return same(data, want, Some(t));
            }
        }
    }
    match (got, want) {
        (Json::Object(g), Json::Object(w)) => g.len() == w.len() && g.iter().all(|(k, v)| w.get(k).is_some_and(|x| same(v, x, tol))),
        (Json::Array(g), Json::Array(w)) => g.len() == w.len() && g.iter().zip(w).all(|(a, b)| same(a, b, tol)),
        (Json::Array(g), w) if g.len() == 1 && tol.is_some() => same(&g[0], w, tol),
        (Json::Bool(a), Json::Bool(b)) => a == b,
        (Json::Null, Json::Null) => true,
        (Json::String(a), Json::String(b)) if number(got).is_none() => a == b,
        _ => match (number(got), number(want)) {
            (Some(a), Some(b)) => match tol {
                None => {
                    let kinds = !matches!((got, want), (Json::Number(x), Json::Number(y)) if x.is_f64() != y.is_f64());
                    kinds && ((a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative()))
                }
                Some(t) => (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= t * a.abs().max(b.abs()),
            },
            _ => false,
        },
    }
}

#[test]
fn julia_functions_give_julias_answers_on_every_backend() {
    let cases = cases();
    assert!(cases.len() >= 60, "issue 17 asks for at least 60 run cases");
    let r = r_values(&cases);
    let backends: Vec<Backend> = [Backend::Interp, Backend::Cpu, Backend::CpuPar].into_iter().filter(|b| b.exists()).collect();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, c) in cases.iter().enumerate() {
        let args = c.args.as_array().unwrap();
        for &b in &backends {
            runs += 1;
            let label = format!("{}({}) on {b}", c.func, c.args);
            let (m, values) = match julia::compile_for_json(SOURCE, c.func, args) {
                Ok(x) => x,
                Err(e) => {
                    match c.expect {
                        Raises(kind, words) if e.kind == kind && e.message.contains(words) => {}
                        _ => failures.push(format!("{label}: does not compile: {e}")),
                    }
                    break;
                }
            };
            let result = backend::execute(b, &m, &julia::entry_name(c.func), values.clone()).map_err(julia::explain_error);
            match (&c.expect, result) {
                (Hand(want), Ok(got)) => {
                    let got = backend::results_to_json(&got);
                    if !same(&got, want, None) {
                        failures.push(format!("{label}: {got}, Julia gives {want}"));
                    }
                }
                (R(expr, tol), Ok(got)) => {
                    let got = backend::results_to_json(&got);
                    let want = &r[&i];
                    if !same(&got, want, Some(*tol)) {
                        failures.push(format!("{label}: {got}, R's `{expr}` gives {want}"));
                    }
                }
                (Raises(kind, words), Err(e)) => {
                    if e.kind != *kind || !e.to_string().contains(words) {
                        failures.push(format!("{label}: error {e}, expected a {} containing `{words}`", kind.name()));
                    }
                }
                (Raises(kind, words), Ok(got)) => {
                    failures.push(format!("{label}: {}, expected a {} containing `{words}`", backend::results_to_json(&got), kind.name()))
                }
                (_, Err(e)) => failures.push(format!("{label}: error {e}")),
            }
            if let Some((k, want)) = &c.after {
                let got = values[*k].to_json();
                if !same(&got, want, None) {
                    failures.push(format!("{label}: argument {} is {got} after the call, Julia's is {want}", k + 1));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} runs differ from Julia:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{} cases, {runs} runs on {} backend(s)", cases.len(), backends.len());
}
