//! R's rules in compiled code against R itself (issue 14: length-one vectors, negative
//! and zero indices, growth by assignment, integer `%/%` and `%%` by zero, library
//! functions, index errors in R's terms). Every function of tests/frontend_r/rules.R
//! runs in R (Rscript, during this test, `options(warn = 2)`) and, compiled, on every
//! backend this build has. The outcome must be R's value (floats bit for bit unless a
//! case states a tolerance), R's error (its message contained in ours), or, where R has
//! an answer compiled code does not give (an NA, a NULL, a longer vector from an index
//! past the end), a run-time error of kind `unsupported`: the R adapter then runs the
//! function in R, so the user gets R's answer.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use velociraptor::backend::Backend;
use velociraptor::frontend::r;
use velociraptor::{ErrorKind, VrError};

const SOURCE: &str = include_str!("frontend_r/rules.R");

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Equal to R's result (exact for floats).
    Same,
    /// Equal within this relative tolerance.
    Near(f64),
    /// R answers where compiled code cannot: a run-time error of kind `unsupported`.
    Fallback,
    /// R errors (or warns, an error under `options(warn = 2)`); any error here.
    Error,
    /// R raises an error; ours carries R's message and is not `unsupported`.
    SameError,
}
use Expect::*;

#[path = "common/rscript.rs"]
mod rscript;
use rscript::{agree, compiled, Outcome};

struct Case {
    func: &'static str,
    args: Json,
    expect: Expect,
}

fn i32s(v: i32) -> Json {
    json!({"dtype": "i32", "data": v})
}

fn ivec(v: &[i32]) -> Json {
    json!({"dtype": "i32", "shape": [v.len()], "data": v})
}

fn empty_f64() -> Json {
    json!({"dtype": "f64", "shape": [0], "data": []})
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json, expect| Case { func, args, expect };
    let m32 = json!({"dtype": "f64", "shape": [3, 2], "data": [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]});
    let m33 = json!({"dtype": "f64", "shape": [3, 3], "data": [[1.0, 4.0, 7.0], [2.0, 5.0, 8.0], [3.0, 6.0, 9.0]]});
    let m43 = json!({"dtype": "f64", "shape": [4, 3], "data": [[1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0], [4.0, 8.0, 12.0]]});
    let im22 = json!({"dtype": "i32", "shape": [2, 2], "data": [[1, 3], [2, 4]]});
    vec![
        // Length-one vectors (a bare number is a scalar, as the R adapter passes it).
        c("first_of", json!([2.5]), Same),
        c("first_of", json!([[2.5, 3.0]]), Same),
        c("first_dbl", json!([4.0]), Same),
        c("one_sizes", json!([3.0]), Same),
        c("one_sizes", json!([i32s(4)]), Same),
        c("along_one", json!([2.0]), Same),
        c("each_one", json!([2.0]), Same),
        c("index_at", json!([5.0, 1.0]), Same),
        c("index_at", json!([5.0, i32s(1)]), Same),
        c("index_at", json!([5.0, 2.0]), Fallback),
        c("index_at", json!([5.0, 0.0]), Fallback),
        c("index_at", json!([[5.0, 6.0], 2.0]), Same),
        c("index_at", json!([[5.0, 6.0], 3.0]), Fallback),
        c("index2_at", json!([5.0, 1.0]), Same),
        c("index2_at", json!([5.0, 2.0]), Fallback),
        c("set_first", json!([1.0, 9.0]), Same),
        c("set_first", json!([[1.0, 2.0], 9.0]), Same),
        c("set_then_test", json!([-3.0]), Same),
        c("set_then_test", json!([0.5]), Same),
        c("grow_scalar", json!([1.0]), Same),
        c("append_scalar", json!([1.5]), Same),
        c("append_scalar", json!([[1.5, 2.0]]), Same),
        c("grown_from_zero", json!([i32s(4)]), Same),
        c("grown_from_zero", json!([i32s(0)]), Same),
        // Negative and zero indices.
        c("drop_first", json!([[1.0, 2.0, 3.0]]), Same),
        c("drop_first", json!([5.0]), Same),
        c("drop_first", json!([empty_f64()]), Same),
        c("drop_i", json!([[1.0, 2.0, 3.0], 2.0]), Same),
        c("drop_i", json!([[1.0, 2.0, 3.0], i32s(5)]), Same),
        c("drop_i", json!([[1.0, 2.0, 3.0], 0.0]), Same),
        c("drop_i", json!([[1.0, 2.0, 3.0], 1.7]), Same),
        c("drop_i", json!([[1.0, 2.0, 3.0], [1.0, 3.0]]), Same),
        c("drop_two", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("drop_c", json!([[1.0, 2.0, 3.0, 4.0]]), Same),
        c("drop_none", json!([[1.0, 2.0, 3.0], ivec(&[])]), Same),
        c("drop_none", json!([[1.0, 2.0, 3.0], ivec(&[0, 2])]), Same),
        c("drop_row", json!([m32.clone()]), Same),
        c("drop_col", json!([m33.clone(), 1.0]), Same),
        c("drop_col", json!([m33.clone(), [1.0, 3.0]]), Fallback),
        c("zero_index", json!([[1.0, 2.0]]), Same),
        c("zero_write", json!([[1.0, 2.0]]), Same),
        c("mixed_signs", json!([[1.0, 2.0, 3.0]]), SameError),
        c("write_except", json!([[1.0, 2.0, 3.0]]), Same),
        c("runtime_negative", json!([[1.0, 2.0, 3.0], -1.0]), Fallback),
        c("lagged", json!([[1.0, 4.0, 9.0, 16.0]]), Same),
        // Growth by assignment.
        c("grow_index", json!([i32s(5)]), Same),
        c("grow_length", json!([i32s(4)]), Same),
        c("grow_length", json!([i32s(0)]), Fallback),
        c("grow_c", json!([i32s(5)]), Same),
        c("grow_c", json!([i32s(0)]), Fallback),
        c("grow_c_pairs", json!([i32s(3)]), Same),
        c("grow_gap", json!([]), Same),
        c("grow_gap_int", json!([]), Fallback),
        c("grow_null", json!([i32s(2)]), Same),
        c("grow_null", json!([i32s(0)]), Fallback),
        c("grow_counter", json!([3.0]), Same),
        c("grow_past", json!([[1.0, 2.0]]), Same),
        c("grow_past", json!([3.0]), Same),
        c("grow_past", json!([empty_f64()]), Same),
        c("grow_preallocated", json!([2.0]), Same),
        c("grow_preallocated", json!([3.0]), Fallback),
        c("grow_matrix", json!([]), SameError),
        c("grow_read_past", json!([i32s(3)]), Fallback),
        c("grow_fib", json!([i32s(10)]), Same),
        c("grow_fib", json!([i32s(1)]), Same),
        c("grow_values", json!([i32s(4)]), Same),
        c("grow_vector_parts", json!([[1.0, 2.0]]), Same),
        // Integer %/% and %% by zero.
        c("int_div", json!([i32s(7), i32s(0)]), Fallback),
        c("int_div", json!([i32s(-7), i32s(2)]), Same),
        c("int_mod", json!([i32s(7), i32s(0)]), Fallback),
        c("int_mod", json!([i32s(-7), i32s(3)]), Same),
        c("int_mod_vec", json!([ivec(&[1, 2, 3]), i32s(0)]), Fallback),
        c("int_mod_vec", json!([ivec(&[5, 6]), ivec(&[2, 0])]), Fallback),
        c("int_mod_vec", json!([ivec(&[5, -6]), i32s(4)]), Same),
        c("int_mod_vec", json!([ivec(&[]), i32s(0)]), Same),
        // Library functions.
        c("which_both", json!([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]]), Same),
        c("which_both", json!([[1.0, "nan", 1.0]]), Same),
        c("which_both", json!([["nan", 2.0, "nan", 2.0]]), Same),
        c("which_both", json!([["nan"]]), Fallback),
        c("which_both", json!([empty_f64()]), Fallback),
        c("which_both", json!([7.0]), Same),
        c("which_both", json!([ivec(&[2, 7, 7, -1, -1])]), Same),
        c("which_both", json!([{"dtype": "bool", "shape": [3], "data": [false, true, true]}]), Same),
        c("which_both", json!([m43.clone()]), Same),
        c("range_of", json!([[3.0, 1.0, 2.0]]), Same),
        c("range_of", json!([ivec(&[5, -2])]), Same),
        c("range_of", json!([[1.0, "nan"]]), Same),
        c("range_of", json!([true]), Same),
        c("range_two", json!([[3.0, 1.0], 5.0]), Same),
        c("range_two", json!([ivec(&[2, 5]), 3.5]), Same),
        c("diff_of", json!([[1.0, 4.0, 9.0, 16.0]]), Same),
        c("diff_of", json!([ivec(&[1, 5, 2])]), Same),
        c("diff_of", json!([5.0]), Same),
        c("diff_of", json!([empty_f64()]), Same),
        c("diff_of", json!([ivec(&[2, -2147483647])]), Error),
        c("diff_lag", json!([[1.0, 4.0, 9.0, 16.0, 25.0]]), Same),
        c("diff_lag", json!([[1.0, 3.0]]), Same),
        c("diff_twice", json!([[1.0, 4.0, 9.0, 16.0, 25.0]]), Same),
        c("diff_twice", json!([[1.0, 2.0]]), Same),
        c("diff_bad", json!([[1.0, 2.0, 3.0]]), SameError),
        c("outer_mul", json!([[1.0, 2.0], [1.0, 2.0, 3.0]]), Same),
        c("outer_mul", json!([ivec(&[1, 2]), ivec(&[3, 4])]), Same),
        c("outer_mul", json!([2.0, [1.5, 2.0]]), Same),
        c("outer_plus", json!([[1.0, 2.0], [10.0, 20.0, 30.0]]), Same),
        c("outer_pow", json!([[2.0, 3.0], [0.5, 2.0, -1.0]]), Near(1e-15)),
        c("outer_int", json!([i32s(3)]), Same),
        c("tcp", json!([[1.0, 2.0]]), Near(1e-15)),
        c("tcp", json!([m32.clone()]), Near(1e-15)),
        c("tcp2", json!([[1.0, 2.0], [3.0, 4.0, 5.0]]), Near(1e-15)),
        c("tcp2", json!([m32.clone(), m32.clone()]), Near(1e-15)),
        c("cp2", json!([[1.0, 2.0], [3.0, 4.0]]), Near(1e-15)),
        c("check_pos", json!([4.0]), Same),
        c("check_pos", json!([-1.0]), SameError),
        c("check_all", json!([[1.0, 2.0]]), Same),
        c("check_all", json!([[1.0, -2.0]]), SameError),
        c("check_vec", json!([[1.0, 2.0]]), Same),
        c("check_vec", json!([[1.0, -2.0]]), SameError),
        c("check_vec", json!([[-1.0]]), SameError),
        c("check_vec", json!([-1.0]), SameError),
        c("check_vec", json!([empty_f64()]), Same),
        c("check_named", json!([2.0]), Same),
        c("check_named", json!([-1.0]), SameError),
        c("check_mod", json!([1.0, 4.0]), Same),
        c("check_mod", json!([1.0, 3.0]), SameError),
        c("check_mod", json!([-1.0, 3.0]), SameError),
        c("check_only", json!([2.0]), Same),
        c("check_only", json!([-2.0]), SameError),
        c("vectors_of", json!([i32s(3)]), Same),
        c("na_matrix", json!([i32s(2), i32s(3)]), Same),
        c("na_matrix_part", json!([i32s(2)]), Same),
        c("column_matrix", json!([i32s(3)]), Same),
        c("bits", json!([i32s(12), i32s(10)]), Same),
        c("bits", json!([i32s(-1), i32s(255)]), Same),
        c("bits", json!([12.0, 10.0]), Same),
        c("bits", json!([5.7, 3.0]), Same),
        c("bits", json!([i32s(2147483647), i32s(1)]), Fallback),
        c("bits", json!([i32s(-8), i32s(-3)]), Same),
        c("bits_vec", json!([ivec(&[256, 511, -1])]), Same),
        c("bits_shift", json!([i32s(1), i32s(31)]), Fallback),
        c("bits_shift", json!([i32s(1), i32s(30)]), Same),
        c("bits_shift", json!([i32s(3), ivec(&[1, 2, 3])]), Same),
        c("bits_shift", json!([i32s(5), i32s(-1)]), Fallback),
        c("bits_shift", json!([i32s(-1), i32s(1)]), Same),
        c("par_max", json!([[1.0, 5.0, 3.0], 2.0]), Same),
        c("par_max", json!([ivec(&[1, 5]), i32s(2)]), Same),
        c("par_max", json!([[1.0, "nan"], 2.0]), Same),
        c("par_max", json!([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), Same),
        c("par_mat", json!([im22]), Same),
        c("several", json!([[1.0, 5.0, 2.0], 4.0]), Same),
        c("several", json!([ivec(&[1, 2]), i32s(7)]), Same),
        c("types", json!([[1.0, 2.0], i32s(3)]), Same),
        c("types", json!([true, 2.0]), Same),
        c("types", json!([m32.clone(), i32s(1)]), Same),
        // Index errors.
        c("vec_oob", json!([[1.0, 2.0, 3.0], 2.0]), Same),
        c("vec_oob", json!([[1.0, 2.0, 3.0], 4.0]), Fallback),
        c("mat_oob", json!([m43.clone(), 5.0, 2.0]), SameError),
        c("mat_oob", json!([m43.clone(), 1.0, 7.0]), SameError),
        c("mat_oob", json!([m43.clone(), 0.0, 1.0]), Fallback),
        c("mat_write_oob", json!([m43.clone(), 4.0]), SameError),
    ]
}

/// R's results for every case.
fn run_r(cases: &[Case]) -> Vec<Outcome> {
    let calls: Vec<(&str, &Json)> = cases.iter().map(|c| (c.func, &c.args)).collect();
    rscript::run_r(SOURCE, &calls, "", "rules")
}

#[test]
fn compiled_r_rules_agree_with_r() {
    let cases = cases();
    let expected = run_r(&cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<Backend, usize> = HashMap::new();
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!("case {id}: {}({})", c.func, c.args.as_array().unwrap().iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "));
        let (module, values) = match r::compile_for_json(SOURCE, c.func, c.args.as_array().unwrap()) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        for b in Backend::available() {
            let got = compiled(&module, b, c.func, values.clone());
            let ok = match (&got, c.expect, r_out) {
                (Err(e), Fallback, _) => e.kind == ErrorKind::Unsupported,
                (Err(e), SameError, Outcome::Error(r_message)) => e.kind != ErrorKind::Unsupported && e.to_string().contains(r_message.as_str()),
                (Err(_), Error, _) => true,
                (Ok(_), Same | Near(_), Outcome::Error(_)) => false,
                (Ok(v), Same, _) => agree(r_out, v, None),
                (Ok(v), Near(t), _) => agree(r_out, v, Some(t)),
                _ => false,
            };
            if ok {
                *passed.entry(b).or_default() += 1;
            } else {
                failures.push(format!("{label} on {b}: expected {:?}; R gave {r_out:?}, compiled code gave {:?}", c.expect, got.map_err(|e| e.to_string())));
            }
        }
    }
    for b in Backend::available() {
        eprintln!("{b}: {} of {} cases as R", passed.get(&b).copied().unwrap_or(0), cases.len());
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// The error a call raises on every backend, explained in R's terms.
fn errors(func: &str, args: Json) -> Vec<VrError> {
    let (module, values) = r::compile_for_json(SOURCE, func, args.as_array().unwrap()).expect("compiles");
    Backend::available().into_iter().map(|b| compiled(&module, b, func, values.clone()).expect_err("must raise")).collect()
}

#[test]
fn index_errors_speak_r() {
    let m43 = json!({"dtype": "f64", "shape": [4, 3], "data": [[1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0], [4.0, 8.0, 12.0]]});
    for e in errors("vec_oob", json!([[1.0, 2.0, 3.0], 4.0])) {
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
        assert!(e.message.starts_with("x[4]: index 4 is beyond length 3"), "{e}");
        assert_eq!((e.index, e.bound, e.function.as_deref(), e.variable.as_deref()), (Some(4), Some(3), Some("vec_oob"), Some("x")), "{e:?}");
    }
    for e in errors("mat_oob", json!([m43.clone(), 5.0, 2.0])) {
        assert_eq!(e.kind, ErrorKind::OutOfBounds, "{e}");
        assert_eq!(e.message, "m[5, 2]: row 5 of 4 (subscript out of bounds)");
        assert_eq!((e.index, e.bound, e.dim), (Some(5), Some(4), Some(0)));
        assert!(e.line.is_some(), "{e:?}");
    }
    for e in errors("mat_oob", json!([m43.clone(), 1.0, 7.0])) {
        assert_eq!(e.message, "m[1, 7]: column 7 of 3 (subscript out of bounds)");
    }
    for e in errors("mat_write_oob", json!([m43, 4.0])) {
        assert_eq!(e.kind, ErrorKind::OutOfBounds, "{e}");
        assert!(e.message.contains("column 4 of 3"), "{e}");
    }
    // A length-one argument indexed past its end; a grown vector read past its length.
    for e in errors("index_at", json!([5.0, 2.0])) {
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
        assert!(e.message.starts_with("x[2]: index 2 is beyond length 1"), "{e}");
    }
    for e in errors("grow_read_past", json!([i32s(3)])) {
        assert!(e.message.starts_with("x[4]: index 4 is beyond length 3"), "{e}");
    }
    for e in errors("runtime_negative", json!([[1.0, 2.0, 3.0], -1.0])) {
        assert!(e.message.starts_with("x[-1]: negative index -1"), "{e}");
    }
}

/// Where compiled code cannot follow R, compiling fails naming the construct and line.
#[test]
fn what_does_not_compile_is_named() {
    let refused = |src: &str, args: Json, needle: &str| {
        let e = r::compile_for_json(src, "f", args.as_array().unwrap()).map(|_| ()).expect_err("must not compile");
        assert_eq!(e.kind, ErrorKind::Unsupported, "{src}: {e}");
        assert!(e.to_string().contains(needle), "{src}: {e}");
    };
    // `prange` is the package's marker (not defined in the source, so not a function of it).
    refused("f <- function(n) {\n  x <- c()\n  for (i in prange(n)) x[i] <- i\n  x\n}", json!([3.0]), "parallel loop");
    refused("f <- function(n) {\n  m <- matrix(nrow = n, ncol = n)\n  m[1, 1] <- TRUE\n  m\n}", json!([2.0]), "`matrix` of NA");
    refused("f <- function(x) {\n  x <- x + 0.5\n  is.double(x)\n}", json!([i32s(1)]), "is.double(x)");
    refused("f <- function(x) bitwAnd(x, TRUE)", json!([i32s(1)]), "bitwAnd");
    refused("f <- function(m) diff(m)", json!([{"dtype": "f64", "shape": [2, 2], "data": [[1.0, 2.0], [3.0, 4.0]]}]), "`diff` of a matrix");
    refused("f <- function(x) x[[-1]]", json!([[1.0, 2.0]]), "`[[` with a negative index");
}
