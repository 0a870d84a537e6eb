//! Snapshot tests of the R front end: R source (tests/frontend_r/cases.R) to VRIR text,
//! one snapshot per function and argument types (core/tests/snapshots/). Each module
//! must also pass the verifier and read back from its printed form; a change in what
//! the front end emits shows up here as a reviewable diff.

use serde_json::{json, Value as Json};
use velociraptor::frontend::r;
use velociraptor::vrir::{text, verify};

const SOURCE: &str = include_str!("frontend_r/cases.R");

fn int(v: i32) -> Json {
    json!({"dtype": "i32", "data": v})
}

fn ivec() -> Json {
    json!({"dtype": "i32", "shape": [2], "data": [1, 2]})
}

#[test]
fn r_functions_lower_to_the_expected_vrir() {
    let vec = json!([1.0, 2.0]);
    let mat = json!({"dtype": "f64", "shape": [2, 2], "data": [[1.0, 2.0], [3.0, 4.0]]});
    let cplx = json!({"re": 1.0, "im": 2.0});
    let cases: Vec<(&str, &str, Json)> = vec![
        ("sumsq", "sumsq", json!([vec])),
        ("fib", "fib", json!([1.0])),
        ("checked_sqrt", "checked_sqrt", json!([1.0])),
        ("clip_low", "clip_low", json!([vec, 1.0])),
        ("ifelse_mat", "ifelse_mat", json!([mat])),
        ("collatz_step", "collatz_step", json!([ivec()])),
        ("fib_int", "fib_int", json!([int(1)])),
        ("iadd", "iadd", json!([int(1), int(2)])),
        ("iadd_double_logical", "iadd", json!([1.0, true])),
        ("imul", "imul", json!([int(1), int(2)])),
        ("isub_vec", "isub_vec", json!([ivec(), ivec()])),
        ("dmods", "dmods", json!([1.0, 2.0])),
        ("imods", "imods", json!([int(1), int(2)])),
        ("idiv", "idiv", json!([int(1), int(2)])),
        ("ipow", "ipow", json!([int(1), int(2)])),
        ("recycle", "recycle", json!([vec, vec])),
        ("nan_prop", "nan_prop", json!([vec])),
        ("positive_first", "positive_first", json!([vec])),
        ("colmajor", "colmajor", json!([mat])),
        ("row_of", "row_of", json!([mat, int(1)])),
        ("col_of", "col_of", json!([mat, 1.0])),
        ("slice", "slice", json!([vec, 1.0, 2.0])),
        ("sub_block", "sub_block", json!([mat])),
        ("caller_keeps", "caller_keeps", json!([vec])),
        ("alias_copy", "alias_copy", json!([vec])),
        ("cplx", "cplx", json!([1.0, 2.0])),
        ("cmul", "cmul", json!([cplx, cplx])),
        ("mm", "mm", json!([mat, mat])),
        ("mv", "mv", json!([mat, vec])),
        ("vdot", "vdot", json!([vec, vec])),
        ("tr_vector", "tr", json!([vec])),
        ("cp", "cp", json!([mat])),
        ("stats", "stats", json!([vec])),
        ("cums", "cums", json!([vec])),
        ("icums", "icums", json!([ivec()])),
        ("maths", "maths", json!([vec])),
        ("count_up", "count_up", json!([int(3)])),
        ("count_seq", "count_seq", json!([3.0])),
        ("collatz", "collatz", json!([int(3)])),
        ("first_over", "first_over", json!([vec, 1.0])),
        ("skip_odd", "skip_odd", json!([3.0])),
        ("logic", "logic", json!([vec, vec])),
        ("short_circuit", "short_circuit", json!([vec, int(1)])),
        ("fill_matrix", "fill_matrix", json!([int(2), int(2)])),
        ("cube", "cube", json!([int(2)])),
        ("builders", "builders", json!([int(2)])),
        ("sizes", "sizes", json!([mat])),
        ("call_named", "call_named", json!([vec])),
        ("sign_of", "sign_of", json!([1.0])),
        ("is_even", "is_even", json!([1.0])),
        ("par_square", "par_square", json!([vec])),
        ("gpu_scale", "gpu_scale", json!([vec, 1.0])),
        ("gather", "gather", json!([vec])),
        ("mask", "mask", json!([vec])),
        ("to_int", "to_int", json!([vec])),
        ("concat", "concat", json!([vec, 1.0])),
        ("imean", "imean", json!([ivec()])),
        ("count_down", "count_down", json!([int(3)])),
        ("widen", "widen", json!([1.0])),
        ("reverse", "reverse", json!([vec])),
        ("free_const", "free_const", json!([1.0])),
        ("if_value", "if_value", json!([1.0])),
        ("two_specs", "two_specs", json!([vec, int(3)])),
        ("more_builtins", "more_builtins", json!([mat, vec])),
        ("for_each", "for_each", json!([vec])),
        ("right_assign", "right_assign", json!([vec])),
        ("truthy", "truthy", json!([vec])),
        ("recycle_one", "recycle_one", json!([vec, vec])),
        ("recycle_mat", "recycle_mat", json!([mat, vec])),
        ("recycle_ifelse", "recycle_ifelse", json!([vec, vec])),
        ("na_store", "na_store", json!([vec])),
        ("seq_lo", "seq_lo", json!([1.0, 2.0, 3.0])),
        ("seq_n", "seq_n", json!([2.5])),
        ("seq_by_n_int", "seq_by_n", json!([int(1), int(2), int(3)])),
        ("seq_by_n_double", "seq_by_n", json!([1.0, 2.0, 3.0])),
        ("int_matrix", "int_matrix", json!([{"dtype": "i32", "shape": [1, 2], "data": [[1, 2]]}])),
    ];
    assert!(cases.len() >= 40);
    for (snapshot, func, args) in cases {
        let (m, _) = r::compile_for_json(SOURCE, func, args.as_array().unwrap()).unwrap_or_else(|e| panic!("{func}: {e}"));
        verify::verify_module(&m).unwrap_or_else(|e| panic!("{func}: the front end's output fails the verifier: {e}"));
        let printed = text::print_module(&m);
        // Compared as text: the helpers' NaN constants are never equal to themselves.
        assert_eq!(text::print_module(&text::parse_module(&printed).unwrap()), printed, "{func}: printed form reads back");
        insta::assert_snapshot!(format!("frontend_r__{snapshot}"), printed);
    }
}
