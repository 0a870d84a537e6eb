//! The cpu backend's no-alias versions (`alias-version`, core/src/cpu/codegen/
//! entry_versions.rs): arguments that overlap run the original code and give the
//! interpreter's result; arguments that do not overlap run the no-alias version, seen
//! through `CompiledModule::noalias_calls` (not timing).

use velociraptor::cpu::{self, CpuOptions};
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::runtime::value::{Array, Buffer, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

/// y[i+1] += x[i]: with x and y the same storage, each step reads the previous step's
/// store (running sums); a version that assumed no overlap could read old values.
const SHIFT_ADD: &str = "(module m :index-base 0
  (function shift_add ((x f64[1,row]) (y f64[1,row])) ()
    (locals (i i64))
    (for (i) (range 0 (- (dim y 0) 2))
      (block (set (index y (+ i 1)) (+ (index y (+ i 1)) (index x i)))))))";

fn vector(xs: &[f64]) -> Array {
    let ty = ArrayType::new(ScalarType::F64, 1, Layout::Row);
    let mut a = Array::zeros(ty, vec![xs.len()]);
    a.data = std::rc::Rc::new(std::cell::RefCell::new(Buffer::F64(xs.to_vec())));
    a
}

/// A view of `a`'s elements `start .. start + len`, sharing its storage.
fn view(a: &Array, start: usize, len: usize) -> Array {
    let mut v = a.clone();
    v.offset = a.offset + start;
    v.dims = vec![len];
    v
}

fn values(a: &Array) -> Vec<f64> {
    a.elements().iter().map(|s| s.as_f64().unwrap()).collect()
}

fn compiled(opts: &OptOptions, alias_versions: bool) -> cpu::CompiledModule {
    let m = parse_module(SHIFT_ADD).unwrap();
    let (optimized, _) = optimize(&m, opts).unwrap();
    cpu::compile_with(
        &optimized,
        CpuOptions {
            alias_versions,
            ..CpuOptions::default()
        },
    )
    .unwrap()
}

/// The interpreter's result for `shift_add(x, y)` on the storage of `a`.
fn interpreted(a: &Array, x: (usize, usize), y: (usize, usize)) -> Vec<f64> {
    let m = parse_module(SHIFT_ADD).unwrap();
    let copy = vector(&values(a));
    let args = vec![
        Value::Array(view(&copy, x.0, x.1)),
        Value::Array(view(&copy, y.0, y.1)),
    ];
    velociraptor::interp::run(&m, "shift_add", args).unwrap();
    values(&copy)
}

#[test]
fn the_pass_counts_the_function_and_not_when_the_host_promises_no_alias() {
    let m = parse_module(SHIFT_ADD).unwrap();
    let (_, stats) = optimize(&m, &OptOptions::all()).unwrap();
    assert_eq!(stats.total("alias-version", "functions_versioned"), 1);
    let mut promised = OptOptions::all();
    promised.params_never_alias = true;
    let (_, stats) = optimize(&m, &promised).unwrap();
    assert_eq!(stats.total("alias-version", "functions_versioned"), 0);
}

#[test]
fn the_same_array_twice_runs_the_original_and_gives_running_sums() {
    let c = compiled(&OptOptions::all(), true);
    let a = vector(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let expected = interpreted(&a, (0, 9), (0, 9));
    c.call(
        "shift_add",
        vec![Value::Array(a.clone()), Value::Array(a.clone())],
    )
    .unwrap();
    // Running sums, by hand: 1, 3, 6, 10, 15, 21, 28, 36, 45.
    assert_eq!(
        values(&a),
        vec![1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 36.0, 45.0]
    );
    assert_eq!(values(&a), expected);
    assert_eq!(c.noalias_calls(), 0);
}

#[test]
fn a_view_and_its_parent_run_the_original() {
    let c = compiled(&OptOptions::all(), true);
    let a = vector(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    let expected = interpreted(&a, (0, 5), (0, 6));
    c.call(
        "shift_add",
        vec![Value::Array(view(&a, 0, 5)), Value::Array(a.clone())],
    )
    .unwrap();
    assert_eq!(values(&a), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(values(&a), expected);
    assert_eq!(c.noalias_calls(), 0);
}

#[test]
fn disjoint_arguments_run_the_no_alias_version() {
    let c = compiled(&OptOptions::all(), true);
    let x = vector(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let y = vector(&[10.0, 20.0, 30.0, 40.0, 50.0]);
    c.call(
        "shift_add",
        vec![Value::Array(x.clone()), Value::Array(y.clone())],
    )
    .unwrap();
    assert_eq!(values(&y), vec![10.0, 21.0, 32.0, 43.0, 54.0]);
    assert_eq!(values(&x), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(c.noalias_calls(), 1);

    // Two halves of one buffer do not overlap either; the first half's last element
    // and the second half's first are neighbours, the edge of the range test.
    let a = vector(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
    let expected = interpreted(&a, (0, 5), (5, 5));
    c.call(
        "shift_add",
        vec![Value::Array(view(&a, 0, 5)), Value::Array(view(&a, 5, 5))],
    )
    .unwrap();
    assert_eq!(
        values(&a),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 14.0]
    );
    assert_eq!(values(&a), expected);
    assert_eq!(c.noalias_calls(), 2);

    // Overlapping by one element: the original.
    let b = vector(&[1.0; 9]);
    let expected = interpreted(&b, (0, 5), (4, 5));
    c.call(
        "shift_add",
        vec![Value::Array(view(&b, 0, 5)), Value::Array(view(&b, 4, 5))],
    )
    .unwrap();
    assert_eq!(values(&b), expected);
    assert_eq!(c.noalias_calls(), 2);
}

#[test]
fn switched_off_there_is_no_version() {
    let c = compiled(&OptOptions::parse("-alias-version").unwrap(), false);
    let x = vector(&[1.0, 2.0, 3.0]);
    let y = vector(&[0.0, 0.0, 0.0]);
    c.call("shift_add", vec![Value::Array(x), Value::Array(y.clone())])
        .unwrap();
    assert_eq!(values(&y), vec![0.0, 1.0, 2.0]);
    assert_eq!(c.noalias_calls(), 0);
}

/// A parfor body is a plain loop on the serial backend, so the function is versioned
/// there; on cpu-par the body is outlined and reloads its pointers, so it is not.
#[test]
fn a_parfor_function_is_versioned_on_the_serial_backend_only() {
    let src = "(module m :index-base 0
      (function scale ((x f64[1,row]) (y f64[1,row])) ()
        (locals (i i64))
        (parfor (i) (range 0 (- (dim x 0) 1))
          (block (set (index y i) (* 2.0 (index x i)))))))";
    let m = parse_module(src).unwrap();
    let (optimized, stats) = optimize(&m, &OptOptions::all()).unwrap();
    assert_eq!(stats.total("alias-version", "functions_versioned"), 1);
    for (opts, fast_calls) in [(CpuOptions::default(), 1), (CpuOptions::parallel(), 0)] {
        let c = cpu::compile_with(&optimized, opts).unwrap();
        let x = vector(&[1.0, 2.0, 3.0]);
        let y = vector(&[0.0, 0.0, 0.0]);
        c.call("scale", vec![Value::Array(x), Value::Array(y.clone())])
            .unwrap();
        assert_eq!(values(&y), vec![2.0, 4.0, 6.0]);
        assert_eq!(c.noalias_calls(), fast_calls, "parallel: {}", opts.parallel);
    }
}
