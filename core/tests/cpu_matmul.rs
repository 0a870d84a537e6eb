//! `matmul` on the cpu backend: every rank combination, element type (complex included)
//! and operand layout (row, column, padded views that BLAS takes, strided views with
//! negative steps that only the `gemm` crate takes), at extents that cross the float
//! kernels' blocking, against a plain triple loop written here. Operands hold small
//! integers (Gaussian integers for complex types), so every order of additions gives the
//! exact product (the float order is unspecified: docs/vrir-semantics.md); one product
//! of non-integer values is checked against NumPy's result with a tolerance. Shape errors
//! must equal the interpreter's, field for field, and neither the parallel flag nor the
//! kernel chosen (OpenBLAS or the `gemm` crate, also under contention) may change a
//! result.
#![allow(clippy::result_large_err)] // VrError, the crate's error type, is large by design

use num_complex::Complex;
use velociraptor::cpu;
use velociraptor::cpu::blas::{self, Strided};
use velociraptor::cpu::matmul::{elem_code, gemm_float, vr_cpu_matmul, MatRef};
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
    /// of a vector), columns (or elements) in reverse order. No unit stride: never BLAS.
    View,
    /// A `:view` of the inner block of a larger row-major array (one junk row and column
    /// around it): rows padded, columns adjacent, which BLAS takes with a leading
    /// dimension above the row length. 1-D: every element of a longer vector but its ends.
    Padded,
}

/// One element: real and imaginary part (the imaginary part is ignored by real types).
type Elem = (i64, i64);

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

/// Elements of type `t`: small integers, with a small imaginary part for complex types.
fn small_elems(t: ScalarType, n: usize, seed: u64) -> Vec<Elem> {
    let re = small_ints(n, seed);
    let im = if t.is_complex() {
        small_ints(n, seed + 1000)
    } else {
        vec![0; n]
    };
    re.into_iter().zip(im).collect()
}

fn scalar(t: ScalarType, (re, im): Elem) -> Scalar {
    match t {
        ScalarType::I32 => Scalar::I32(re as i32),
        ScalarType::I64 => Scalar::I64(re),
        ScalarType::F32 => Scalar::F32(re as f32),
        ScalarType::C64 => Scalar::C64(Complex::new(re as f32, im as f32)),
        ScalarType::C128 => Scalar::C128(Complex::new(re as f64, im as f64)),
        _ => Scalar::F64(re as f64),
    }
}

fn as_elem(s: &Scalar) -> Elem {
    match s {
        Scalar::C64(z) => (z.re as i64, z.im as i64),
        Scalar::C128(z) => (z.re as i64, z.im as i64),
        _ => (
            s.as_i64()
                .or_else(|| s.as_f64().map(|f| f as i64))
                .expect("numeric"),
            0,
        ),
    }
}

/// The argument that carries a logical operand `vals` of extents `dims` in `form`, and
/// the expression that turns the parameter `name` into the operand.
fn operand(t: ScalarType, form: Form, dims: &[usize], vals: &[Elem], name: &str) -> (Value, String) {
    let junk = (1000, 1000); // never part of a view: a wrong stride shows up in the result
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
        (Form::Padded, [k]) => {
            let mut big = vec![junk; k + 2];
            big[1..=*k].copy_from_slice(vals);
            let elems: Vec<Scalar> = big.iter().map(|v| scalar(t, *v)).collect();
            let ty = ArrayType::new(t, 1, Layout::Row);
            (
                Value::Array(Array::from_logical(ty, vec![k + 2], &elems)),
                format!("(index {name} (range 1 {k}) :view)"),
            )
        }
        (Form::Padded, [r, c]) => {
            // x[i][j] at big[i+1][j+1]: rows (range 1 r), columns (range 1 c).
            let (br, bc) = (r + 2, c + 2);
            let mut big = vec![junk; br * bc];
            for i in 0..*r {
                big[(i + 1) * bc + 1..(i + 1) * bc + 1 + c].copy_from_slice(&vals[i * c..(i + 1) * c]);
            }
            let elems: Vec<Scalar> = big.iter().map(|v| scalar(t, *v)).collect();
            let ty = ArrayType::new(t, 2, Layout::Row);
            (
                Value::Array(Array::from_logical(ty, vec![br, bc], &elems)),
                format!("(index {name} (range 1 {r}) (range 1 {c}) :view)"),
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

/// The triple loop: logical row-major a (m x k) times b (k x n), complex arithmetic on
/// (re, im) pairs (real operands have im = 0 throughout).
fn reference(a: &[Elem], b: &[Elem], m: usize, k: usize, n: usize) -> Vec<Elem> {
    let mut c = vec![(0i64, 0i64); m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).fold((0, 0), |(re, im), p| {
                let ((x, y), (u, v)) = (a[i * k + p], b[p * n + j]);
                (re + x * u - y * v, im + x * v + y * u)
            });
        }
    }
    c
}

/// The integer reference for real element types.
fn reference_real(a: &[i64], b: &[i64], m: usize, k: usize, n: usize) -> Vec<i64> {
    let pair = |v: &[i64]| v.iter().map(|x| (*x, 0)).collect::<Vec<Elem>>();
    reference(&pair(a), &pair(b), m, k, n)
        .into_iter()
        .map(|(re, _)| re)
        .collect()
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
        small_elems(t, m * k, 1 + m as u64),
        small_elems(t, k * n, 2 + n as u64),
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
    let got: Vec<Elem> = match &got[0] {
        Value::Scalar(s) => vec![as_elem(s)],
        Value::Array(arr) => {
            let expect_dims: Vec<usize> = match (ad.len(), bd.len()) {
                (2, 2) => vec![m, n],
                (2, 1) => vec![m],
                _ => vec![n],
            };
            assert_eq!(arr.dims, expect_dims, "{what}: result dims");
            assert_eq!(arr.ty.elem, t, "{what}: result element type");
            arr.elements().iter().map(as_elem).collect()
        }
        other => panic!("{what}: result {other:?}"),
    };
    assert_eq!(got, want, "{what}");
}

#[test]
fn every_rank_type_and_layout_matches_the_triple_loop() {
    let forms = [Form::Row, Form::Col, Form::View, Form::Padded];
    let types = [
        ScalarType::F64,
        ScalarType::F32,
        ScalarType::C128,
        ScalarType::C64,
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
        ScalarType::C128,
        Form::Padded,
        Form::Col,
        &[50, 270],
        &[270, 41],
    );
    check(
        ScalarType::C64,
        Form::View,
        Form::Row,
        &[37, 260],
        &[260, 29],
    );
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

/// `a (m x k) * b (k x n)`, row-major f64, through the kernel entry compiled code calls.
fn row_major_product(a: &[f64], b: &[f64], (m, k, n): (usize, usize, usize), parallel: bool) -> Vec<f64> {
    assert_eq!((a.len(), b.len()), (m * k, k * n));
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
}

#[test]
fn the_parallel_flag_gives_the_same_product() {
    let (m, k, n) = (96, 130, 88);
    let a: Vec<f64> = small_ints(m * k, 5).iter().map(|v| *v as f64).collect();
    let b: Vec<f64> = small_ints(k * n, 6).iter().map(|v| *v as f64).collect();
    let run = |parallel: bool| row_major_product(&a, &b, (m, k, n), parallel);
    let ai: Vec<i64> = a.iter().map(|v| *v as i64).collect();
    let bi: Vec<i64> = b.iter().map(|v| *v as i64).collect();
    let want: Vec<f64> = reference_real(&ai, &bi, m, k, n)
        .iter()
        .map(|v| *v as f64)
        .collect();
    assert_eq!(run(false), want);
    assert_eq!(run(true), want);
}

/// Non-integer operands through compiled code, against NumPy's `a @ b` (printed by
/// NumPy 2.4 for the values below), within a few ulps of the result's scale.
#[test]
fn non_integer_products_match_numpy_within_rounding() {
    let a = [[0.1, -1.7, 2.3], [3.14159, 0.001, -0.5]];
    let b = [[1.1, 0.2], [-0.3, 4.5], [2.25, -6.0]];
    let flat = |x: &[[f64; 3]; 2]| x.iter().flatten().copied().collect::<Vec<_>>();
    let flat_b = b.iter().flatten().copied().collect::<Vec<f64>>();
    // (t, NumPy's a @ b in that precision; complex: a + i a[::-1], b - 0.5i b)
    let numpy_f64 = [5.795, -21.43, 2.3304489999999998, 3.632818];
    let numpy_f32 = [5.795000076293945, -21.43000030517578, 2.330449342727661, 3.6328179836273193];
    let numpy_c128 = [
        (6.9602245, -0.5670510000000002),
        (-19.613591, 14.347818),
        (5.227949, 4.6297755),
        (-7.0821819999999995, -23.246409),
    ];
    let a_rev: Vec<f64> = [a[1], a[0]].iter().flatten().copied().collect();
    for t in [ScalarType::F64, ScalarType::F32, ScalarType::C128, ScalarType::C64] {
        let elems_a: Vec<Scalar> = match t {
            ScalarType::F64 => flat(&a).iter().map(|v| Scalar::F64(*v)).collect(),
            ScalarType::F32 => flat(&a).iter().map(|v| Scalar::F32(*v as f32)).collect(),
            ScalarType::C128 => flat(&a)
                .iter()
                .zip(&a_rev)
                .map(|(re, im)| Scalar::C128(Complex::new(*re, *im)))
                .collect(),
            _ => flat(&a)
                .iter()
                .zip(&a_rev)
                .map(|(re, im)| Scalar::C64(Complex::new(*re as f32, *im as f32)))
                .collect(),
        };
        let elems_b: Vec<Scalar> = flat_b
            .iter()
            .map(|v| match t {
                ScalarType::F64 => Scalar::F64(*v),
                ScalarType::F32 => Scalar::F32(*v as f32),
                ScalarType::C128 => Scalar::C128(Complex::new(*v, -0.5 * v)),
                _ => Scalar::C64(Complex::new(*v as f32, (-0.5 * v) as f32)),
            })
            .collect();
        let src = format!(
            "(module mm :index-base 0 (function f ((a {t}[2,row]) (b {t}[2,col])) ({t}[2,row]) \
             (locals) (return (matmul a b))))"
        );
        let module = parse_module(&src).unwrap();
        let args = vec![
            Value::Array(Array::from_logical(
                ArrayType::new(t, 2, Layout::Row),
                vec![2, 3],
                &elems_a,
            )),
            Value::Array(Array::from_logical(
                ArrayType::new(t, 2, Layout::Col),
                vec![3, 2],
                &elems_b,
            )),
        ];
        for parallel in [false, true] {
            let opts = if parallel {
                cpu::CpuOptions::parallel()
            } else {
                cpu::CpuOptions::default()
            };
            let got = cpu::compile_with(&module, opts)
                .unwrap()
                .call("f", args.clone())
                .unwrap();
            let Value::Array(got) = &got[0] else {
                panic!("{t}: not an array")
            };
            let got: Vec<(f64, f64)> = got
                .elements()
                .iter()
                .map(|s| match s {
                    Scalar::C64(z) => (z.re as f64, z.im as f64),
                    Scalar::C128(z) => (z.re, z.im),
                    other => (other.as_f64().unwrap(), 0.0),
                })
                .collect();
            let (want, eps): (Vec<(f64, f64)>, f64) = match t {
                ScalarType::F64 => (numpy_f64.iter().map(|v| (*v, 0.0)).collect(), 1e-15),
                ScalarType::F32 => (numpy_f32.iter().map(|v| (*v, 0.0)).collect(), 1e-6),
                ScalarType::C128 => (numpy_c128.to_vec(), 1e-15),
                // c64: the c128 result rounded, plus single-precision rounding.
                _ => (numpy_c128.to_vec(), 1e-6),
            };
            for (g, w) in got.iter().zip(&want) {
                let scale = 30.0; // the largest |a_ik b_kj| sum of these operands
                assert!(
                    (g.0 - w.0).abs() <= eps * scale && (g.1 - w.1).abs() <= eps * scale,
                    "{t} (parallel {parallel}): {got:?} vs NumPy {want:?}"
                );
            }
        }
    }
}

/// Deterministic non-integer values in [-1, 1).
fn unit_values(n: usize, seed: u64) -> Vec<f64> {
    small_ints(n, seed)
        .iter()
        .enumerate()
        .map(|(i, v)| *v as f64 / 4.0 + ((i % 7) as f64) / 29.0 - 0.1)
        .collect()
}

/// Setup installs OpenBLAS (scripts/setup.sh), so it must load unless `VR_BLAS=off`;
/// then BLAS takes contiguous, transposed and padded operands and agrees with the
/// `gemm` crate's product within rounding.
#[test]
fn openblas_is_loaded_and_agrees_with_the_gemm_crate() {
    let off = std::env::var("VR_BLAS").is_ok_and(|v| matches!(v.as_str(), "off" | "0" | "none"));
    assert_eq!(blas::blas().is_none(), off, "OpenBLAS (libopenblas0) should load");
    if off {
        return;
    }
    let (m, k, n) = (70, 90, 50);
    // a: row-major with padded rows (ld = k + 3); b: column-major (BLAS: transposed).
    let a_store = unit_values(m * (k + 3), 7);
    let b_store = unit_values(k * n, 8);
    let a = MatRef {
        ptr: a_store.as_ptr(),
        rs: (k + 3) as isize,
        cs: 1,
    };
    let b = MatRef {
        ptr: b_store.as_ptr(),
        rs: 1,
        cs: k as isize,
    };
    for dst_col_major in [false, true] {
        let mut by_blas = vec![f64::NAN; m * n];
        let mut by_gemm = vec![f64::NAN; m * n];
        let (rs, cs) = if dst_col_major { (1, m as isize) } else { (n as isize, 1) };
        let strided = |p: MatRef<f64>, rows, cols| Strided {
            ptr: p.ptr,
            rows,
            cols,
            rs: p.rs,
            cs: p.cs,
        };
        let d_blas = MatRef {
            ptr: by_blas.as_mut_ptr() as *const f64,
            rs,
            cs,
        };
        let d_gemm = MatRef {
            ptr: by_gemm.as_mut_ptr() as *const f64,
            rs,
            cs,
        };
        // SAFETY: the stores hold every element the strides address.
        unsafe {
            assert!(
                blas::try_gemm(strided(d_blas, m, n), strided(a, m, k), strided(b, k, n), 1),
                "BLAS should take these operands"
            );
            gemm_float(m, n, k, d_gemm, a, b, 1.0, false);
        }
        for (x, y) in by_blas.iter().zip(&by_gemm) {
            assert!((x - y).abs() <= 1e-13 * k as f64, "{x} vs {y}");
        }
    }
}

/// Products from several threads at once: those that find BLAS busy use the `gemm`
/// crate instead; every result stays exact (integer-valued operands).
#[test]
fn concurrent_products_are_all_exact() {
    let (m, k, n) = (120, 110, 100);
    let ai = small_ints(m * k, 11);
    let bi = small_ints(k * n, 12);
    let want: Vec<f64> = reference_real(&ai, &bi, m, k, n)
        .iter()
        .map(|v| *v as f64)
        .collect();
    let a: Vec<f64> = ai.iter().map(|v| *v as f64).collect();
    let b: Vec<f64> = bi.iter().map(|v| *v as f64).collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (a, b, want) = (&a, &b, &want);
            s.spawn(move || {
                for _ in 0..5 {
                    assert_eq!(&row_major_product(a, b, (m, k, n), t % 2 == 1), want);
                }
            });
        }
    });
}
