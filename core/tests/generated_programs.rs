//! Random well-typed programs (tests/common/gen.rs) run on the interpreter without
//! error (the generator makes every index in bounds and every division safe), give
//! results of the declared types, give the same results when run again, and every other
//! available backend gives the same results as the interpreter (differential testing).
//!
//! `PROPTEST_CASES=N` sets the number of cases, `VR_LONG_TESTS=1` multiplies the
//! default by ten.

mod common;

use common::gen::{arguments, module_strategy, GTy, GenConfig};
use proptest::prelude::*;
use velociraptor::backend::{execute, Backend};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::text::print_module;

fn has_type(v: &Value, ty: GTy) -> bool {
    match (v, ty) {
        (Value::Scalar(s), GTy::Bool) => s.ty() == velociraptor::vrir::ScalarType::Bool,
        (Value::Scalar(s), GTy::I64) => s.ty() == velociraptor::vrir::ScalarType::I64,
        (Value::Scalar(s), GTy::F64) => s.ty() == velociraptor::vrir::ScalarType::F64,
        (Value::Array(a), GTy::Arr(t)) => a.ty.elem == t.elem && a.dims.len() == t.ndims as usize,
        _ => false,
    }
}

fn show(values: &[Value]) -> String {
    values.iter().map(|v| v.to_json().to_string()).collect::<Vec<_>>().join(", ")
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
        // Arrays are passed by reference and may be written: fresh arguments per run.
        let fresh = || arguments(&entry, &arg_tape);
        let args_json = show(&fresh());
        let first = execute(Backend::Interp, &g.module, &entry.name, fresh())
            .map_err(|e| TestCaseError::fail(format!("{e}\nargs: {args_json}\n{text}")))?;
        prop_assert_eq!(first.len(), entry.results.len());
        for (v, ty) in first.iter().zip(&entry.results) {
            prop_assert!(has_type(v, *ty), "result {} is not a {:?}\n{}", v.to_json(), ty, text);
        }
        let second = execute(Backend::Interp, &g.module, &entry.name, fresh())
            .map_err(|e| TestCaseError::fail(format!("second run: {e}\n{text}")))?;
        prop_assert!(first.iter().zip(&second).all(|(a, b)| a.same(b)), "runs differ: {} vs {}\n{}", show(&first), show(&second), text);
        for backend in Backend::available().into_iter().filter(|b| *b != Backend::Interp) {
            let got = execute(backend, &g.module, &entry.name, fresh())
                .map_err(|e| TestCaseError::fail(format!("{backend}: {e}\nargs: {args_json}\n{text}")))?;
            prop_assert!(
                got.len() == first.len() && got.iter().zip(&first).all(|(a, b)| a.same(b)),
                "{} gives {} but interp gives {}\nargs: {}\n{}", backend, show(&got), show(&first), args_json, text
            );
        }
    }
}
