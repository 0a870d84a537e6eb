//! `matmul` on the cpu backend: every rank combination, element type and operand layout
//! (row, column, strided views with negative steps), at extents that cross the float
//! kernel's blocking, against a plain triple loop written here. Operands hold small
//! integers, so every order of additions gives the exact product (the float order is
//! unspecified: docs/vrir-semantics.md). Shape errors must equal the interpreter's,
//! field for field, and the kernel's parallel flag must not change a result.
#![allow(clippy::result_large_err)] // VrError, the crate's error type, is large by design

use velociraptor::cpu;
use velociraptor::cpu::matmul::{elem_code, vr_cpu_matmul};
use velociraptor::interp;
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};
use velociraptor::ErrorKind;

/// How an operand reaches `matmul`.
#[derive(Clone, Copy, Debug)]
enum Form {
    Row,
    Col,
    /// A `:view` into a larger row-major array: every other row (or every third element
    /// of a vector), columns (or elements) in reverse order.
    View,
}

/// Small integers in [-4, 4], deterministic.
fn small_ints(n: usize, seed: u64) -> Vec<i64> {
    let mut x = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 9) as i64 - 4
        })
        .collect()
}

fn scalar(t: ScalarType, v: i64) -> Scalar {
    match t {
        ScalarType::I32 => Scalar::I32(v as i32),
        ScalarType::I64 => Scalar::I64(v),
        ScalarType::F32 => Scalar::F32(v as f32),
        _ => Scalar::F64(v as f64),
    }
}

fn as_i64(s: &Scalar) -> i64 {
    s.as_i64()
        .or_else(|| s.as_f64().map(|f| f as i64))
        .expect("numeric")
}

/// The argument that carries a logical operand `vals` of extents `dims` in `form`, and
/// the expression that turns the parameter `name` into the operand.
fn operand(t: ScalarType, form: Form, dims: &[usize], vals: &[i64], name: &str) -> (Value, String) {
    let junk = 1000; // never part of a view: a wrong stride shows up in the result
    match (form, dims) {
        (Form::Row | Form::Col, _) => {
            let layout = if matches!(form, Form::Row) {
                Layout::Row
            } else {
                Layout::Col
            };
            let elems: Vec<Scalar> = vals.iter().map(|v| scalar(t, *v)).collect();
            let ty = ArrayType::new(t, dims.len() as u32, layout);
            (
                Value::Array(Array::from_logical(ty, dims.to_vec(), &elems)),
                name.to_string(),
            )
        }
        (Form::View, [k]) => {
            // v[p] at big[3 (k-1-p) + 1]: (range 3k-2 1 -3).
            let len = 3 * k + 1;
            let mut big = vec![junk; len];
            for p in 0..*k {
                big[3 * (k - 1 - p) + 1] = vals[p];
            }
            let elems: Vec<Scalar> = big.iter().map(|v| scalar(t, *v)).collect();
            let ty = ArrayType::new(t, 1, Layout::Row);
            let expr = format!("(index {name} (range {} 1 -3) :view)", 3 * k - 2);
            (
                Value::Array(Array::from_logical(ty, vec![len], &elems)),
                expr,
            )
        }
        (Form::View, [r, c]) => {
            // x[i][j] at big[2i+1][c-j]: rows (range 1 2r-1 2), columns (range c 1 -1).
            let (br, bc) = (2 * r + 1, c + 2);
            let mut big = vec![junk; br * bc];
            for i in 0..*r {
                for j in 0..*c {
                    big[(2 * i + 1) * bc + (c - j)] = vals[i * c + j];
                }
            }
            let elems: Vec<Scalar> = big.iter().map(|v| scalar(t, *v)).collect();
            let ty = ArrayType::new(t, 2, Layout::Row);
            let expr = format!(
                "(index {name} (range 1 {} 2) (range {c} 1 -1) :view)",
                2 * r - 1
            );
            (
                Value::Array(Array::from_logical(ty, vec![br, bc], &elems)),
                expr,
            )
        }
        _ => unreachable!("operands are 1-D or 2-D"),
    }
}

fn param_type(t: ScalarType, form: Form, rank: usize) -> String {
    let layout = match form {
        Form::Col => "col",
        _ => "row",
    };
    format!("{t}[{rank},{layout}]")
}

/// The triple loop: logical row-major a (m x k) times b (k x n).
fn reference(a: &[i64], b: &[i64], m: usize, k: usize, n: usize) -> Vec<i64> {
    let mut c = vec![0i64; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

/// One product with A of extents `ad` and B of `bd` (1-D or 2-D), checked against the
/// reference.
fn check(t: ScalarType, fa: Form, fb: Form, ad: &[usize], bd: &[usize]) {
    let (m, k) = if ad.len() == 2 {
        (ad[0], ad[1])
    } else {
        (1, ad[0])
    };
    let n = if bd.len() == 2 { bd[1] } else { 1 };
    let (av, bv) = (
        small_ints(m * k, 1 + m as u64),
        small_ints(k * n, 2 + n as u64),
    );
    let (aval, aexpr) = operand(t, fa, ad, &av, "a");
    let (bval, bexpr) = operand(t, fb, bd, &bv, "b");
    let fresh = |f: Form| if matches!(f, Form::Col) { "col" } else { "row" };
    let result = match (ad.len(), bd.len()) {
        (1, 1) => t.to_string(),
        (2, 2) => format!("{t}[2,{}]", fresh(fa)),
        (2, 1) => format!("{t}[1,{}]", fresh(fa)),
        _ => format!("{t}[1,{}]", fresh(fb)),
    };
    let src = format!(
        "(module mm :index-base 0 (function f ((a {}) (b {})) ({result}) (locals) \
         (return (matmul {aexpr} {bexpr}))))",
        param_type(t, fa, ad.len()),
        param_type(t, fb, bd.len()),
    );
    let what = format!("{t} {fa:?} {ad:?} x {fb:?} {bd:?}");
    let module = parse_module(&src).unwrap_or_else(|e| panic!("{what}: {e}\n{src}"));
    let compiled = cpu::compile(&module).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = compiled
        .call("f", vec![aval, bval])
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = reference(&av, &bv, m, k, n);
    let got: Vec<i64> = match &got[0] {
        Value::Scalar(s) => vec![as_i64(s)],
        Value::Array(arr) => {
            let expect_dims: Vec<usize> = match (ad.len(), bd.len()) {
                (2, 2) => vec![m, n],
                (2, 1) => vec![m],
                _ => vec![n],
            };
            assert_eq!(arr.dims, expect_dims, "{what}: result dims");
            assert_eq!(arr.ty.elem, t, "{what}: result element type");
            arr.elements().iter().map(as_i64).collect()
        }
        other => panic!("{what}: result {other:?}"),
    };
    assert_eq!(got, want, "{what}");
}

#[test]
fn every_rank_type_and_layout_matches_the_triple_loop() {
    let forms = [Form::Row, Form::Col, Form::View];
    let types = [
        ScalarType::F64,
        ScalarType::F32,
        ScalarType::I64,
        ScalarType::I32,
    ];
    // Odd extents around the float kernel's register blocks.
    let (m, k, n) = (13, 21, 11);
    for t in types {
        for fa in forms {
            for fb in forms {
                check(t, fa, fb, &[m, k], &[k, n]);
                check(t, fa, fb, &[m, k], &[k]);
                check(t, fa, fb, &[k], &[k, n]);
                check(t, fa, fb, &[k], &[k]);
            }
        }
    }
}

#[test]
fn extents_beyond_one_cache_block_match_the_triple_loop() {
    // An inner extent above gemm's depth block and outer extents of several panels.
    check(
        ScalarType::F64,
        Form::Row,
        Form::Col,
        &[67, 301],
        &[301, 45],
    );
    check(
        ScalarType::F32,
        Form::View,
        Form::Row,
        &[40, 290],
        &[290, 33],
    );
    check(ScalarType::F64, Form::Col, Form::View, &[300], &[300, 70]);
    check(
        ScalarType::I64,
        Form::Row,
        Form::Row,
        &[33, 260],
        &[260, 35],
    );
}

#[test]
fn empty_extents_give_empty_or_zero_results() {
    for t in [ScalarType::F64, ScalarType::I32] {
        check(t, Form::Row, Form::Row, &[0, 3], &[3, 4]);
        check(t, Form::Row, Form::Col, &[3, 0], &[0, 4]);
        check(t, Form::Row, Form::Row, &[0], &[0]);
        check(t, Form::Col, Form::Row, &[2, 5], &[5, 0]);
    }
}

#[test]
fn shape_mismatch_is_the_interpreters_error() {
    let cases = [
        (
            "f64[2,row]",
            "f64[2,row]",
            "f64[2,row]",
            vec![2, 3],
            vec![2, 3],
        ),
        (
            "f64[2,row]",
            "f64[1,row]",
            "f64[1,row]",
            vec![2, 3],
            vec![4],
        ),
        (
            "f64[1,row]",
            "f64[2,col]",
            "f64[1,col]",
            vec![3],
            vec![2, 3],
        ),
        ("i32[1,row]", "i32[1,row]", "i32", vec![3], vec![2]),
    ];
    for (ta, tb, tr, ad, bd) in cases {
        let src = format!(
            "(module mm :index-base 0 (function f ((a {ta}) (b {tb})) ({tr}) (locals)\n\
             (return (matmul a b))))"
        );
        let module = parse_module(&src).unwrap();
        let arg = |ty: &str, dims: &[usize]| {
            let elem = if ty.starts_with("i32") {
                ScalarType::I32
            } else {
                ScalarType::F64
            };
            let layout = if ty.ends_with("col]") {
                Layout::Col
            } else {
                Layout::Row
            };
            Value::Array(Array::zeros(
                ArrayType::new(elem, dims.len() as u32, layout),
                dims.to_vec(),
            ))
        };
        let args = vec![arg(ta, &ad), arg(tb, &bd)];
        let want = interp::run(&module, "f", args.clone()).expect_err("interpreter");
        let got = cpu::compile(&module)
            .unwrap()
            .call("f", args)
            .expect_err("cpu");
        assert_eq!(got.kind, ErrorKind::ShapeMismatch, "{got}");
        assert_eq!(got, want, "{ta} x {tb}");
    }
}

#[test]
fn the_parallel_flag_gives_the_same_product() {
    let (m, k, n) = (96, 130, 88);
    let a: Vec<f64> = small_ints(m * k, 5).iter().map(|v| *v as f64).collect();
    let b: Vec<f64> = small_ints(k * n, 6).iter().map(|v| *v as f64).collect();
    let run = |parallel: bool| {
        let mut c = vec![f64::NAN; m * n];
        // SAFETY: row-major a (m x k), b (k x n), c (m x n); a null context is allowed.
        let status = unsafe {
            vr_cpu_matmul(
                std::ptr::null_mut(),
                elem_code(ScalarType::F64),
                m as i64,
                n as i64,
                k as i64,
                c.as_mut_ptr() as *mut u8,
                n as i64,
                1,
                a.as_ptr() as *const u8,
                k as i64,
                1,
                b.as_ptr() as *const u8,
                n as i64,
                1,
                parallel as i32,
            )
        };
        assert_eq!(status, 0);
        c
    };
    let ai: Vec<i64> = a.iter().map(|v| *v as i64).collect();
    let bi: Vec<i64> = b.iter().map(|v| *v as i64).collect();
    let want: Vec<f64> = reference(&ai, &bi, m, k, n)
        .iter()
        .map(|v| *v as f64)
        .collect();
    assert_eq!(run(false), want);
    assert_eq!(run(true), want);
}
