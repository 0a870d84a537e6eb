//! Snapshot tests of the Julia front end: Julia source (tests/frontend_julia/cases.jl and
//! the benchmark kernels in bench/julia) to VRIR text, one snapshot per function and
//! argument types (core/tests/snapshots/). Each module must also pass the verifier and
//! read back from its printed form; a change in what the front end emits shows up here
//! as a reviewable diff.

use serde_json::{json, Value as Json};
use velociraptor::frontend::julia;
use velociraptor::vrir::{text, verify};

const SOURCE: &str = include_str!("frontend_julia/cases.jl");

fn check(snapshot: &str, source: &str, func: &str, args: &Json) {
    let (m, _) = julia::compile_for_json(source, func, args.as_array().unwrap()).unwrap_or_else(|e| panic!("{func}: {e}"));
    verify::verify_module(&m).unwrap_or_else(|e| panic!("{func}: the front end's output fails the verifier: {e}"));
    let printed = text::print_module(&m);
    assert_eq!(text::print_module(&text::parse_module(&printed).unwrap()), printed, "{func}: printed form reads back");
    insta::assert_snapshot!(format!("frontend_julia__{snapshot}"), printed);
}

#[test]
fn julia_functions_lower_to_the_expected_vrir() {
    let vec = json!([1.0, 2.0]);
    let ivec = json!([1, 2]);
    let mat = json!([[1.0, 2.0], [3.0, 4.0]]);
    let cplx = json!({"re": 1.0, "im": 2.0});
    let cases: Vec<(&str, &str, Json)> = vec![
        ("arith_int", "arith", json!([1, 2])),
        ("arith_float", "arith", json!([1.0, 2])),
        ("int_ops", "int_ops", json!([1, 2])),
        ("float_mods", "float_mods", json!([1.0, 2.0])),
        ("powers", "powers", json!([1.0, 2])),
        ("int_pow", "int_pow", json!([1, 2])),
        ("inv_pow", "inv_pow", json!([2])),
        ("float_pow", "float_pow", json!([1.0, 2.0])),
        ("bits", "bits", json!([1, 2])),
        ("shifts", "shifts", json!([1, 2])),
        ("compare_mixed", "compare_all", json!([1, 2.0])),
        ("chained", "chained", json!([1, 2, 3])),
        ("sumsq", "sumsq", json!([vec])),
        ("count_steps", "count_steps", json!([1, 2, 3])),
        ("collatz", "collatz", json!([3])),
        ("skip_odd", "skip_odd", json!([3])),
        ("classify", "classify", json!([1.0])),
        ("guard", "guard", json!([1.0])),
        ("asserted", "asserted", json!([1])),
        ("fib", "fib", json!([1])),
        ("nested_sum", "nested_sum", json!([2, 3])),
        ("fill_matrix", "fill_matrix", json!([2, 2])),
        ("col_of", "col_of", json!([mat, 1])),
        ("ends", "ends", json!([mat])),
        ("scale", "scale!", json!([vec, 2.0])),
        ("alias_write", "alias_write", json!([vec])),
        ("view_sum", "view_sum", json!([mat, 1])),
        ("swap_ends", "swap_ends!", json!([ivec])),
        ("use_minmax", "use_minmax", json!([vec])),
        ("dims", "dims", json!([mat])),
        ("literals", "literals", json!([])),
        ("store_float", "store_float!", json!([ivec])),
        ("bcast", "bcast", json!([vec, vec])),
        ("at_dot", "at_dot", json!([vec])),
        ("in_place", "in_place!", json!([vec, vec])),
        ("user_bcast", "user_bcast", json!([ivec])),
        ("eq_arrays", "eq_arrays", json!([ivec, ivec])),
        ("squares", "squares", json!([3])),
        ("table", "table", json!([2, 3])),
        ("gen_sum", "gen_sum", json!([vec])),
        ("reductions", "reductions", json!([vec])),
        ("col_sums", "col_sums", json!([mat])),
        ("math1", "math1", json!([1.0])),
        ("conversions", "conversions", json!([1.0])),
        ("mat_vec", "mat_vec", json!([mat, vec])),
        ("complex_ops", "complex_ops", json!([cplx, cplx])),
        ("mandel", "mandel", json!([cplx])),
        ("typed_arg", "typed_arg", json!([1])),
        ("enum_sum", "enum_sum", json!([vec])),
        ("par_square", "par_square!", json!([vec, vec])),
        ("gpu_scale", "gpu_scale", json!([vec, 2.0])),
    ];
    for (snapshot, func, args) in &cases {
        check(snapshot, SOURCE, func, args);
    }
}

#[test]
fn benchmark_kernels_lower_to_the_expected_vrir() {
    let v = json!([1.0, 2.0, 3.0]);
    let m = json!([[1.0, 2.0], [3.0, 4.0]]);
    let cube = json!({"dtype": "f64", "shape": [2, 2, 2], "data": [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]});
    let imat = json!({"dtype": "i64", "shape": [2, 2], "data": [[0, 0], [0, 0]]});
    let kernels: Vec<(&str, &str, Json)> = vec![
        ("arc_distance", include_str!("../../bench/julia/arc_distance.jl"), json!([v, v, v, v, v])),
        ("black_scholes", include_str!("../../bench/julia/black_scholes.jl"), json!([v, v, v, 0.02, 0.3, v, v])),
        ("growcut", include_str!("../../bench/julia/growcut.jl"), json!([cube, cube, cube, 1])),
        ("julia_set", include_str!("../../bench/julia/julia_set.jl"), json!([-0.7, 0.27, 1.5, 10.0, 50, imat])),
        ("matmul_loops", include_str!("../../bench/julia/matmul_loops.jl"), json!([m, m, m])),
        ("nbody1d", include_str!("../../bench/julia/nbody1d.jl"), json!([v, v, v, v, 0.01, 0.001])),
        ("rosen_der", include_str!("../../bench/julia/rosen_der.jl"), json!([v, v])),
        ("stencil5", include_str!("../../bench/julia/stencil5.jl"), json!([m, m])),
    ];
    for (name, source, args) in &kernels {
        check(&format!("bench_{name}"), source, &format!("{name}!"), args);
    }
}
