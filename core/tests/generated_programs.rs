//! Random well-typed programs (tests/common/gen.rs) run on the interpreter without
//! error (the generator makes every index in bounds and every division safe), give
//! results of the declared types, give the same results when run again, and every other
//! available backend gives the same results as the interpreter (differential testing):
//! cpu, cpu-par (whose parfor loops, from the generator's disjoint-write bodies, run on
//! every core) and gpu (every body in a GPU section; floats within 1e-12 relative where
//! the program calls a function whose device version may differ in the last bits).
//!
//! `PROPTEST_CASES=N` sets the number of cases, `VR_LONG_TESTS=1` multiplies the
//! default by ten.
//! `PROPTEST_RNG_SEED=S` fixes the random stream (proptest reads it through
//! `ProptestConfig::default()`; unset, each run draws a fresh seed): processes given
//! different seeds run different programs, and a seed's run is repeatable, which is how
//! scripts/differential-shards.sh spreads a long run over cores.

mod common;

use common::gen::{arguments, module_strategy, GTy, GenConfig};
use proptest::prelude::*;
use velociraptor::backend::{execute, Backend};
use velociraptor::runtime::value::Value;
use velociraptor::ErrorKind;
use velociraptor::vrir::text::print_module;

fn has_type(v: &Value, ty: GTy) -> bool {
    match (v, ty) {
        (Value::Scalar(s), GTy::Bool) => s.ty() == velociraptor::vrir::ScalarType::Bool,
        (Value::Scalar(s), GTy::I64) => s.ty() == velociraptor::vrir::ScalarType::I64,
        (Value::Scalar(s), GTy::F64) => s.ty() == velociraptor::vrir::ScalarType::F64,
        (Value::Scalar(s), GTy::C128) => s.ty() == velociraptor::vrir::ScalarType::C128,
        (Value::Array(a), GTy::Arr(t)) => a.ty.elem == t.elem && a.dims.len() == t.ndims as usize,
        _ => false,
    }
}

fn show(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| v.to_json().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Run the entry function on fresh arguments; the results, then the arguments as the
/// call left them (arrays are passed by reference, and programs write into them).
fn run_entry(
    backend: Backend,
    g: &common::gen::Generated,
    arg_tape: &[u32],
) -> Result<(Vec<Value>, Vec<Value>), String> {
    let entry = g.entry();
    let args = arguments(entry, arg_tape);
    // Clones of a Value share array storage, so `after` sees the writes.
    let after = args.clone();
    // On gpu, every body in a GPU section: parfors become kernels, the rest synchronises.
    let wrapped;
    let module = if backend == Backend::Gpu {
        wrapped = velociraptor::gpu::wrap_in_sections(&g.module);
        &wrapped
    } else {
        &g.module
    };
    let results = execute(backend, module, &entry.name, args).map_err(|e| e.to_string())?;
    Ok((results, after))
}

/// A compiled backend that does not compile some construct yet says so at compile time:
/// such a program is not compared (and never counted as agreeing).
fn not_compiled_yet(backend: Backend, err: &str) -> bool {
    backend != Backend::Interp && err.starts_with(ErrorKind::Unsupported.name())
}

fn all_same(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
}

/// The library functions whose OpenCL versions may differ from the CPU's libm in the
/// last bits (docs/gpu.md, docs/vrir-semantics.md: up to 4 ulp, `pow` 16; the bound of
/// one call is tested in gpu_backend.rs). Everything else is bit-exact on the GPU.
const DEVICE_MATH: [&str; 15] = ["exp", "expm1", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "atan2", "pow"];

fn uses_device_math(text: &str) -> bool {
    DEVICE_MATH.iter().any(|f| text.contains(&format!("({f} ")))
}

/// `same`, except that floats may differ by a relative 1e-12 (the device's last bits,
/// compounded over a program's loops: about 4,500 ulp; a wrong result is far off).
fn close(a: &Value, b: &Value) -> bool {
    use velociraptor::runtime::value::Scalar;
    fn near(x: f64, y: f64) -> bool {
        x == y || (x.is_nan() && y.is_nan()) || (x.is_finite() && y.is_finite() && (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0))
    }
    match (a, b) {
        (Value::Scalar(Scalar::F64(x)), Value::Scalar(Scalar::F64(y))) => near(*x, *y),
        (Value::Scalar(Scalar::C128(x)), Value::Scalar(Scalar::C128(y))) => near(x.re, y.re) && near(x.im, y.im),
        (Value::Array(x), Value::Array(y)) => {
            x.ty.elem == y.ty.elem && x.dims == y.dims && x.elements().iter().zip(y.elements().iter()).all(|(p, q)| close(&Value::Scalar(*p), &Value::Scalar(*q)))
        }
        (Value::Tuple(x), Value::Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q)),
        _ => a.same(b),
    }
}

/// Do a backend's results agree with the interpreter's: exactly, or within `close` on
/// the GPU where the program calls the device's own math.
fn agree(backend: Backend, text: &str, a: &[Value], b: &[Value]) -> bool {
    if backend == Backend::Gpu && uses_device_math(text) {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(x, y))
    } else {
        all_same(a, b)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(64), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_run_deterministically_and_backends_agree(
        g in module_strategy(GenConfig::default()),
        arg_tape in prop::collection::vec(any::<u32>(), 0..200),
    ) {
        let entry = g.entry().clone();
        let text = print_module(&g.module);
        let args_json = show(&arguments(&entry, &arg_tape));
        let context = |what: String| TestCaseError::fail(format!("{what}\nargs: {args_json}\n{text}"));
        let (results, after) = run_entry(Backend::Interp, &g, &arg_tape).map_err(context)?;
        // A tuple result is checked item by item.
        let items: Vec<Value> = match (entry.tuple_result, results.as_slice()) {
            (true, [Value::Tuple(items)]) => items.clone(),
            (true, _) => return Err(TestCaseError::fail(format!("expected one tuple: {}\n{}", show(&results), text))),
            (false, _) => results.clone(),
        };
        prop_assert_eq!(items.len(), entry.results.len());
        for (v, ty) in items.iter().zip(&entry.results) {
            prop_assert!(has_type(v, *ty), "result {} is not a {:?}\n{}", v.to_json(), ty, text);
        }
        let (again, after_again) = run_entry(Backend::Interp, &g, &arg_tape).map_err(|e| context(format!("second run: {e}")))?;
        prop_assert!(all_same(&results, &again) && all_same(&after, &after_again),
            "two runs differ: {} / {} vs {} / {}\n{}", show(&results), show(&after), show(&again), show(&after_again), text);
        for backend in Backend::available().into_iter().filter(|b| *b != Backend::Interp) {
            let (got, got_after) = match run_entry(backend, &g, &arg_tape) {
                Err(e) if not_compiled_yet(backend, &e) => continue,
                other => other.map_err(|e| context(format!("{backend}: {e}")))?,
            };
            prop_assert!(agree(backend, &text, &got, &results) && agree(backend, &text, &got_after, &after),
                "{} gives {} (arguments after: {}) but interp gives {} (arguments after: {})\nargs: {}\n{}",
                backend, show(&got), show(&got_after), show(&results), show(&after), args_json, text);
        }
    }
}
