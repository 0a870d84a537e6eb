//! Snapshot tests of the MATLAB front end: MATLAB source (tests/frontend_matlab/cases.m)
//! to VRIR text, one snapshot per function and argument types (core/tests/snapshots/,
//! named `frontend_matlab__*`). Each module must pass the verifier and read back from
//! its printed form; a change in what the front end emits shows up as a reviewable diff.

use serde_json::{json, Value as Json};
use velociraptor::frontend::matlab;
use velociraptor::vrir::{text, verify};

const SOURCE: &str = include_str!("frontend_matlab/cases.m");

#[test]
fn matlab_functions_lower_to_the_expected_vrir() {
    let row = json!([1.0, 2.0]);
    let mat = json!([[1.0, 2.0], [3.0, 4.0]]);
    let int = json!({"dtype": "i32", "data": 3});
    let cases: Vec<(&str, &str, usize, Json)> = vec![
        ("sumsq", "sumsq", 1, json!([row])),
        ("fib", "fib", 1, json!([1.0])),
        ("sum_prod", "sum_prod", 2, json!([row])),
        ("sum_prod_nargout1", "sum_prod", 1, json!([row])),
        ("with_nargin_1", "with_nargin", 1, json!([1.0])),
        ("uses_three", "uses_three", 1, json!([1.0])),
        ("count_while", "count_while", 1, json!([1.0])),
        ("switcher", "switcher", 1, json!([1.0])),
        ("breaks", "breaks", 1, json!([1.0])),
        ("early", "early", 1, json!([row])),
        ("literals", "literals", 1, json!([1.0, 2.0])),
        ("frac_loop", "frac_loop", 1, json!([])),
        ("ends", "ends", 1, json!([row])),
        ("row_of", "row_of", 1, json!([mat, 1.0])),
        ("flat_of", "flat_of", 1, json!([mat])),
        ("linear_slice", "linear_slice", 1, json!([row])),
        ("masked", "masked", 1, json!([row])),
        ("elementwise", "elementwise", 1, json!([mat, mat])),
        ("mm", "mm", 1, json!([mat, mat])),
        ("cmp", "cmp", 1, json!([row, 1.0])),
        ("shortcircuit", "shortcircuit", 1, json!([row, 1.0])),
        ("cplx", "cplx", 1, json!([1.0, 2.0])),
        ("reductions", "reductions", 1, json!([row])),
        ("matrix_sums", "matrix_sums", 1, json!([mat])),
        ("mods", "mods", 1, json!([1.0, 2.0])),
        ("isat", "isat", 1, json!([1.0, 2.0])),
        ("imix", "imix", 1, json!([int])),
        ("grow", "grow", 1, json!([3.0])),
        ("grow2", "grow2", 1, json!([3.0])),
        ("modify_arg", "modify_arg", 1, json!([row])),
        ("par_square", "par_square", 1, json!([row])),
        ("gpu_scale", "gpu_scale", 1, json!([row, 1.0])),
        ("loop_columns", "loop_columns", 1, json!([row])),
        ("col_total", "col_total", 2, json!([mat])),
        ("last_index", "last_index", 1, json!([3.0])),
        ("i64mixed", "i64mixed", 1, json!([1.0, 2.0])),
        ("i64arr", "i64arr", 1, json!([{"dtype": "i64", "data": [1, 2]}, 1.0])),
        ("heat", "heat", 1, json!([mat, 1.0])),
        ("mandel", "mandel", 1, json!([2.0, 3.0])),
        ("user_error", "user_error", 1, json!([1.0])),
    ];
    for (snapshot, func, nout, args) in cases {
        let types = args.as_array().unwrap().iter().map(matlab::json_arg_type).collect::<Result<Vec<_>, _>>().unwrap();
        let m = matlab::compile_outputs(SOURCE, func, types, Some(nout)).unwrap_or_else(|e| panic!("{func}: {e}"));
        verify::verify_module(&m).unwrap_or_else(|e| panic!("{func}: the front end's output fails the verifier: {e}"));
        let printed = text::print_module(&m);
        assert_eq!(text::print_module(&text::parse_module(&printed).unwrap()), printed, "{func}: printed form reads back");
        insta::assert_snapshot!(format!("frontend_matlab__{snapshot}"), printed);
    }
}
