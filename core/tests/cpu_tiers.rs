//! Tiered compilation (`cpu::tiers`): the quick tier must compute what the full tier
//! computes, bit for bit and error for error, and a module compiled quick first must
//! switch to the full tier without changing a result.
//!
//! The conformance suite (tests/vrir: expected values from R, NumPy, Octave or by hand)
//! runs here on `cpu` and `cpu-par` at the quick tier alone (`VR_TIERS=quick`, set
//! before anything reads it: this file holds one test so that no other test of this
//! process runs at the wrong tier).
#![allow(clippy::result_large_err)]

use std::path::PathBuf;
use std::time::Duration;
use velociraptor::backend::Backend;
use velociraptor::conformance::run_paths;
use velociraptor::cpu::{self, CpuOptions};
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::ErrorKind;

const SUMS: &str = r#"
(module tiers :index-base 1
  (function harmonic ((n i64)) (f64)
    (locals (s f64) (i i64))
    (set s 0.0)
    (for (i) (range 1 n)
      (block (set s (+ s (/ 1.0 (* (cast f64 i) (sqrt (cast f64 i))))))))
    (return s))
  (function pick ((x f64[1,col]) (k i64)) (f64)
    (locals)
    (return (index x k))))
"#;

fn f64_of(v: &[Value]) -> f64 {
    match v {
        [Value::Scalar(Scalar::F64(x))] => *x,
        other => panic!("expected one f64, got {other:?}"),
    }
}

/// sum_{i=1}^{n} 1 / (i * sqrt(i)), added in the order the loop adds.
fn harmonic_by_hand(n: i64) -> f64 {
    let mut s = 0.0f64;
    for i in 1..=n {
        let x = i as f64;
        s += 1.0 / (x * x.sqrt());
    }
    s
}

#[test]
fn the_quick_tier_computes_what_the_full_tier_computes() {
    // SAFETY: set before any thread of this process reads the environment (one test).
    unsafe { std::env::set_var("VR_TIERS", "quick") };
    let m = parse_module(SUMS).expect("parses");
    let n = 100_000;
    let want = harmonic_by_hand(n);

    let quick = cpu::compile_with(&m, CpuOptions { quick: true, ..CpuOptions::default() }).expect("quick tier");
    let full = cpu::compile(&m).expect("full tier");
    let got_quick = f64_of(&quick.call("harmonic", vec![Value::Scalar(Scalar::I64(n))]).expect("runs"));
    let got_full = f64_of(&full.call("harmonic", vec![Value::Scalar(Scalar::I64(n))]).expect("runs"));
    assert_eq!(got_quick.to_bits(), want.to_bits(), "quick tier {got_quick} vs by hand {want}");
    assert_eq!(got_full.to_bits(), want.to_bits(), "full tier {got_full} vs by hand {want}");
    assert!(quick.tier_report().is_none() && full.tier_report().is_none());

    // The same error, field for field, at both tiers.
    let x = velociraptor::runtime::value::Array::from_logical(
        velociraptor::vrir::types::ArrayType::new(
            velociraptor::vrir::types::ScalarType::F64,
            1,
            velociraptor::vrir::types::Layout::Col,
        ),
        vec![3],
        &[Scalar::F64(1.5), Scalar::F64(2.5), Scalar::F64(3.5)],
    );
    let call = |c: &cpu::CompiledModule, k: i64| c.call("pick", vec![Value::Array(x.clone()), Value::Scalar(Scalar::I64(k))]);
    assert_eq!(f64_of(&call(&quick, 3).expect("in bounds")), 3.5);
    let (eq, ef) = (call(&quick, 4).expect_err("out of bounds"), call(&full, 4).expect_err("out of bounds"));
    assert_eq!(eq.kind, ErrorKind::OutOfBounds);
    assert_eq!((eq.index, eq.bound, eq.variable.as_deref()), (Some(4), Some(3), Some("x")));
    assert_eq!(eq, ef, "the tiers report different errors");

    // Quick first: the same result before and after the full tier is swapped in.
    let tiered = cpu::compile_tiered(&m, CpuOptions::default(), cpu::tiers::Tiers::QuickFirst).expect("compiles");
    let before = f64_of(&tiered.call("harmonic", vec![Value::Scalar(Scalar::I64(n))]).expect("runs"));
    assert!(tiered.wait_for_full_tier(Duration::from_secs(60)), "the full tier never came: {:?}", tiered.tier_report());
    let report = tiered.tier_report().expect("a tiered module reports its tier");
    assert!(report.starts_with("full strength"), "{report}");
    let after = f64_of(&tiered.call("harmonic", vec![Value::Scalar(Scalar::I64(n))]).expect("runs"));
    assert_eq!((before.to_bits(), after.to_bits()), (want.to_bits(), want.to_bits()));
    assert_eq!(call(&tiered, 0).expect_err("out of bounds"), call(&full, 0).expect_err("out of bounds"));

    // The conformance suite at the quick tier alone.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vrir");
    let mut failures = Vec::new();
    for backend in [Backend::Cpu, Backend::CpuPar] {
        let report = run_paths(std::slice::from_ref(&dir), backend);
        eprintln!("conformance on {backend} at the quick tier: {}", report.summary());
        assert!(report.passed() >= 600, "only {} cases passed on {backend}", report.passed());
        failures.extend(report.failures().map(|f| format!("[{backend}, quick tier] {f}")));
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
