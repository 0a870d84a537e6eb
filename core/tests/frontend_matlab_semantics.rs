//! The MATLAB front end against Octave itself: every call below runs in Octave
//! (`octave-cli --no-history`, during this test, on the functions of
//! tests/frontend_matlab/cases.m) and, compiled by the front end, on every backend this
//! build has; class, dims and values must be equal (floats bit for bit unless a case
//! states a tolerance: Octave calls BLAS and its own complex division there).
//! Where Octave raises an error, compiled code must raise one; where Octave answers
//! something compiled code leaves to Octave (broadcasting, a complex result of `sqrt`,
//! a linear solve), compiled code must raise `unsupported`, which makes the Octave
//! adapter run the function in Octave.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

#[path = "frontend_matlab/harness.rs"]
mod harness;

use harness::{Case, Expect::*};
use serde_json::json;

const SOURCE: &str = include_str!("frontend_matlab/cases.m");

fn i32s(v: i32) -> serde_json::Value {
    json!({"dtype": "i32", "data": v})
}

fn cases() -> Vec<Case> {
    let c = |func, args: serde_json::Value, expect| Case { func, nout: 1, args, expect };
    let c2 = |func, nout, args: serde_json::Value, expect| Case { func, nout, args, expect };
    let m34 = json!([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]);
    let sq = json!([[1.5, -2.0], [0.25, 4.0]]);
    let col = json!([[1.0], [2.0], [3.0]]);
    let empty = json!({"dtype": "f64", "shape": [0, 0], "data": []});
    vec![
        c("sumsq", json!([[1.0, 2.0, 3.5]]), Same),
        c("sumsq", json!([empty.clone()]), Same),
        c("sumsq", json!([2.0]), Same),
        c("fib", json!([15.0]), Same),
        c2("sum_prod", 2, json!([[1.5, 2.0, -3.0]]), Same),
        c("sum_prod", json!([[1.5, 2.0, -3.0]]), Same),
        c("with_nargin", json!([2.0]), Same),
        c("with_nargin", json!([2.0, 3.0]), Same),
        c2("three", 3, json!([1.0]), Same),
        c("uses_three", json!([1.0]), Same),
        c("count_while", json!([27.0]), Same),
        c("branches", json!([-2.0]), Same),
        c("branches", json!([0.0]), Same),
        c("branches", json!([5.0]), Same),
        c("branches", json!([50.0]), Same),
        c("switcher", json!([1.0]), Same),
        c("switcher", json!([3.0]), Same),
        c("switcher", json!([7.0]), Same),
        c("breaks", json!([10.0]), Same),
        c("early", json!([[1.0, 2.0, -3.0, -4.0]]), Same),
        c("early", json!([[1.0, 2.0]]), Same),
        c("literals", json!([3.0, 4.0]), Same),
        c("ranges", json!([4.0]), Same),
        c("ranges", json!([0.0]), Same),
        c("frac_range", json!([0.0, 0.1, 1.0]), Same),
        c("frac_range", json!([1.8, 0.05, 1.9]), Same),
        c("frac_range", json!([1.0, 1.0, 2.9999999999999996]), Same),
        c("frac_range", json!([5.0, -1.5, 0.0]), Same),
        c("frac_range", json!([1.0, 0.0, 3.0]), Same),
        c("frac_range", json!([-5.0, 1.0, -0.0]), Same),
        c("frac_loop", json!([]), Same),
        c("ends", json!([[1.0, 2.0, 3.0]]), Same),
        c("ends", json!([col.clone()]), Same),
        c("row_of", json!([m34.clone(), 2.0]), Same),
        c("col_of", json!([m34.clone(), 3.0]), Same),
        c("flat_of", json!([m34.clone()]), Same),
        c("block_of", json!([m34.clone()]), Same),
        c("linear_slice", json!([[5.0, 6.0, 7.0, 8.0, 9.0]]), Same),
        c("linear_slice", json!([[[5.0], [6.0], [7.0], [8.0]]]), Same),
        c("linear_slice", json!([m34.clone()]), Same),
        c("gather", json!([[5.0, 6.0, 7.0], [3.0, 1.0]]), Same),
        c("gather", json!([[5.0, 6.0, 7.0], [[3.0], [1.0]]]), Same),
        c("gather", json!([m34.clone(), [[1.0, 2.0], [3.0, 4.0]]]), Same),
        c("gather", json!([[5.0, 6.0, 7.0], 1.5]), Error),
        c("gather", json!([[5.0, 6.0, 7.0], 4.0]), Error),
        c("gather", json!([[5.0, 6.0, 7.0], 0.0]), Error),
        c("masked", json!([[1.0, 5.0, 2.0, 7.0]]), Same),
        c("masked", json!([m34.clone()]), Same),
        c("transposes", json!([sq.clone()]), Same),
        c("transposes", json!([[1.0, 2.0, 3.0]]), Same),
        c("elementwise", json!([sq.clone(), sq.clone()]), Same),
        c("mm", json!([sq.clone(), sq.clone()]), Same),
        c("mm", json!([m34.clone(), [[1.0], [0.0], [2.0], [1.0]]]), Same),
        c("mm", json!([sq.clone(), m34.clone()]), Error),
        c("mm", json!([[[2.0]], m34.clone()]), Same),
        c("scalar_expand", json!([sq.clone(), 2.0]), Same),
        c("scalar_expand", json!([sq.clone(), [[2.0]]]), Same),
        c("cmp", json!([[1.0, 2.0, 3.0], 2.0]), Same),
        c("shortcircuit", json!([[1.0, -1.0], 3.0]), Same),
        c("shortcircuit", json!([[1.0, -1.0], 2.0]), Same),
        c("logic_ops", json!([[1.0, 0.0, 1.0], [0.0, 0.0, 5.0]]), Same),
        c("logic_ops", json!([[1.0, "nan"], [0.0, 1.0]]), Error),
        c("cplx", json!([1.5, -2.0]), Same),
        c("cabs", json!([3.0]), Same),
        c("builders", json!([3.0]), Same),
        c("builders", json!([2.5]), Error),
        c("sizes", json!([m34.clone()]), Same),
        c("sizes", json!([empty.clone()]), Same),
        c("sizes", json!([4.0]), Same),
        c("reductions", json!([[1.5, 2.5, -3.0, 4.25]]), Same),
        c("reductions", json!([col.clone()]), Same),
        c("reductions", json!([m34.clone()]), Fallback),
        c("cumulative", json!([[0.1, 0.2, 0.3, 0.4]]), Same),
        c("cumulative", json!([col.clone()]), Same),
        c("matrix_sums", json!([m34.clone()]), Same),
        c("matrix_sums", json!([[1.0, "nan", 3.0]]), Same),
        c("col_sums", json!([m34.clone()]), Same),
        c("row_sums", json!([m34.clone()]), Same),
        c2("argmax", 2, json!([[3.0, 9.0, 2.0, 9.0]]), Same),
        c2("argmax", 2, json!([["nan", 1.0, "nan", 4.0]]), Same),
        c2("argmax", 2, json!([["nan", "nan"]]), Same),
        c("maths", json!([[0.5, 1.25, 2.0, -2.5, -7.0, 2.5, -0.5]]), Near(1e-15)),
        c("mods", json!([7.0, 3.0]), Same),
        c("mods", json!([-7.0, 3.0]), Same),
        c("mods", json!([7.0, -3.0]), Same),
        c("mods", json!([5.0, 0.0]), Same),
        c("mods", json!([5.3, 0.1]), Same),
        c("mods", json!([-0.0, 2.0]), Same),
        c("mods", json!([[1.0, 2.5, -3.5, 10.0], 1.5]), Same),
        c("rounding", json!([[0.5, 1.5, 2.5, -0.5, -1.5, 0.49999999999999994, -2.675]]), Same),
        c("nrm", json!([[3.0, -4.0, 12.0]]), Same),
        c("nrm", json!([[1e200, 1e200]]), Same),
        c("nrm", json!([[0.1, 0.2, 0.7, 1e-3]]), Same),
        c("dotp", json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), Same),
        c("dotp", json!([[1.0, 2.0, 3.0], [4.0, 5.0]]), Error),
        c("finds", json!([[0.0, 2.0, 3.0, 1.0]]), Same),
        c("finds", json!([col.clone()]), Same),
        c("finds", json!([m34.clone()]), Same),
        c("tiles", json!([sq.clone()]), Same),
        c("tiles", json!([2.0]), Same),
        c("reshaped", json!([m34.clone()]), Same),
        c("reshaped", json!([[1.0, 2.0, 3.0]]), Error),
        c("lin", json!([0.0, 1.0, 7.0]), Same),
        c("lin", json!([-1.0, 1.0, 5.0]), Same),
        c("lin", json!([0.0, 1.0, 1.0]), Same),
        c("lin", json!([0.3, 2.9, 10.0]), Same),
        c("isat", json!([100.0, 2.0]), Same),
        c("isat", json!([2e9, 2.0]), Same),
        c("isat", json!([-2e9, 3.0]), Same),
        c("isat", json!([7.0, 0.5]), Same),
        c("idiv", json!([7.0, 2.0]), Same),
        c("idiv", json!([-7.0, 2.0]), Same),
        c("idiv", json!([7.0, 0.0]), Same),
        c("idiv", json!([0.0, 0.0]), Same),
        c("iconv", json!([[2.5, -2.5, 1e10, "nan", -1e10, 3.49]]), Same),
        c("imix", json!([i32s(3)]), Same),
        c("imix", json!([i32s(2147483647)]), Same),
        c("grow", json!([5.0]), Same),
        c("grow", json!([0.0]), Same),
        c("grow2", json!([3.0]), Same),
        c("grow_col", json!([1.0]), Same),
        c("modify_arg", json!([[1.0, 2.0]]), Same),
        c("caller_keeps", json!([[1.0, 2.0]]), Same),
        c("alias_copy", json!([[1.0, 2.0, 3.0]]), Same),
        c("par_square", json!([[1.0, 2.0, 3.0]]), Same),
        c("par_square", json!([m34.clone()]), Same),
        c("gpu_scale", json!([[1.0, 2.0, 3.0], 0.5]), Same),
        c("loop_columns", json!([[1.0, 2.0, 3.0]]), Same),
        c("loop_columns", json!([col.clone()]), Fallback),
        c("loop_columns", json!([m34.clone()]), Fallback),
        c("loop_columns", json!([5.0]), Same),
        c("loop_columns", json!([{"dtype": "f64", "shape": [1, 0], "data": []}]), Same),
        c2("col_total", 2, json!([m34.clone()]), Same),
        c2("col_total", 2, json!([col.clone()]), Same),
        c2("col_total", 2, json!([[1.0, 2.0, 3.0]]), Same),
        c2("col_total", 2, json!([4.0]), Same),
        c2("col_total", 2, json!([{"dtype": "f64", "shape": [0, 3], "data": []}]), Same),
        c2("col_total", 2, json!([{"dtype": "f64", "shape": [2, 0], "data": []}]), Same),
        c2("col_total", 2, json!([empty.clone()]), Same),
        c("col_norms", json!([m34.clone()]), Same),
        c("col_norms", json!([[3.0, -4.0]]), Same),
        c("col_snapshot", json!([m34.clone()]), Same),
        c("col_nested", json!([sq.clone(), m34.clone()]), Error),
        c("col_nested", json!([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.5], [-1.0, 2.0]]]), Same),
        c("last_index", json!([3.0]), Same),
        c("last_index", json!([0.0]), Fallback),
        c("last_elem", json!([[1.0, 2.0]]), Same),
        c("last_elem", json!([{"dtype": "f64", "shape": [1, 0], "data": []}]), Fallback),
        c("do_until", json!([3.0]), Same),
        c("opassign", json!([[1.0, 2.0]]), Same),
        c("logical_idx_assign", json!([[1.0, -2.0, 3.0, -4.0]]), Same),
        c("slice_assign", json!([m34.clone(), [9.0, 8.0, 7.0, 6.0]]), Same),
        c("slice_assign", json!([m34.clone(), [9.0, 8.0]]), Error),
        c("nested_calls", json!([[1.0, 2.0]]), Same),
        c("heat", json!([[[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 1.0, 0.0], [0.0, 3.0, 9.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]], 3.0]), Same),
        c("mandel", json!([8.0, 30.0]), Same),
        c("sqrt_neg", json!([[4.0, 9.0]]), Same),
        c("sqrt_neg", json!([[4.0, -9.0]]), Fallback),
        c("broadcast", json!([[1.0, 2.0, 3.0], [[1.0], [2.0]]]), Fallback),
        c("broadcast", json!([[1.0, 2.0, 3.0], [1.0, 2.0]]), Error),
        c("broadcast", json!([[1.0, 2.0, 3.0], [[10.0]]]), Same),
        c("bad_index", json!([[1.0, 2.0], 3.0]), Error),
        c("user_error", json!([4.0]), Same),
        c("user_error", json!([-4.0]), SameError),
        c("mat_solve", json!([sq.clone(), [[1.0], [2.0]]]), Fallback),
        c("mat_solve", json!([2.0, [[1.0], [2.0]]]), Same),
        c("scalar_idx", json!([5.0]), Same),
        c("scalar_idx", json!([[5.0, 6.0]]), Same),
        c("bool_ops", json!([[1.0, 0.0, 2.0]]), Same),
        c("trues", json!([3.0]), Same),
        c("neg_range", json!([7.0]), Same),
        c("empty_loop", json!([0.0]), Same),
        c("empty_loop", json!([-3.0]), Same),
        c("mpow", json!([3.0]), Same),
        c("mpow", json!([sq.clone()]), Fallback),
        c("neg_pow", json!([[4.0, 2.0]]), Same),
        c("neg_pow", json!([[4.0, -2.0]]), Fallback),
        c("store_past_end", json!([3.0]), Same),
        c("store_past_end", json!([5.0]), Fallback),
        c("loopvar_class", json!([5.0]), Same),
        c("i64ops", json!([7.0, 2.0]), Same),
        c("i64ops", json!([-7.0, 2.0]), Same),
        c("i64ops", json!([5.0, -2.0]), Same),
        c("i64ops", json!([5.0, 0.0]), Same),
        c("i64ops", json!([-5.0, 0.0]), Same),
        c("i64ops", json!([0.0, 0.0]), Same),
        c("i64ops", json!([-9.2e18, 3.0]), Same),
        c("i64ops", json!([3e9, 4e9]), Same),
        c("i64mixed", json!([7.0, 2.5]), Same),
        c("i64mixed", json!([-7.0, -2.5]), Same),
        c("i64mixed", json!([5.0, "nan"]), Same),
        c("i64mixed", json!([5.0, "inf"]), Same),
        c("i64mixed", json!([-5.0, 1e19]), Same),
        c("i64mixed", json!([0.0, 3.0]), Same),
        c("i64big", json!([1.0]), Same),
        c("i64big", json!([3.0]), Same),
        c("i64cmp", json!([1.0]), Same),
        c("i64cmp", json!([0.0]), Same),
        c("i64mul", json!([7.0, 3.0]), Same),
        c("i64mul", json!([-7.0, 0.5]), Same),
        c("i64mul", json!([7.0, "nan"]), Same),
        c("i64mul", json!([7.0, "-inf"]), Same),
        c("i64mul", json!([0.0, "inf"]), Same),
        c("i64mul", json!([7.0, 0.1]), Fallback),
        c("i64mul", json!([7.0, -0.5]), Fallback),
        c("i64mul", json!([[1.0, 2.0, 3.0], 1e20]), Same),
        c("i64mul", json!([[-1.0, 0.0, 3.0], -9.3e18]), Same),
        c("i64mul", json!([-1.0, -9.223372036854775808e18]), Same),
        c("i64mul", json!([[1.0, 2.0, 3.0], [2.0, 0.5, -3.0]]), Same),
        c("i64mul", json!([[1.0, 2.0, 3.0], [2.0, 0.25, -3.0]]), Fallback),
        c("i64div", json!([7.0, 2.0]), Same),
        c("i64div", json!([7.0, 0.5]), Same),
        c("i64div", json!([7.0, 0.25]), Same),
        c("i64div", json!([7.0, -2.0]), Same),
        c("i64div", json!([7.0, 0.3]), Fallback),
        c("i64div", json!([7.0, 0.0]), Same),
        c("i64div", json!([-7.0, 0.0]), Same),
        c("i64div", json!([7.0, "nan"]), Same),
        c("i64div", json!([7.0, "inf"]), Same),
        c("i64rdiv", json!([7.0, 2.0]), Same),
        c("i64rdiv", json!([-7.0, 2.0]), Same),
        c("i64rdiv", json!([5.0, 0.0]), Same),
        c("i64rdiv", json!([[1.0, 2.5], 2.0]), Same),
        c("i64arr", json!([{"dtype": "i64", "data": [1, -2, 3]}, 0.5]), Same),
        c("i64arr", json!([{"dtype": "i64", "data": [[1, -2], [9007199254740992_i64, 4]]}, 1.0]), Error),
        c("i64loop", json!([10.0]), Same),
        c("i64loop", json!([0.0]), Same),
    ]
}

#[test]
fn compiled_matlab_functions_agree_with_octave() {
    let cases = cases();
    let report = harness::check(SOURCE, &cases);
    eprintln!("{}", report.summary);
    assert!(report.failures.is_empty(), "{} failure(s):\n{}", report.failures.len(), report.failures.join("\n"));
    assert_eq!(report.passed_interp, cases.len(), "every case runs on the interpreter");
}

const INT_CLASSES: &str = include_str!("frontend_matlab/intclass.m");

/// int8, int16, uint8, uint16, uint32 against Octave: results' classes, saturation at
/// both ends of each class, rounding of quotients and conversions, a written array.
#[test]
fn integer_classes_agree_with_octave() {
    let c4 = |func, args: serde_json::Value| Case { func, nout: 4, args, expect: Same };
    let mut cases = Vec::new();
    // (class, x, y) for int8, int16, uint8, uint16, uint32: past the top, past the
    // bottom, a quotient of .5, a negative divisor, division by zero.
    for (f, lo, hi) in [("arith_int8", -128.0, 127.0), ("arith_int16", -32768.0, 32767.0), ("arith_uint8", 0.0, 255.0), ("arith_uint16", 0.0, 65535.0), ("arith_uint32", 0.0, 4294967295.0)] {
        cases.push(c4(f, json!([hi, 2.0])));
        cases.push(c4(f, json!([lo, 2.0])));
        cases.push(c4(f, json!([hi - 10.0, -1.0])));
        cases.push(c4(f, json!([lo + 3.0, 1.5])));
        cases.push(c4(f, json!([7.0, 2.0])));
        cases.push(c4(f, json!([-7.0, 0.0])));
        cases.push(c4(f, json!([0.0, 0.0])));
        cases.push(c4(f, json!([[[5.0, 250.0], [-3.5, 1e10]], 0.5])));
    }
    let c = |func, nout, args: serde_json::Value, expect| Case { func, nout, args, expect };
    cases.extend([
        c("iconv", 5, json!([3.5]), Same),
        c("iconv", 5, json!([-3.0]), Same),
        c("iconv", 5, json!(["nan"]), Same),
        c("iconv", 5, json!([[2.5, -2.5, -0.5, 300.0, -1e10, 1e10, 65535.5]]), Same),
        c("iconv", 5, json!(["inf"]), Same),
        c("iconv", 5, json!(["-inf"]), Same),
        c("iwrite", 2, json!([[1.0, 2.0, 3.0], 2.0]), Same),
        c("iwrite", 2, json!([[-100.0, 50.0], 2.0]), Same),
        c("icmp", 1, json!([[1.0, 300.0, -4.0], 254.5]), Same),
        c("imix", 1, json!([1.0, 2.0]), Fallback),
        c("ipow", 1, json!([3.0]), Fallback),
        c("isum", 1, json!([[200.0, 100.0]]), Fallback),
    ]);
    let report = harness::check(INT_CLASSES, &cases);
    eprintln!("{}", report.summary);
    assert!(report.failures.is_empty(), "{} failure(s):\n{}", report.failures.len(), report.failures.join("\n"));
    assert_eq!(report.passed_interp, cases.len(), "every case runs on the interpreter");
}
