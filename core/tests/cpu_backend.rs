//! The LLVM CPU backend against hand-computed results (and, where noted, NumPy, R or
//! Octave). Every call also runs on the reference interpreter, and results and errors
//! (kind, message, function, line, variable, index, bound, dim) must be identical.
#![allow(clippy::result_large_err)] // VrError, the crate's error type, is large by design

use velociraptor::cpu;
use velociraptor::interp;
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::ast::Module;
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};
use velociraptor::{ErrorKind, VrError};

/// A module compiled for the cpu backend, with its source for the interpreter.
struct Both {
    module: Module,
    cpu: cpu::CompiledModule,
}

/// A copy of an argument that shares nothing with the original, so the two backends
/// write into arrays of their own; strides and offset are kept as they are.
fn deep_copy(v: &Value) -> Value {
    match v {
        Value::Array(a) => {
            let data = std::rc::Rc::new(std::cell::RefCell::new(a.data.borrow().clone()));
            Value::Array(Array { data, ..a.clone() })
        }
        other => other.clone(),
    }
}

impl Both {
    /// Run on both backends; they must agree. Array arguments written by the function
    /// are compared afterwards too, and the cpu backend's writes land in `args`.
    fn call(&self, func: &str, args: Vec<Value>) -> Result<Vec<Value>, VrError> {
        self.call_seeded(func, args, None)
    }

    /// `call`, with the built-in random stream started from R's `set.seed(seed)` state
    /// before each backend runs (a `; seed:` file: both must draw the same numbers).
    fn call_seeded(&self, func: &str, args: Vec<Value>, seed: Option<i32>) -> Result<Vec<Value>, VrError> {
        let reseed = || {
            if let Some(n) = seed {
                velociraptor::runtime::rng::set_seed(n);
            }
        };
        let interp_args: Vec<Value> = args.iter().map(deep_copy).collect();
        reseed();
        let want = interp::run(&self.module, func, interp_args.clone());
        reseed();
        let got = self.cpu.call(func, args.clone());
        match (&want, &got) {
            (Ok(w), Ok(g)) => {
                assert_eq!(w.len(), g.len(), "{func}: result count");
                for (a, b) in w.iter().zip(g) {
                    assert!(a.same(b), "{func}: interpreter {a:?} vs cpu {b:?}");
                }
            }
            (Err(w), Err(g)) => assert_eq!(w, g, "{func}: errors differ"),
            _ => panic!("{func}: interpreter {want:?} vs cpu {got:?}"),
        }
        for (a, b) in interp_args.iter().zip(&args) {
            if let (Value::Array(x), Value::Array(y)) = (a, b) {
                let (xe, ye) = (x.elements(), y.elements());
                assert!(
                    xe.len() == ye.len() && xe.iter().zip(&ye).all(|(p, q)| p.same(q)),
                    "{func}: array argument after the call: interpreter {xe:?} vs cpu {ye:?}"
                );
            }
        }
        got
    }
}

fn compile(src: &str) -> Both {
    let module = parse_module(src).expect("parses");
    let cpu = cpu::compile(&module).unwrap_or_else(|e| panic!("compiles: {e}"));
    Both { module, cpu }
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
    Array::from_logical(
        ArrayType::new(ScalarType::F64, dims.len() as u32, layout),
        dims,
        &elems,
    )
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

fn err(r: Result<Vec<Value>, VrError>) -> VrError {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn scalar(v: &Value) -> Scalar {
    match v {
        Value::Scalar(s) => *s,
        other => panic!("not a scalar: {other:?}"),
    }
}

/// One function `f` of one i64-typed expression over parameters a, b (i64).
fn binop_i64(op: &str, a: i64, b: i64) -> Result<Vec<Value>, VrError> {
    let src = format!(
        "(module m :index-base 0 (function f ((a i64) (b i64)) (i64) (locals) (return ({op} a b) :line 3)))"
    );
    run(&src, "f", vec![i64v(a), i64v(b)])
}

#[test]
fn integer_division_family_matches_the_semantics() {
    // Python: 7 // -2 == -4, 7 % -2 == -1, -7 % 2 == 1; C: 7 / -2 == -3, -7 % 2 == -1.
    let cases: &[(&str, i64, i64, i64)] = &[
        ("/", 7, -2, -3),
        ("/", -7, 2, -3),
        ("idiv", 7, -2, -4),
        ("idiv", -7, 2, -4),
        ("idiv", 6, 3, 2),
        ("mod", 7, -2, -1),
        ("mod", -7, 2, 1),
        ("mod", 6, 3, 0),
        ("rem", -7, 2, -1),
        ("rem", 7, -2, 1),
        // MIN / -1 wraps to MIN; its mod and rem are 0.
        ("/", i64::MIN, -1, i64::MIN),
        ("idiv", i64::MIN, -1, i64::MIN),
        ("mod", i64::MIN, -1, 0),
        ("rem", i64::MIN, -1, 0),
        // wrapping arithmetic
        ("+", i64::MAX, 1, i64::MIN),
        ("*", i64::MAX, 2, -2),
        ("-", i64::MIN, 1, i64::MAX),
        ("pow", 3, 4, 81),
        ("pow", 2, 64, 0),
        ("pow", -2, 63, i64::MIN),
        ("min", -3, 5, -3),
        ("max", -3, 5, 5),
    ];
    for &(op, a, b, want) in cases {
        let got = scalar(&one(binop_i64(op, a, b)));
        assert_eq!(got, Scalar::I64(want), "({op} {a} {b})");
    }
}

#[test]
fn division_by_zero_is_a_structured_error() {
    for op in ["/", "idiv", "mod", "rem"] {
        let e = err(binop_i64(op, 5, 0));
        assert_eq!(e.kind, ErrorKind::DivisionByZero, "{op}");
        assert_eq!(e.function.as_deref(), Some("f"));
        assert_eq!(e.line, Some(3));
    }
    let e = err(binop_i64("pow", 2, -1));
    assert_eq!(e.kind, ErrorKind::Runtime);
}

#[test]
fn i32_arithmetic_wraps() {
    let src = "(module m :index-base 0
      (function f ((a i32) (b i32)) (i32 i32 i32)
        (locals)
        (return (* a b) (/ a (neg b)) (abs a))))";
    let r = run(src, "f", vec![i32v(i32::MIN), i32v(1)]).unwrap();
    assert_eq!(scalar(&r[0]), Scalar::I32(i32::MIN));
    assert_eq!(scalar(&r[1]), Scalar::I32(i32::MIN));
    assert_eq!(scalar(&r[2]), Scalar::I32(i32::MIN));
    let r = run(src, "f", vec![i32v(65536), i32v(65536)]).unwrap();
    assert_eq!(scalar(&r[0]), Scalar::I32(0));
}

fn binop_f64(op: &str, a: f64, b: f64) -> f64 {
    let src = format!("(module m :index-base 0 (function f ((a f64) (b f64)) (f64) (locals) (return ({op} a b))))");
    match scalar(&one(run(&src, "f", vec![f64v(a), f64v(b)]))) {
        Scalar::F64(v) => v,
        other => panic!("{other:?}"),
    }
}

#[test]
fn float_operators_follow_ieee_and_r() {
    // R: 7.5 %/% -2 == -4, 7.5 %% -2 == -0.5; C fmod(7.5, -2) == 1.5.
    assert_eq!(binop_f64("idiv", 7.5, -2.0), -4.0);
    assert_eq!(binop_f64("mod", 7.5, -2.0), -0.5);
    assert_eq!(binop_f64("rem", 7.5, -2.0), 1.5);
    assert_eq!(binop_f64("/", 1.0, 0.0), f64::INFINITY);
    assert!(binop_f64("/", 0.0, 0.0).is_nan());
    assert!(binop_f64("min", 1.0, f64::NAN).is_nan());
    assert!(binop_f64("min", f64::NAN, 1.0).is_nan());
    assert!(binop_f64("max", f64::NAN, 1.0).is_nan());
    assert_eq!(binop_f64("max", -1.0, 2.0), 2.0);
    assert_eq!(binop_f64("min", -1.0, 2.0), -1.0);
    assert_eq!(binop_f64("pow", 2.0, 0.5), 2f64.powf(0.5));
    assert_eq!(binop_f64("atan2", 1.0, -1.0), 1f64.atan2(-1.0));
}

#[test]
fn comparisons_with_nan() {
    let src = "(module m :index-base 0
      (function f ((a f64) (b f64)) (bool bool bool bool)
        (locals)
        (return (< a b) (== a b) (!= a b) (>= a b))))";
    let r = run(src, "f", vec![f64v(f64::NAN), f64v(1.0)]).unwrap();
    let got: Vec<Scalar> = r.iter().map(scalar).collect();
    assert_eq!(
        got,
        vec![
            Scalar::Bool(false),
            Scalar::Bool(false),
            Scalar::Bool(true),
            Scalar::Bool(false)
        ]
    );
}

#[test]
fn math_functions_equal_rusts_bit_for_bit() {
    let fns = [
        "sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
        "tanh",
    ];
    let rust: [fn(f64) -> f64; 13] = [
        f64::sqrt,
        f64::exp,
        f64::ln,
        f64::log10,
        f64::sin,
        f64::cos,
        f64::tan,
        f64::asin,
        f64::acos,
        f64::atan,
        f64::sinh,
        f64::cosh,
        f64::tanh,
    ];
    for (name, r) in fns.iter().zip(rust) {
        let src = format!(
            "(module m :index-base 0 (function f ((a f64)) (f64) (locals) (return ({name} a))))"
        );
        let m = compile(&src);
        for x in [0.3, 0.7, 1.5, 2.0, -0.25, 10.0] {
            let got = scalar(&one(m.call("f", vec![f64v(x)])));
            let want = r(x);
            match got {
                Scalar::F64(g) => assert!(
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                    "{name}({x}): {g} vs {want}"
                ),
                other => panic!("{other:?}"),
            }
        }
    }
    // f32 goes through the f32 C functions, like f32::sin.
    let src = "(module m :index-base 0 (function f ((a f32)) (f32 f32) (locals) (return (sin a) (exp a))))";
    let r = run(src, "f", vec![Value::Scalar(Scalar::F32(0.7))]).unwrap();
    assert_eq!(scalar(&r[0]), Scalar::F32(0.7f32.sin()));
    assert_eq!(scalar(&r[1]), Scalar::F32(0.7f32.exp()));
}

#[test]
fn rounding_functions() {
    // NumPy: rint([2.5, -0.5, 3.5, -2.5]) == [2, -0, 4, -2]
    let src = "(module m :index-base 0
      (function f ((a f64)) (f64 f64 f64 f64 bool bool)
        (locals)
        (return (round a) (floor a) (ceil a) (trunc a) (isnan a) (isinf a))))";
    let cases: [(f64, [f64; 4]); 4] = [
        (2.5, [2.0, 2.0, 3.0, 2.0]),
        (-0.5, [-0.0, -1.0, -0.0, -0.0]),
        (3.5, [4.0, 3.0, 4.0, 3.0]),
        (-2.5, [-2.0, -3.0, -2.0, -2.0]),
    ];
    for (x, want) in cases {
        let r = run(src, "f", vec![f64v(x)]).unwrap();
        for k in 0..4 {
            match scalar(&r[k]) {
                Scalar::F64(g) => assert_eq!(g.to_bits(), want[k].to_bits(), "fn {k} of {x}"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(scalar(&r[4]), Scalar::Bool(false));
    }
    let r = run(src, "f", vec![f64v(f64::NEG_INFINITY)]).unwrap();
    assert_eq!(scalar(&r[5]), Scalar::Bool(true));
    let r = run(src, "f", vec![f64v(f64::NAN)]).unwrap();
    assert_eq!(scalar(&r[4]), Scalar::Bool(true));
    assert_eq!(scalar(&r[5]), Scalar::Bool(false));
}

#[test]
fn casts() {
    let src = "(module m :index-base 0
      (function f ((a f64) (n i64)) (i32 i64 i32 bool f32 f64)
        (locals)
        (return (cast i32 a) (cast i64 a) (cast i32 n) (cast bool a) (cast f32 a) (cast f64 (cast bool n)))))";
    let r = run(src, "f", vec![f64v(-2.9), i64v((1 << 32) + 5)]).unwrap();
    let got: Vec<Scalar> = r.iter().map(scalar).collect();
    assert_eq!(
        got,
        vec![
            Scalar::I32(-2),
            Scalar::I64(-2),
            Scalar::I32(5),
            Scalar::Bool(true),
            Scalar::F32(-2.9f32),
            Scalar::F64(1.0)
        ]
    );
    let r = run(src, "f", vec![f64v(0.0), i64v(0)]).unwrap();
    assert_eq!(scalar(&r[3]), Scalar::Bool(false));
    assert_eq!(scalar(&r[5]), Scalar::F64(0.0));
    // Edges of i32: 2147483647.9 truncates to MAX; -2147483648.9 to MIN.
    let r = run(src, "f", vec![f64v(2147483647.9), i64v(0)]).unwrap();
    assert_eq!(scalar(&r[0]), Scalar::I32(i32::MAX));
    let r = run(src, "f", vec![f64v(-2147483648.9), i64v(0)]).unwrap();
    assert_eq!(scalar(&r[0]), Scalar::I32(i32::MIN));
    // NaN (true as bool) and out-of-range values are invalid casts.
    for bad in [f64::NAN, 2147483648.0, -2147483649.0, f64::INFINITY] {
        let e = err(run(src, "f", vec![f64v(bad), i64v(0)]));
        assert_eq!(e.kind, ErrorKind::Runtime, "{bad}");
        assert!(e.message.contains("invalid cast"), "{e}");
        assert_eq!(e.function.as_deref(), Some("f"));
    }
    let src64 =
        "(module m :index-base 0 (function f ((a f64)) (i64) (locals) (return (cast i64 a))))";
    assert_eq!(
        scalar(&one(run(src64, "f", vec![f64v(-9223372036854775808.0)]))),
        Scalar::I64(i64::MIN)
    );
    assert_eq!(
        err(run(src64, "f", vec![f64v(9223372036854775808.0)])).kind,
        ErrorKind::Runtime
    );
}

const CALLS: &str = "(module calls :index-base 0
  (function fib ((n i64)) (i64)
    (locals)
    (if (< n 2) (block (return n)))
    (return (+ (call fib (- n 1)) (call fib (- n 2)))))
  (function divmod ((a i64) (b i64)) (i64 i64)
    (locals)
    (return (idiv a b) (mod a b)))
  (function use_divmod ((a i64) (b i64)) (i64)
    (locals (q i64) (r i64))
    (mset (q r) (call divmod a b))
    (return (+ (* q 100) r)))
  (function inner ((a i64)) (i64)
    (locals)
    (return (/ 10 a) :line 12))
  (function outer ((a i64)) (i64)
    (locals (x i64))
    (set x (call inner a) :line 20)
    (return (+ x 1)))
  (function noop ((a i64)) ()
    (locals)
    (expr (call inner a)))
  (function boom () (bool)
    (locals)
    (return (== (/ 1 0) 0)))
  (function lazy ((a bool)) (bool bool)
    (locals)
    (return (and a (call boom)) (or (not a) (call boom)))))";

#[test]
fn calls_recursion_and_multiple_results() {
    let m = compile(CALLS);
    assert_eq!(
        scalar(&one(m.call("fib", vec![i64v(20)]))),
        Scalar::I64(6765)
    );
    assert_eq!(
        scalar(&one(m.call("use_divmod", vec![i64v(-7), i64v(2)]))),
        Scalar::I64(-4 * 100 + 1)
    );
    assert_eq!(scalar(&one(m.call("outer", vec![i64v(5)]))), Scalar::I64(3));
    assert!(m.call("noop", vec![i64v(5)]).unwrap().is_empty());
    // An error in a callee propagates with the callee's location.
    let e = err(m.call("outer", vec![i64v(0)]));
    assert_eq!(e.kind, ErrorKind::DivisionByZero);
    assert_eq!(e.function.as_deref(), Some("inner"));
    assert_eq!(e.line, Some(12));
    assert_eq!(
        err(m.call("noop", vec![i64v(0)])).kind,
        ErrorKind::DivisionByZero
    );
    // and/or short-circuit: boom is never called.
    let r = m.call("lazy", vec![boolv(false)]).unwrap();
    assert_eq!(
        r.iter().map(scalar).collect::<Vec<_>>(),
        vec![Scalar::Bool(false), Scalar::Bool(true)]
    );
    assert_eq!(
        err(m.call("lazy", vec![boolv(true)])).function.as_deref(),
        Some("boom")
    );
    // wrong arguments
    assert_eq!(
        err(m.call("fib", vec![f64v(1.0)])).kind,
        ErrorKind::InvalidArgument
    );
    assert_eq!(err(m.call("fib", vec![])).kind, ErrorKind::InvalidArgument);
    assert_eq!(err(m.call("nope", vec![])).kind, ErrorKind::InvalidArgument);
}

const LOOPS: &str = "(module loops :index-base 0
  (function down ((a i64) (b i64) (s i64)) (i64 i64)
    (locals (i i64) (acc i64))
    (set acc 0)
    (set i -1)
    (for (i) (range a b s) (block (set acc (+ (* acc 10) i))))
    (return acc i))
  (function grid ((n i64) (m i32)) (i64 i64 i32)
    (locals (i i64) (j i32) (acc i64))
    (set acc 0)
    (for (i j) (domain (range 1 n) (range 1:i32 m)) (block (set acc (+ (* acc 10) (+ (* i 2) (cast i64 j))))))
    (return acc i j))
  (function control ((n i64)) (i64)
    (locals (i i64) (acc i64))
    (set acc 0)
    (for (i) (range 0 n)
      (block
        (if (== (mod i 2) 1) (block (continue)))
        (if (> i 6) (block (break)))
        (set acc (+ acc i))))
    (return acc))
  (function collatz ((n i64)) (i64)
    (locals (x i64) (steps i64))
    (set x n)
    (set steps 0)
    (while (!= x 1)
      (block
        (if (== (mod x 2) 0) (block (set x (idiv x 2))) (block (set x (+ (* 3 x) 1))))
        (set steps (+ steps 1))))
    (return steps))
  (function par ((n i64)) (i64)
    (locals (i i64) (acc i64))
    (set acc 0)
    (parfor (i) (range 1 n) (block (continue)))
    (gpu (set acc 7))
    (return acc))
  (function edge () (i64)
    (locals (i i64) (c i64))
    (set c 0)
    (for (i) (range 9223372036854775805 9223372036854775807) (block (set c (+ c 1))))
    (for (i) (range -9223372036854775807 -9223372036854775808 -1) (block (set c (+ c 10))))
    (return c)))";

#[test]
fn loops_over_ranges_and_domains() {
    let m = compile(LOOPS);
    let r = |a, b, s| {
        let v = m.call("down", vec![i64v(a), i64v(b), i64v(s)]).unwrap();
        (scalar(&v[0]), scalar(&v[1]))
    };
    // 1, 2, 3 (stop inclusive); 4, 2, 0 (negative step); 1, 3 (stop not reached exactly)
    assert_eq!(r(1, 3, 1), (Scalar::I64(123), Scalar::I64(3)));
    assert_eq!(r(4, 0, -2), (Scalar::I64(420), Scalar::I64(0)));
    assert_eq!(r(1, 4, 2), (Scalar::I64(13), Scalar::I64(3)));
    // zero iterations leave the loop variable unchanged
    assert_eq!(r(3, 1, 1), (Scalar::I64(0), Scalar::I64(-1)));
    let e = err(m.call("down", vec![i64v(1), i64v(3), i64v(0)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(e.function.as_deref(), Some("down"));
    // first variable slowest: (1,1) (1,2) (2,1) (2,2) -> 3 4 5 6
    let v = m.call("grid", vec![i64v(2), i32v(2)]).unwrap();
    assert_eq!(
        v.iter().map(scalar).collect::<Vec<_>>(),
        vec![Scalar::I64(3456), Scalar::I64(2), Scalar::I32(2)]
    );
    // an empty inner range makes the domain empty: nothing assigned
    let e = err(m.call("grid", vec![i64v(2), i32v(0)]));
    assert_eq!(
        e.kind,
        ErrorKind::Runtime,
        "i is unassigned after an empty domain: {e}"
    );
    assert_eq!(e.variable.as_deref(), Some("i"));
    assert_eq!(
        scalar(&one(m.call("control", vec![i64v(100)]))),
        Scalar::I64(2 + 4 + 6)
    );
    assert_eq!(
        scalar(&one(m.call("collatz", vec![i64v(27)]))),
        Scalar::I64(111)
    );
    assert_eq!(scalar(&one(m.call("par", vec![i64v(5)]))), Scalar::I64(7));
    assert_eq!(scalar(&one(m.call("edge", vec![]))), Scalar::I64(3 + 20));
}

#[test]
fn missing_return_and_unassigned_variables() {
    let src = "(module m :index-base 0
      (function f ((a i64)) (i64) :line 4
        (locals (x i64))
        (if (> a 0) (block (return a)))
        (if (< a 0) (block (return x :line 9)))))";
    let m = compile(src);
    assert_eq!(scalar(&one(m.call("f", vec![i64v(3)]))), Scalar::I64(3));
    let e = err(m.call("f", vec![i64v(0)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("missing return"), "{e}");
    let e = err(m.call("f", vec![i64v(-1)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(e.variable.as_deref(), Some("x"));
    assert_eq!(e.line, Some(9));
}

const ARRAYS: &str = "(module arrays :index-base 0
  (function total ((a f64[2,strided])) (f64)
    (locals (i i64) (j i64) (s f64))
    (set s 0.0)
    (for (i j) (domain (range 0 (- (dim a 0) 1)) (range 0 (- (dim a 1) 1)))
      (block (set s (+ (* s 10.0) (index a i j)))))
    (return s))
  (function scale ((a f64[1,row]) (k f64)) ()
    (locals (i i64))
    (for (i) (range 0 (- (len a) 1)) (block (set (index a i) (* k (index a i))))))
  (function get ((a f64[2,col]) (i i64) (j i64)) (f64)
    (locals)
    (return (index a i j) :line 30))
  (function neg ((a f64[1,row]) (i i64)) (f64)
    (locals)
    (return (index a i :neg)))
  (function flat_col ((a f64[2,col]) (i i64)) (f64)
    (locals)
    (return (index a i :flat)))
  (function flat_row ((a f64[2,row]) (i i64)) (f64)
    (locals)
    (return (index a i :flat)))
  (function shape ((a f64[2,strided])) (i64 i64 i64 i64)
    (locals)
    (return (dim a 0) (dim a 1) (len a) (ndims a)))
  (function flags ((b bool[1,row])) (i64)
    (locals (i i64) (c i64))
    (set c 0)
    (for (i) (range 0 (- (len b) 1))
      (block
        (if (index b i) (block (set c (+ c 1))))
        (set (index b i) (not (index b i)))))
    (return c)))";

#[test]
fn array_parameters_of_every_layout() {
    let m = compile(ARRAYS);
    let logical = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3, logical order
    for layout in [Layout::Row, Layout::Col] {
        let a = f64_array(vec![2, 3], layout, &logical);
        assert_eq!(
            scalar(&one(m.call("total", vec![Value::Array(a)]))),
            Scalar::F64(123456.0),
            "{layout:?}"
        );
    }
    // A reversed view: strides -1 from the last element.
    let base = f64_array(vec![4], Layout::Row, &[1.0, 2.0, 3.0, 4.0]);
    let mut rev = base.clone();
    rev.ty.layout = Layout::Strided;
    rev.offset = 3;
    rev.strides = vec![-1];
    let rev2 = Array {
        ty: ArrayType::new(ScalarType::F64, 2, Layout::Strided),
        dims: vec![2, 2],
        strides: vec![-1, -2],
        offset: 3,
        data: base.data.clone(),
    };
    assert_eq!(
        scalar(&one(m.call("total", vec![Value::Array(rev2)]))),
        Scalar::F64(4231.0)
    );
    let _ = rev;
    // Writes go through to the caller's array.
    let a = f64_array(vec![3], Layout::Row, &[1.0, 2.0, 3.0]);
    m.call("scale", vec![Value::Array(a.clone()), f64v(2.0)])
        .unwrap();
    assert_eq!(
        a.elements(),
        vec![Scalar::F64(2.0), Scalar::F64(4.0), Scalar::F64(6.0)]
    );
    // Col-major 2 x 3: element (1, 2) is 6; :flat enumerates first index fastest
    // (MATLAB A(:)): 1 4 2 5 3 6; row-major: last fastest: 1 2 3 4 5 6.
    let c = f64_array(vec![2, 3], Layout::Col, &logical);
    assert_eq!(
        scalar(&one(
            m.call("get", vec![Value::Array(c.clone()), i64v(1), i64v(2)])
        )),
        Scalar::F64(6.0)
    );
    let flat_col: Vec<f64> = (0..6)
        .map(|i| {
            match scalar(&one(
                m.call("flat_col", vec![Value::Array(c.clone()), i64v(i)])
            )) {
                Scalar::F64(v) => v,
                _ => unreachable!(),
            }
        })
        .collect();
    assert_eq!(flat_col, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let r = f64_array(vec![2, 3], Layout::Row, &logical);
    let flat_row: Vec<f64> = (0..6)
        .map(|i| {
            match scalar(&one(
                m.call("flat_row", vec![Value::Array(r.clone()), i64v(i)])
            )) {
                Scalar::F64(v) => v,
                _ => unreachable!(),
            }
        })
        .collect();
    assert_eq!(flat_row, logical.to_vec());
    let v = f64_array(vec![3], Layout::Row, &[1.0, 2.0, 3.0]);
    assert_eq!(
        scalar(&one(m.call("neg", vec![Value::Array(v.clone()), i64v(-1)]))),
        Scalar::F64(3.0)
    );
    assert_eq!(
        scalar(&one(m.call("neg", vec![Value::Array(v.clone()), i64v(-3)]))),
        Scalar::F64(1.0)
    );
    assert_eq!(
        scalar(&one(m.call("neg", vec![Value::Array(v.clone()), i64v(0)]))),
        Scalar::F64(1.0)
    );
    let e = err(m.call("neg", vec![Value::Array(v), i64v(-4)]));
    assert_eq!((e.index, e.bound, e.dim), (Some(-4), Some(3), Some(0)));
    let s = m.call("shape", vec![Value::Array(r.clone())]).unwrap();
    assert_eq!(
        s.iter().map(scalar).collect::<Vec<_>>(),
        vec![
            Scalar::I64(2),
            Scalar::I64(3),
            Scalar::I64(6),
            Scalar::I64(2)
        ]
    );
    // bool arrays: one byte per element, read and written
    let b = Array::from_logical(
        ArrayType::new(ScalarType::Bool, 1, Layout::Row),
        vec![3],
        &[Scalar::Bool(true), Scalar::Bool(false), Scalar::Bool(true)],
    );
    assert_eq!(
        scalar(&one(m.call("flags", vec![Value::Array(b.clone())]))),
        Scalar::I64(2)
    );
    assert_eq!(
        b.elements(),
        vec![Scalar::Bool(false), Scalar::Bool(true), Scalar::Bool(false)]
    );
    // layout must match a non-strided parameter
    assert_eq!(
        err(m.call("get", vec![Value::Array(r), i64v(0), i64v(0)])).kind,
        ErrorKind::InvalidArgument
    );
}

#[test]
fn out_of_bounds_reports_variable_index_bound_and_dim() {
    let m = compile(ARRAYS);
    let c = f64_array(vec![2, 3], Layout::Col, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let e = err(m.call("get", vec![Value::Array(c.clone()), i64v(1), i64v(3)]));
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.function.as_deref(), Some("get"));
    assert_eq!(e.line, Some(30));
    assert_eq!(e.variable.as_deref(), Some("a"));
    assert_eq!((e.index, e.bound, e.dim), (Some(3), Some(3), Some(1)));
    let e = err(m.call("get", vec![Value::Array(c.clone()), i64v(-1), i64v(0)]));
    assert_eq!((e.index, e.bound, e.dim), (Some(-1), Some(2), Some(0)));
    let e = err(m.call("flat_col", vec![Value::Array(c), i64v(6)]));
    assert_eq!((e.index, e.bound, e.dim), (Some(6), Some(6), Some(0)));
}

#[test]
fn one_based_modules_report_the_index_as_written() {
    let src = "(module m :index-base 1
      (function get ((a f64[2,col]) (i i64) (j i64)) (f64)
        (locals)
        (return (index a i j)))
      (function lin ((a f64[2,col]) (i i64)) (f64)
        (locals)
        (return (index a i :flat)))
      (function sum_nocheck ((a f64[1,row])) (f64)
        (locals (i i64) (s f64))
        (set s 0.0)
        (for (i) (range 1 (len a)) (block (set s (+ s (index a i :nocheck)))))
        (return s)))";
    let m = compile(src);
    // Octave: A = [1 2 3; 4 5 6]; A(2,3) == 6; A(4) == 5
    let c = f64_array(vec![2, 3], Layout::Col, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(
        scalar(&one(
            m.call("get", vec![Value::Array(c.clone()), i64v(2), i64v(3)])
        )),
        Scalar::F64(6.0)
    );
    assert_eq!(
        scalar(&one(m.call("lin", vec![Value::Array(c.clone()), i64v(4)]))),
        Scalar::F64(5.0)
    );
    let e = err(m.call("get", vec![Value::Array(c.clone()), i64v(0), i64v(1)]));
    assert_eq!((e.index, e.bound, e.dim), (Some(0), Some(2), Some(0)));
    let e = err(m.call("get", vec![Value::Array(c), i64v(1), i64v(4)]));
    assert_eq!((e.index, e.bound, e.dim), (Some(4), Some(3), Some(1)));
    let v = f64_array(vec![4], Layout::Row, &[1.0, 2.0, 3.0, 4.5]);
    assert_eq!(
        scalar(&one(m.call("sum_nocheck", vec![Value::Array(v)]))),
        Scalar::F64(10.5)
    );
}

#[test]
fn complex_values_compile() {
    // Complex numbers compile now (cpu_complex.rs tests them): an identity round trip.
    let src = "(module m :index-base 0 (function f ((a c128)) (c128) (locals) (return a)))";
    let c = cpu::compile(&parse_module(src).unwrap()).unwrap();
    let z = Value::Scalar(Scalar::C128(num_complex::Complex64::new(1.5, -2.0)));
    let r = c.call("f", vec![z.clone()]).unwrap();
    assert!(r.len() == 1 && r[0].same(&z), "{r:?}");
}

#[test]
fn llvm_ir_before_optimization() {
    let src = "(module m :index-base 0
      (function axpy ((a f64) (x f64[1,row]) (i i64)) (f64)
        (locals)
        (return (+ (* a (index x i)) 1.0) :line 2)))";
    let ir = cpu::emit_llvm_ir(&parse_module(src).unwrap()).unwrap();
    insta::assert_snapshot!(ir);
}

/// `cargo test -p velociraptor --test cpu_backend compile_latency -- --ignored --nocapture`
#[test]
#[ignore]
fn compile_latency() {
    let src = "(module dot :index-base 0
      (function dot ((x f64[1,row]) (y f64[1,row])) (f64)
        (locals (i i64) (s f64))
        (set s 0.0)
        (for (i) (range 0 (- (dim x 0) 1))
          (block (set s (+ s (* (index x i) (index y i))))))
        (return s)))";
    let m = parse_module(src).unwrap();
    let mut times = Vec::new();
    for _ in 0..21 {
        let t = std::time::Instant::now();
        let c = cpu::compile(&m).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        drop(c);
    }
    times.remove(0);
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "compile latency of dot: median {:.2} ms, min {:.2} ms, max {:.2} ms (20 compiles)",
        times[10], times[0], times[19]
    );
}

/// Every scalar operator on every real type over awkward values: the cpu backend must
/// agree with the interpreter on each result and each error.
#[test]
fn operator_grid_agrees_with_the_interpreter() {
    let ops = [
        "+", "-", "*", "/", "idiv", "mod", "rem", "min", "max", "pow", "<", "<=", "==", "!=",
        "atan2",
    ];
    let ints: &[i64] = &[
        0,
        1,
        -1,
        2,
        -7,
        7,
        3,
        i64::MAX,
        i64::MIN,
        i32::MAX as i64,
        i32::MIN as i64,
    ];
    let floats: &[f64] = &[
        0.0,
        -0.0,
        1.0,
        -1.5,
        2.5,
        7.0,
        -7.0,
        1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        3e-310,
    ];
    let mut checked = 0;
    for ty in ["i32", "i64", "f32", "f64"] {
        for op in ops {
            let is_float = ty.starts_with('f');
            let float_only = op == "atan2";
            let int_only = false;
            if (float_only && !is_float) || (int_only && is_float) {
                continue;
            }
            let src = format!("(module m :index-base 0 (function f ((a {ty}) (b {ty})) ({}) (locals) (return ({op} a b) :line 1)))",
                if ["<", "<=", "==", "!="].contains(&op) { "bool" } else { ty });
            let m = compile(&src);
            let vals: Vec<Value> = match ty {
                "i32" => ints.iter().map(|v| i32v(*v as i32)).collect(),
                "i64" => ints.iter().map(|v| i64v(*v)).collect(),
                "f32" => floats
                    .iter()
                    .map(|v| Value::Scalar(Scalar::F32(*v as f32)))
                    .collect(),
                _ => floats.iter().map(|v| f64v(*v)).collect(),
            };
            for a in &vals {
                for b in &vals {
                    // Both::call asserts agreement, errors included.
                    let _ = m.call("f", vec![a.clone(), b.clone()]);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn unary_functions_and_casts_agree_with_the_interpreter() {
    let fns = [
        "neg", "abs", "floor", "ceil", "round", "trunc", "sqrt", "exp", "log", "sin", "isnan",
        "isinf",
    ];
    let floats: &[f64] = &[
        0.0,
        -0.0,
        0.5,
        -2.5,
        1e10,
        -1e300,
        f64::INFINITY,
        f64::NAN,
        2147483647.5,
        -9.3e18,
    ];
    for ty in ["f32", "f64"] {
        for f in fns {
            let rty = if f.starts_with("is") { "bool" } else { ty };
            let m = compile(&format!("(module m :index-base 0 (function f ((a {ty})) ({rty}) (locals) (return ({f} a))))"));
            for x in floats {
                let v = if ty == "f32" {
                    Value::Scalar(Scalar::F32(*x as f32))
                } else {
                    f64v(*x)
                };
                let _ = m.call("f", vec![v]);
            }
        }
        for to in ["bool", "i32", "i64", "f32", "f64"] {
            let m = compile(&format!("(module m :index-base 0 (function f ((a {ty})) ({to}) (locals) (return (cast {to} a) :line 5)))"));
            for x in floats {
                let v = if ty == "f32" {
                    Value::Scalar(Scalar::F32(*x as f32))
                } else {
                    f64v(*x)
                };
                let _ = m.call("f", vec![v]);
            }
        }
    }
    for ty in ["i32", "i64", "bool"] {
        for to in ["bool", "i32", "i64", "f32", "f64"] {
            let m = compile(&format!("(module m :index-base 0 (function f ((a {ty})) ({to}) (locals) (return (cast {to} a))))"));
            let vals: Vec<Value> = match ty {
                "i32" => [0, 1, -1, i32::MAX, i32::MIN]
                    .iter()
                    .map(|v| i32v(*v))
                    .collect(),
                "i64" => [0, 1, -1, i64::MAX, i64::MIN, 1 << 40]
                    .iter()
                    .map(|v| i64v(*v))
                    .collect(),
                _ => vec![boolv(true), boolv(false)],
            };
            for v in vals {
                let _ = m.call("f", vec![v]);
            }
        }
    }
}

#[test]
fn deep_recursion_up_to_the_interpreters_limit() {
    let src = "(module m :index-base 0
      (function down ((n i64)) (i64)
        (locals)
        (if (== n 0) (block (return 0)))
        (return (+ 1 (call down (- n 1))))))";
    let m = compile(src);
    // 10 000 nested calls are allowed, one more is \"recursion too deep\".
    assert_eq!(
        scalar(&one(m.call("down", vec![i64v(9999)]))),
        Scalar::I64(9999)
    );
    let e = err(m.call("down", vec![i64v(10_000)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("recursion too deep"), "{e}");
}

/// Rough speed check, printed not asserted:
/// `cargo test -p velociraptor --test cpu_backend dot_speed -- --ignored --nocapture`
#[test]
#[ignore]
fn dot_speed() {
    let src = "(module dot :index-base 0
      (function dot ((x f64[1,row]) (y f64[1,row])) (f64)
        (locals (i i64) (s f64))
        (set s 0.0)
        (for (i) (range 0 (- (dim x 0) 1))
          (block (set s (+ s (* (index x i) (index y i))))))
        (return s))
      (function dot_nocheck ((x f64[1,row]) (y f64[1,row])) (f64)
        (locals (i i64) (s f64))
        (set s 0.0)
        (for (i) (range 0 (- (dim x 0) 1))
          (block (set s (+ s (* (index x i :nocheck) (index y i :nocheck))))))
        (return s)))";
    let m = parse_module(src).unwrap();
    let c = cpu::compile(&m).unwrap();
    let n = 1_000_000;
    let xs: Vec<f64> = (0..n).map(|i| (i % 7) as f64 * 0.5).collect();
    let x = Value::Array(f64_array(vec![n], Layout::Row, &xs));
    let time = |f: &dyn Fn() -> Vec<Value>| {
        let mut ts = Vec::new();
        let mut last = Vec::new();
        for _ in 0..5 {
            let t = std::time::Instant::now();
            last = f();
            ts.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (ts[2], last)
    };
    let (t_cpu, r_cpu) = time(&|| c.call("dot", vec![x.clone(), x.clone()]).unwrap());
    let (t_nc, _) = time(&|| c.call("dot_nocheck", vec![x.clone(), x.clone()]).unwrap());
    let (t_int, r_int) = time(&|| interp::run(&m, "dot", vec![x.clone(), x.clone()]).unwrap());
    let plain: f64 = xs.iter().zip(&xs).fold(0.0, |s, (a, b)| s + a * b);
    assert!(r_cpu[0].same(&r_int[0]) && r_cpu[0].same(&f64v(plain)));
    println!("dot n=1e6 (median of 5): cpu {t_cpu:.2} ms, cpu :nocheck {t_nc:.2} ms, interp {t_int:.1} ms");
}

const LOCALS: &str = "(module locals :index-base 0
  (function alias ((a f64[1,row]) (c f64[2,col])) (f64 i64)
    (locals (b f64[1,strided]) (d f64[2,col]))
    (set b a)
    (set (index b 0) 42.0)
    (set d c)
    (return (+ (index b 0) (index a 0)) (+ (dim d 0) (len b))))
  (function freed ((a f64[1,row])) (f64)
    (locals (b f64[1,row]))
    (set b a)
    (free b)
    (return (index b 0) :line 7))
  (function unset ((a f64[1,row])) (i64)
    (locals (b f64[1,row]))
    (return (len b) :line 9))
  (function pass ((a f64[1,row])) (f64)
    (locals (b f64[1,strided]))
    (set b a)
    (return (call first b)))
  (function first ((x f64[1,strided])) (f64)
    (locals)
    (return (index x 0)))
  (function divmod ((a i64) (b i64)) (i64 i64)
    (locals)
    (return (idiv a b) (mod a b)))
  (function tg ((a i64) (b i64)) (i64)
    (locals)
    (return (+ (* 100 (tget (call divmod a b) 0)) (tget (tuple a b) 1)))))";

#[test]
fn array_locals_refer_to_their_arrays() {
    let m = compile(LOCALS);
    let a = f64_array(vec![2], Layout::Row, &[1.0, 2.0]);
    let c = f64_array(vec![3, 1], Layout::Col, &[1.0, 2.0, 3.0]);
    let r = m
        .call("alias", vec![Value::Array(a.clone()), Value::Array(c)])
        .unwrap();
    assert_eq!(
        r.iter().map(scalar).collect::<Vec<_>>(),
        vec![Scalar::F64(84.0), Scalar::I64(5)]
    );
    assert_eq!(a.elements(), vec![Scalar::F64(42.0), Scalar::F64(2.0)]);
    let e = err(m.call("freed", vec![Value::Array(a.clone())]));
    assert_eq!(
        (e.kind, e.variable.as_deref(), e.line),
        (ErrorKind::Runtime, Some("b"), Some(7))
    );
    let e = err(m.call("unset", vec![Value::Array(a.clone())]));
    assert_eq!(
        (e.kind, e.variable.as_deref(), e.line),
        (ErrorKind::Runtime, Some("b"), Some(9))
    );
    assert_eq!(
        scalar(&one(m.call("pass", vec![Value::Array(a)]))),
        Scalar::F64(42.0)
    );
    assert_eq!(
        scalar(&one(m.call("tg", vec![i64v(-7), i64v(2)]))),
        Scalar::I64(-400 + 2)
    );
}

const KERNELS: &str = "(module kernels :index-base 0
  (function matmul_loops ((a f64[2,row]) (b f64[2,col]) (c f64[2,row])) ()
    (locals (i i64) (j i64) (k i64) (s f64))
    (for (i j) (domain (range 0 (- (dim a 0) 1)) (range 0 (- (dim b 1) 1)))
      (block
        (set s 0.0)
        (for (k) (range 0 (- (dim a 1) 1))
          (block (set s (+ s (* (index a i k) (index b k j))))))
        (set (index c i j) s))))
  (function stencil ((u f64[2,row]) (v f64[2,row])) ()
    (locals (i i64) (j i64))
    (parfor (i j) (domain (range 1 (- (dim u 0) 2)) (range 1 (- (dim u 1) 2)))
      (block
        (set (index v i j)
          (* 0.25 (+ (+ (index u (- i 1) j) (index u (+ i 1) j))
                     (+ (index u i (- j 1)) (index u i (+ j 1)))))))))
  (function sieve ((p bool[1,row])) (i64)
    (locals (i i64) (j i64) (n i64) (count i64))
    (set n (len p))
    (set count 0)
    (for (i) (range 2 (- n 1))
      (block
        (if (index p i)
          (block
            (set count (+ count 1))
            (for (j) (range (* i i) (- n 1) i) (block (set (index p j) false)))))))
    (return count)))";

#[test]
fn kernels_agree_with_numpy() {
    let m = compile(KERNELS);
    // NumPy: np.arange(1,7.).reshape(2,3) @ (np.arange(1,13.).reshape(3,4) * 0.5)
    let a = f64_array(vec![2, 3], Layout::Row, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let bl: Vec<f64> = (1..=12).map(|v| v as f64 * 0.5).collect();
    let b = f64_array(vec![3, 4], Layout::Col, &bl);
    let c = f64_array(vec![2, 4], Layout::Row, &[0.0; 8]);
    m.call(
        "matmul_loops",
        vec![Value::Array(a), Value::Array(b), Value::Array(c.clone())],
    )
    .unwrap();
    let want = [19.0, 22.0, 25.0, 28.0, 41.5, 49.0, 56.5, 64.0];
    assert_eq!(
        c.elements(),
        want.iter().map(|v| Scalar::F64(*v)).collect::<Vec<_>>()
    );
    let ul = [
        0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    let u = f64_array(vec![4, 4], Layout::Row, &ul);
    let v = f64_array(vec![4, 4], Layout::Row, &ul);
    m.call("stencil", vec![Value::Array(u), Value::Array(v.clone())])
        .unwrap();
    let mut want = ul;
    for k in [5, 6, 9, 10] {
        want[k] = 1.25;
    }
    assert_eq!(
        v.elements(),
        want.iter().map(|v| Scalar::F64(*v)).collect::<Vec<_>>()
    );
    // 25 primes below 100
    let p = Array::from_logical(
        ArrayType::new(ScalarType::Bool, 1, Layout::Row),
        vec![100],
        &vec![Scalar::Bool(true); 100],
    );
    assert_eq!(
        scalar(&one(m.call("sieve", vec![Value::Array(p.clone())]))),
        Scalar::I64(25)
    );
    assert_eq!(p.elements()[97], Scalar::Bool(true));
    assert_eq!(p.elements()[91], Scalar::Bool(false));
}

/// Split a conformance run line `f(ARGS) == R` / `f(ARGS) ~= R` / `f(ARGS) => TEXT` into
/// the function name and its JSON arguments.
fn run_line_call(line: &str) -> Option<(String, Vec<serde_json::Value>)> {
    let call = [" == ", " ~= ", " => "]
        .iter()
        .filter_map(|sep| line.find(sep))
        .min()
        .map(|i| &line[..i])?;
    let open = call.find('(')?;
    let close = call.rfind(')')?;
    let args: serde_json::Value =
        serde_json::from_str(&format!("[{}]", &call[open + 1..close])).ok()?;
    Some((call[..open].trim().to_string(), args.as_array()?.clone()))
}

/// Every conformance file the cpu backend compiles runs on it and on the interpreter
/// with identical results and errors; every file it does not compile is rejected as
/// `Unsupported` (never another error, never a panic).
#[test]
fn conformance_suite_agrees_with_the_interpreter_where_supported() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vrir");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                if !p.ends_with("parse") && !p.ends_with("verify") && !p.ends_with("tools") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|e| e == "vrir") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut compiled, mut unsupported, mut calls) = (0, 0, 0);
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let Ok(module) = parse_module(&src) else {
            continue;
        };
        if velociraptor::vrir::verify::verify_module(&module).is_err() {
            continue;
        }
        let cpu = match cpu::compile(&module) {
            Ok(c) => c,
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Unsupported, "{}: {e}", path.display());
                unsupported += 1;
                let what = e
                    .message
                    .split(" in function")
                    .next()
                    .unwrap_or("")
                    .to_string();
                *reasons.entry(what).or_default() += 1;
                continue;
            }
        };
        compiled += 1;
        let both = Both {
            module: module.clone(),
            cpu,
        };
        let seed = src
            .lines()
            .find_map(|l| l.strip_prefix("; seed: "))
            .map(|n| n.trim().parse::<i32>().unwrap_or_else(|e| panic!("{}: seed: {e}", path.display())));
        for line in src.lines() {
            let Some(rest) = line
                .strip_prefix("; run: ")
                .or_else(|| line.strip_prefix("; error: "))
            else {
                continue;
            };
            // An out-of-bounds :nocheck access is undefined in compiled code (semantics,
            // "Indexing"): only the interpreter must report it.
            if line.starts_with("; error: ") && src.contains(":nocheck") {
                continue;
            }
            let Some((func, json_args)) = run_line_call(rest) else {
                panic!("{}: cannot read {line}", path.display())
            };
            let f = module
                .function(&func)
                .unwrap_or_else(|| panic!("{}: no {func}", path.display()));
            let args: Vec<Value> = json_args
                .iter()
                .zip(&f.params)
                .map(|(j, p)| {
                    Value::from_json(j, &p.ty)
                        .unwrap_or_else(|e| panic!("{}: {line}: {e}", path.display()))
                })
                .collect();
            let _ = both.call_seeded(&func, args, seed);
            calls += 1;
        }
    }
    println!("conformance on cpu: {compiled} files compiled ({calls} run lines agree with the interpreter), {unsupported} unsupported");
    for (what, n) in &reasons {
        println!("  {n:4}  {what}");
    }
    assert!(compiled > 0);
}

#[test]
fn views_share_storage_with_steps_of_either_sign() {
    let src = "(module views :index-base 0
      (function f ((B f64[2,row]) (s i64)) (f64 i64 i64)
        (locals (V f64[2,strided]) (W f64[1,strided]))
        (set V (index B (range 2 0 -1) (range _ _ s) :view))
        (set W (index B 1 (range 1 _) :view))
        (set (index W 0) 100.0)
        (return (index V 0 1) (dim V 1) (dim W 0) :line 4)))";
    let m = compile(src);
    // NumPy: B = arange(12.).reshape(3, 4); B[1, 1] = 100; V = B[2::-1, ::2]; V[0, 1] == 10
    let bl: Vec<f64> = (0..12).map(|v| v as f64).collect();
    let b = f64_array(vec![3, 4], Layout::Row, &bl);
    let r = m.call("f", vec![Value::Array(b.clone()), i64v(2)]).unwrap();
    assert_eq!(
        r.iter().map(scalar).collect::<Vec<_>>(),
        vec![Scalar::F64(10.0), Scalar::I64(2), Scalar::I64(3)]
    );
    assert_eq!(b.elements()[5], Scalar::F64(100.0));
    // V = B[2::-1, ::-2] == [[11, 9], ...]: V[0, 1] == 9
    let r = m
        .call("f", vec![Value::Array(b.clone()), i64v(-2)])
        .unwrap();
    assert_eq!(scalar(&r[0]), Scalar::F64(9.0));
    let e = err(m.call("f", vec![Value::Array(b), i64v(0)]));
    assert!(e.message.contains("zero step"), "{e}");
}

#[test]
fn array_results_are_views_of_the_arguments() {
    let src = "(module r :index-base 1
      (function row ((B f64[2,col]) (i i64)) (f64[1,strided] f64[2,col])
        (locals (W f64[1,strided]))
        (set W (index B i (range _ _ -1) :view))
        (return W B)))";
    let m = compile(src);
    // Octave: B = [1 2 3; 4 5 6]; B(2, end:-1:1) == [6 5 4]
    let b = f64_array(vec![2, 3], Layout::Col, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = m
        .call("row", vec![Value::Array(b.clone()), i64v(2)])
        .unwrap();
    let (Value::Array(w), Value::Array(b2)) = (&r[0], &r[1]) else {
        panic!("{r:?}")
    };
    assert_eq!(
        w.elements(),
        vec![Scalar::F64(6.0), Scalar::F64(5.0), Scalar::F64(4.0)]
    );
    assert_eq!(w.ty.layout, Layout::Strided);
    assert!(w.shares_buffer(&b) && b2.shares_buffer(&b));
    let e = err(m.call("row", vec![Value::Array(b), i64v(3)]));
    assert_eq!(
        (e.kind, e.index, e.bound, e.dim),
        (ErrorKind::OutOfBounds, Some(3), Some(2), Some(0))
    );
}

#[test]
fn array_variables_hold_references_not_shared_descriptors() {
    // prev keeps the previous iteration's view after cur moves on; a helper's array
    // result is assigned like any array.
    let src = "(module refs :index-base 0
      (function ident ((x f64[1,strided])) (f64[1,strided])
        (locals)
        (return x))
      (function f ((B f64[2,row])) (f64)
        (locals (i i64) (prev f64[1,strided]) (cur f64[1,strided]) (s f64) (r f64[1,strided]))
        (set s 0.0)
        (for (i) (range 0 (- (dim B 0) 1))
          (block
            (if (> i 0) (block (set prev cur)))
            (set cur (index B i : :view))
            (if (> i 0) (block (set s (+ (* s 100.0) (- (index cur 0) (index prev 0))))))))
        (set r (call ident prev))
        (return (+ s (index r 1)))))";
    let m = compile(src);
    // B = [[1, 2], [10, 20], [100, 200]]: differences of first columns 9 and 90; prev is
    // row 1 at the end, its element 1 is 20.
    let b = f64_array(
        vec![3, 2],
        Layout::Row,
        &[1.0, 2.0, 10.0, 20.0, 100.0, 200.0],
    );
    assert_eq!(
        scalar(&one(m.call("f", vec![Value::Array(b)]))),
        Scalar::F64(900.0 + 90.0 + 20.0)
    );
}

#[test]
fn multiple_results_mix_arrays_and_scalars() {
    let src = "(module mixed :index-base 1
      (function tail ((x f64[1,col])) (f64[1,strided] i64)
        (locals (t f64[1,strided]))
        (set t (index x (range 2 _) :view))
        (return t (len t)))
      (function f ((x f64[1,col])) (f64)
        (locals (t f64[1,strided]) (n i64))
        (mset (t n) (call tail x))
        (return (+ (index t n) (cast f64 n)))))";
    let m = compile(src);
    let x = f64_array(vec![4], Layout::Col, &[1.0, 2.0, 3.0, 4.0]);
    // tail = [2, 3, 4], n = 3: t(3) + 3 == 7
    assert_eq!(
        scalar(&one(m.call("f", vec![Value::Array(x.clone())]))),
        Scalar::F64(7.0)
    );
    let r = m.call("tail", vec![Value::Array(x)]).unwrap();
    assert!(r[0].same(&Value::Array(f64_array(
        vec![3],
        Layout::Strided,
        &[2.0, 3.0, 4.0]
    ))));
}

/// A function with no parameters and no locals whose only statement returns a call's
/// result (found by the generated-programs test): its entry block held no code when the
/// call's result slot was placed, and the slot landed after the terminator.
#[test]
fn call_from_function_without_parameters_or_locals() {
    let src = "(module m :index-base 1
      (function g ((p i64)) (f64)
        (locals)
        (return 1.5))
      (function f () (f64)
        (locals)
        (return (call g 1))))";
    assert!(one(run(src, "f", vec![])).same(&f64v(1.5)));
}

/// The logical elements of an array result as f64 (for hand-written expectations).
fn as_f64s(v: &Value) -> (Vec<usize>, Vec<isize>, Vec<f64>) {
    let Value::Array(a) = v else {
        panic!("not an array: {v:?}")
    };
    let xs = a
        .elements()
        .iter()
        .map(|s| match s {
            Scalar::Bool(b) => *b as i64 as f64,
            Scalar::I32(x) => *x as f64,
            Scalar::I64(x) => *x as f64,
            Scalar::F32(x) => *x as f64,
            Scalar::F64(x) => *x,
            other => panic!("{other:?}"),
        })
        .collect();
    (a.dims.clone(), a.strides.clone(), xs)
}

#[test]
fn allocation_expressions_of_every_init_and_layout() {
    let src = "(module a :index-base 0
      (function z () (f64[2,row]) (locals) (return (zeros f64[2,row] 2 3)))
      (function o () (i32[2,col]) (locals) (return (ones i32[2,col] 2 3)))
      (function e () (bool[1,strided]) (locals) (return (empty bool[1,strided] 4)))
      (function f ((x f32) (n i32)) (f32[3,row]) (locals) (return (fill f32[3,row] x n 1 2)))
      (function t ((v bool)) (bool[2,col]) (locals) (return (fill bool[2,col] v 2 0))))";
    let m = compile(src);
    // NumPy: np.zeros((2,3)).strides / 8 == (3, 1); np.ones((2,3), order='F') -> (1, 2).
    assert_eq!(
        as_f64s(&one(m.call("z", vec![]))),
        (vec![2, 3], vec![3, 1], vec![0.0; 6])
    );
    assert_eq!(
        as_f64s(&one(m.call("o", vec![]))),
        (vec![2, 3], vec![1, 2], vec![1.0; 6])
    );
    // `empty` is zeroed like the interpreter's; a strided type is stored row-major.
    assert_eq!(
        as_f64s(&one(m.call("e", vec![]))),
        (vec![4], vec![1], vec![0.0; 4])
    );
    let r = one(m.call("f", vec![Value::Scalar(Scalar::F32(2.5)), i32v(2)]));
    assert_eq!(as_f64s(&r), (vec![2, 1, 2], vec![2, 2, 1], vec![2.5; 4]));
    // A zero extent: an empty array (column-major strides count extents as at least 1).
    let r = one(m.call("t", vec![boolv(true)]));
    assert_eq!(as_f64s(&r), (vec![2, 0], vec![1, 2], vec![]));
}

#[test]
fn alloc_statement_and_arrays_passed_between_functions() {
    let src = "(module a :index-base 0
      (function grid ((n i64) (k i64)) (i64[2,row])
        (locals (g i64[2,row]) (i i64) (j i64))
        (alloc g n k)
        (for (i j) (domain (range 0 (- n 1)) (range 0 (- k 1)))
          (block (set (index g i j) (+ (* 10 i) j))))
        (return g))
      (function total ((g i64[2,row])) (i64)
        (locals (s i64) (i i64) (j i64))
        (set s 0)
        (for (i j) (domain (range 0 (- (dim g 0) 1)) (range 0 (- (dim g 1) 1)))
          (block (set s (+ s (index g i j)))))
        (return s))
      (function both ((n i64)) (i64[2,row] i64)
        (locals (g i64[2,row]))
        (set g (call grid n 3))
        (return g (call total (call grid n 3)))))";
    let m = compile(src);
    // NumPy: 10 * np.arange(2)[:, None] + np.arange(3)
    let g = one(m.call("grid", vec![i64v(2), i64v(3)]));
    assert_eq!(
        as_f64s(&g),
        (
            vec![2, 3],
            vec![3, 1],
            vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]
        )
    );
    let r = m.call("both", vec![i64v(2)]).unwrap();
    assert_eq!(as_f64s(&r[0]).2, vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    assert!(r[1].same(&i64v(36)));
}

#[test]
fn negative_and_overflowing_extents_are_the_interpreters_runtime_errors() {
    let src = "(module a :index-base 0
      (function f ((n i64) (k i64)) (f64[2,row]) (locals (g f64[2,row]))
        (alloc g n k)
        (return g))
      (function h ((n i64)) (f64[1,col]) (locals)
        (return (ones f64[1,col] n))))";
    let m = compile(src);
    let e = err(m.call("f", vec![i64v(2), i64v(-3)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(e.message, "negative dimension -3");
    assert_eq!(e.function.as_deref(), Some("f"));
    let e = err(m.call("h", vec![i64v(-1)]));
    assert_eq!(e.message, "negative dimension -1");
    // 2^40 * 2^40 elements do not fit in memory.
    let e = err(m.call("f", vec![i64v(1 << 40), i64v(1 << 40)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(
        e.message,
        "array of dimensions [1099511627776, 1099511627776] is too large"
    );
}

#[test]
fn one_call_may_not_allocate_more_than_its_limit() {
    let src = "(module a :index-base 0
      (function f ((n i64) (times i64)) (f64) (locals (g f64[1,row]) (i i64))
        (for (i) (range 1 times)
          (block (set g (zeros f64[1,row] n))))
        (return 1.0)))";
    let module = parse_module(src).unwrap();
    let mut m = cpu::compile(&module).unwrap();
    m.set_alloc_limit(100_000);
    // Each array: 64 header bytes + 8 per element. 10 arrays of 100: 8,640 bytes.
    assert!(m.call("f", vec![i64v(100), i64v(10)]).is_ok());
    // One array of 20,000 elements is over the limit by itself...
    let e = err(m.call("f", vec![i64v(20_000), i64v(1)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(
        e.message,
        "compiled code allocated more than 100000 bytes in one call"
    );
    assert_eq!(e.function.as_deref(), Some("f"));
    // ...and so are 200 small ones (memory is released at the end of the call only),
    // while each call starts with a fresh budget.
    assert!(m.call("f", vec![i64v(100), i64v(200)]).is_err());
    assert!(m.call("f", vec![i64v(100), i64v(100)]).is_ok());
}

#[test]
fn copies_and_slices_without_view_are_fresh_arrays() {
    let src = "(module c :index-base 1
      (function cp ((B f64[2,col])) (f64[2,col] f64[2,col])
        (locals (C f64[2,col]))
        (set C (copy B))
        (set (index C 1 1) 100.0)
        (return C B))
      (function sl ((B f64[2,col]) (i i64)) (f64[1,col] f64[2,col])
        (locals (r f64[1,col]))
        (set r (index B i (range _ _ -1)))
        (set (index r 1) -1.0)
        (return r B)))";
    let m = compile(src);
    let b = f64_array(vec![2, 3], Layout::Col, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = m.call("cp", vec![Value::Array(b.clone())]).unwrap();
    // The copy is column-major like its source and shares nothing with it.
    assert_eq!(
        as_f64s(&r[0]),
        (vec![2, 3], vec![1, 2], vec![100.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    assert_eq!(as_f64s(&r[1]).2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // Octave: B = [1 2 3; 4 5 6]; r = B(2, end:-1:1) == [6 5 4]; r(1) = -1 leaves B.
    let r = m
        .call("sl", vec![Value::Array(b.clone()), i64v(2)])
        .unwrap();
    assert_eq!(as_f64s(&r[0]), (vec![3], vec![1], vec![-1.0, 5.0, 4.0]));
    assert_eq!(as_f64s(&r[1]).2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let e = err(m.call("sl", vec![Value::Array(b), i64v(3)]));
    assert_eq!(
        (e.kind, e.index, e.bound, e.dim),
        (ErrorKind::OutOfBounds, Some(3), Some(2), Some(0))
    );
}

#[test]
fn elementwise_operators_broadcast_scalars_and_check_shapes() {
    let src = "(module e :index-base 0
      (function f ((A f64[2,row]) (B f64[2,col])) (f64[2,row] f64[2,row] bool[2,row] f64[2,row])
        (locals)
        (return (- (* A B) 2.0) (/ 2.0 A) (< A B) (neg A)))
      (function c ((x f64[1,row])) (i32[1,row]) (locals) (return (cast i32[1,row] x)))
      (function d ((x i64[1,row]) (y i64[1,row])) (i64[1,row]) (locals) (return (idiv x y))))";
    let m = compile(src);
    let a = f64_array(vec![2, 3], Layout::Row, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = f64_array(vec![2, 3], Layout::Col, &[0.5, -1.0, 2.0, 3.0, 0.0, -6.0]);
    let r = m
        .call("f", vec![Value::Array(a.clone()), Value::Array(b)])
        .unwrap();
    // NumPy: A * B - 2, 2.0 / A, A < B, -A
    assert_eq!(as_f64s(&r[0]).2, vec![-1.5, -4.0, 4.0, 10.0, -2.0, -38.0]);
    assert_eq!(
        as_f64s(&r[1]).2,
        vec![2.0, 1.0, 2.0 / 3.0, 0.5, 0.4, 1.0 / 3.0]
    );
    assert_eq!(as_f64s(&r[2]).2, vec![0.0; 6]);
    assert_eq!(as_f64s(&r[3]).2, vec![-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
    let c = f64_array(vec![3, 2], Layout::Col, &[0.0; 6]);
    let e = err(m.call("f", vec![Value::Array(a), Value::Array(c)]));
    assert_eq!(e.kind, ErrorKind::ShapeMismatch);
    assert_eq!(e.message, "operands of shapes [2, 3] and [3, 2]");
    // NumPy: np.array([1.5, -2.7, 3.9]).astype(np.int32) == [1, -2, 3]
    let x = f64_array(vec![3], Layout::Row, &[1.5, -2.7, 3.9]);
    assert_eq!(
        as_f64s(&one(m.call("c", vec![Value::Array(x)]))).2,
        vec![1.0, -2.0, 3.0]
    );
    let x = f64_array(vec![2], Layout::Row, &[1.0, f64::NAN]);
    assert_eq!(
        err(m.call("c", vec![Value::Array(x)])).kind,
        ErrorKind::Runtime
    );
    let ints = |v: &[i64]| {
        let e: Vec<Scalar> = v.iter().map(|x| Scalar::I64(*x)).collect();
        Value::Array(Array::from_logical(
            ArrayType::new(ScalarType::I64, 1, Layout::Row),
            vec![v.len()],
            &e,
        ))
    };
    // Floor division: -7 idiv 2 == -4 (Python: -7 // 2); a zero divisor is an error.
    assert_eq!(
        as_f64s(&one(m.call("d", vec![ints(&[7, -7]), ints(&[2, 2])]))).2,
        vec![3.0, -4.0]
    );
    assert_eq!(
        err(m.call("d", vec![ints(&[7, 1]), ints(&[2, 0])])).kind,
        ErrorKind::DivisionByZero
    );
}

#[test]
fn library_math_on_arrays_and_row_slices() {
    let src = "(module l :index-base 0
      (function f ((x f64[2,row])) (f64[2,row] f64[2,row] f64[1,row] bool[2,row])
        (locals)
        (return (sqrt x) (max x 5.0) (index x 1) (isnan (/ x 0.0)))))";
    let m = compile(src);
    let x = f64_array(vec![2, 2], Layout::Row, &[1.0, 4.0, 9.0, 16.0]);
    let r = m.call("f", vec![Value::Array(x)]).unwrap();
    // NumPy: np.sqrt(x), np.maximum(x, 5.0), x[1]; x / 0.0 has no NaN (all positive).
    assert_eq!(as_f64s(&r[0]).2, vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(as_f64s(&r[1]).2, vec![5.0, 5.0, 9.0, 16.0]);
    assert_eq!(as_f64s(&r[2]), (vec![2], vec![1], vec![9.0, 16.0]));
    assert_eq!(as_f64s(&r[3]).2, vec![0.0; 4]);
}

#[test]
fn whole_array_reductions_accumulate_in_storage_order() {
    let src = "(module r :index-base 0
      (function rs ((x f64[2,row])) (f64 f64 f64 f64) (locals)
        (return (sum x) (prod x) (amin x) (amax x)))
      (function cs ((x f64[2,col])) (f64) (locals) (return (sum x)))
      (function e ((n i64)) (i64) (locals) (return (amin (zeros i64[1,row] n)))))";
    let m = compile(src);
    let v = [1e16, 1.0, -1e16, 1.0];
    // Python: row order ((1e16 + 1) + -1e16) + 1 == 1.0; column order
    // ((1e16 + -1e16) + 1) + 1 == 2.0.
    let r = m
        .call(
            "rs",
            vec![Value::Array(f64_array(vec![2, 2], Layout::Row, &v))],
        )
        .unwrap();
    assert_eq!(
        r.iter().map(scalar).collect::<Vec<_>>(),
        vec![
            Scalar::F64(1.0),
            Scalar::F64(-1e32),
            Scalar::F64(-1e16),
            Scalar::F64(1e16)
        ]
    );
    let r = one(m.call(
        "cs",
        vec![Value::Array(f64_array(vec![2, 2], Layout::Col, &v))],
    ));
    assert!(r.same(&f64v(2.0)));
    let e = err(m.call("e", vec![i64v(0)]));
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(
        e.message,
        "empty reduction: amin of an array with no elements"
    );
    assert!(one(m.call("e", vec![i64v(3)])).same(&i64v(0)));
}

#[test]
fn axis_reductions() {
    let src = "(module r :index-base 0
      (function f ((x f64[2,col])) (f64[1,col] f64[1,col] f64) (locals)
        (return (sum x :axis 0) (amax x :axis 1) (prod (index x 0) :axis 0)))
      (function e ((n i64)) (f64[1,row]) (locals)
        (return (amin (zeros f64[2,row] 2 n) :axis 1))))";
    let m = compile(src);
    let x = f64_array(vec![2, 3], Layout::Col, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = m.call("f", vec![Value::Array(x)]).unwrap();
    // NumPy: a.sum(axis=0), a.max(axis=1), a[0].prod()
    assert_eq!(as_f64s(&r[0]).2, vec![5.0, 7.0, 9.0]);
    assert_eq!(as_f64s(&r[1]).2, vec![3.0, 6.0]);
    assert!(r[2].same(&f64v(6.0)));
    let e = err(m.call("e", vec![i64v(0)]));
    assert_eq!(
        e.message,
        "empty reduction: amin of an array with no elements"
    );
    assert_eq!(as_f64s(&one(m.call("e", vec![i64v(2)]))).2, vec![0.0, 0.0]);
}

fn scalars_array(elem: ScalarType, dims: Vec<usize>, layout: Layout, logical: &[Scalar]) -> Value {
    Value::Array(Array::from_logical(
        ArrayType::new(elem, dims.len() as u32, layout),
        dims,
        logical,
    ))
}

fn i64_vec(xs: &[i64]) -> Value {
    let s: Vec<Scalar> = xs.iter().map(|x| Scalar::I64(*x)).collect();
    scalars_array(ScalarType::I64, vec![xs.len()], Layout::Row, &s)
}

fn bool_vec(xs: &[bool]) -> Value {
    let s: Vec<Scalar> = xs.iter().map(|x| Scalar::Bool(*x)).collect();
    scalars_array(ScalarType::Bool, vec![xs.len()], Layout::Row, &s)
}

/// Errors of gathers and masks: the access as written (gather items, `mask`), and the
/// fields, equal to the interpreter's (`Both::call` compares every field).
#[test]
fn gather_and_mask_errors_name_the_access_as_written() {
    let src = "(module m :index-base 0
      (function gather ((a f64[2,row]) (g i64[1,row]) (j i64)) (f64[1,row])
        (locals)
        (return (index a g j)))
      (function masked ((a f64[2,col]) (m bool[1,row]) (j i64)) (f64[1,col])
        (locals)
        (return (index a m j)))
      (function far ((a f64[1,row]) (stop i64)) (f64[1,row])
        (locals)
        (return (index a (range 0 stop)))))";
    let m = compile(src);
    let a = || {
        Value::Array(f64_array(
            vec![3, 2],
            Layout::Row,
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ))
    };
    // NumPy: a[[0, 9]] raises IndexError: index 9 is out of bounds for axis 0 with size 3
    // NumPy: a[[2, 0], 1] is [6, 2]
    let r = one(m.call("gather", vec![a(), i64_vec(&[2, 0]), i64v(1)]));
    assert_eq!(as_f64s(&r).2, vec![6.0, 2.0]);
    // The whole gather is checked before the next index.
    let e = err(m.call("gather", vec![a(), i64_vec(&[0, 9]), i64v(5)]));
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!((e.index, e.bound, e.dim), (Some(9), Some(3), Some(0)));
    assert!(
        e.message
            .starts_with("a[[0, 9], 5]: index 9 out of bounds 0..3"),
        "{e}"
    );
    let many: Vec<i64> = (0..10).map(|k| if k == 7 { 3 } else { k % 3 }).collect();
    let e = err(m.call("gather", vec![a(), i64_vec(&many), i64v(0)]));
    assert!(e.message.starts_with("a[[10 indices], 0]: index 3"), "{e}");
    let e = err(m.call("gather", vec![a(), i64_vec(&[2, 2]), i64v(5)]));
    assert_eq!((e.index, e.bound, e.dim), (Some(5), Some(2), Some(1)));
    let e = err(m.call("gather", vec![a(), i64_vec(&[]), i64v(-1)]));
    assert!(e.message.starts_with("a[[], -1]"), "{e}");

    let c = || {
        Value::Array(f64_array(
            vec![3, 2],
            Layout::Col,
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ))
    };
    // Octave: a = [1 2; 3 4; 5 6]; a(logical([1 0 1]), 2) is [2; 6]
    let r = one(m.call("masked", vec![c(), bool_vec(&[true, false, true]), i64v(1)]));
    assert_eq!(as_f64s(&r).2, vec![2.0, 6.0]);
    let e = err(m.call("masked", vec![c(), bool_vec(&[true, false]), i64v(1)]));
    assert_eq!(e.kind, ErrorKind::ShapeMismatch);
    assert_eq!(e.message, "a: mask of length 2 for dimension 0 of extent 3");
    assert_eq!(
        (e.variable.as_deref(), e.index, e.bound, e.dim),
        (Some("a"), None, Some(3), Some(0))
    );
    let e = err(m.call("masked", vec![c(), bool_vec(&[true, false, true]), i64v(5)]));
    assert!(
        e.message
            .starts_with("a[mask, 5]: index 5 out of bounds 0..2"),
        "{e}"
    );

    // Range endpoints far outside the extent are compared exactly, not wrapped.
    let v = || Value::Array(f64_array(vec![2], Layout::Row, &[1.0, 2.0]));
    let e = err(m.call("far", vec![v(), i64v(i64::MAX)]));
    assert_eq!(
        (e.index, e.bound, e.dim),
        (Some(i64::MAX), Some(2), Some(0))
    );
    assert!(
        one(m.call("far", vec![v(), i64v(i64::MIN)])).same(&Value::Array(f64_array(
            vec![0],
            Layout::Row,
            &[]
        )))
    );
}

/// The interpreter reads a stored array and the gather and mask indices completely before
/// storing: compiled code copies them where they share the target's storage.
#[test]
fn writes_whose_value_or_indices_alias_the_target() {
    let src = "(module m :index-base 0
      (function self_gather ((g i64[1,row])) ()
        (locals)
        (set (index g g) 5))
      (function reverse ((b bool[1,row])) ()
        (locals)
        (set (index b (range _ _ -1)) b))
      (function shift_cols ((a f64[2,col])) ()
        (locals)
        (set (index a : (range 1 2)) (index a : (range 0 1) :view)))
      (function masked_by_self ((x i64[1,row])) ()
        (locals)
        (set (index x (> x 0)) (index x (range 0 1))))
      (function apart ((a f64[1,row]) (b f64[1,row])) ()
        (locals)
        (set (index a (range 1 2)) b)))";
    let m = compile(src);
    // By hand: positions 1, 2, 0 come from g as it was; reading on the fly would meet 5.
    let g = i64_vec(&[1, 2, 0]);
    m.call("self_gather", vec![g.clone()]).unwrap();
    assert!(g.same(&i64_vec(&[5, 5, 5])));
    // NumPy: b = np.array([True, False, False]); b[::-1] = b  ->  [False, False, True]
    let b = bool_vec(&[true, false, false]);
    m.call("reverse", vec![b.clone()]).unwrap();
    assert!(b.same(&bool_vec(&[false, false, true])));
    // Octave: a = [1 2 3; 4 5 6]; a(:, 2:3) = a(:, 1:2)  ->  [1 1 2; 4 4 5]
    let a = Value::Array(f64_array(
        vec![2, 3],
        Layout::Col,
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    ));
    m.call("shift_cols", vec![a.clone()]).unwrap();
    assert_eq!(as_f64s(&a).2, vec![1.0, 1.0, 2.0, 4.0, 4.0, 5.0]);
    // NumPy: x = np.array([3, -1, 4]); x[x > 0] = x[0:2]  ->  [3, -1, -1]
    let x = i64_vec(&[3, -1, 4]);
    m.call("masked_by_self", vec![x.clone()]).unwrap();
    assert!(x.same(&i64_vec(&[3, -1, -1])));
    // Distinct arrays: stored directly.
    let a = Value::Array(f64_array(vec![3], Layout::Row, &[0.0, 0.0, 0.0]));
    let b = Value::Array(f64_array(vec![2], Layout::Row, &[7.0, 8.0]));
    m.call("apart", vec![a.clone(), b]).unwrap();
    assert_eq!(as_f64s(&a).2, vec![0.0, 7.0, 8.0]);
}

/// Indexing the array an expression computes, storing a call's array result through an
/// indexing, and `:view` with `:flat` over every dimension (a plain view).
#[test]
fn selections_of_computed_arrays_and_call_results() {
    let src = "(module m :index-base 1
      (function two ((a f64[1,row])) (f64[1,row] f64)
        (locals)
        (return (index a (range 2 3)) 1.5))
      (function first ((a f64[1,row])) (f64[1,row])
        (locals)
        (return (index a (range 2 3))))
      (function f ((a f64[1,row]) (g i32[1,row])) (f64[1,row] f64 f64 f64)
        (locals (x f64) (v f64[1,strided]))
        (mset ((index a (range 1 2)) x) (call two a))
        (set v (index a (range 3 1 -1) :flat :view))
        (return (index (* a 2.0) g) (index (call first a) 1) (sum (index a (> a 2.5))) (index v 1))))";
    let m = compile(src);
    // By hand: a = [1 2 3 4]; a(1:2) = a(2:3) -> [2 3 3 4]; (2a)([4 1]) = [8 4];
    // first(a)(1) = 3; sum of a > 2.5 = 3 + 3 + 4; v = a(3:-1:1), v(1) = 3.
    let a = Value::Array(f64_array(vec![4], Layout::Row, &[1.0, 2.0, 3.0, 4.0]));
    let gi = scalars_array(
        ScalarType::I32,
        vec![2],
        Layout::Row,
        &[Scalar::I32(4), Scalar::I32(1)],
    );
    let r = m.call("f", vec![a.clone(), gi]).unwrap();
    assert_eq!(as_f64s(&a).2, vec![2.0, 3.0, 3.0, 4.0]);
    assert_eq!(as_f64s(&r[0]).2, vec![8.0, 4.0]);
    assert_eq!(
        (scalar(&r[1]), scalar(&r[2]), scalar(&r[3])),
        (Scalar::F64(3.0), Scalar::F64(10.0), Scalar::F64(3.0))
    );
}
