//! The streaming kernel of `vr-bench --gpu` (issue 19 item 4: a daxpy-like kernel in
//! GB/s; target >= 90% of the 3.07 TB/s a hand-written OpenCL daxpy reached on the
//! H100): `y = a x + y` over 2^25 doubles (256 MiB per array), as a parfor in a GPU
//! section and as the element-wise library kernel (`z = a * x + y`, a fresh result).
//! Bandwidth counts the bytes the loop must move, as STREAM does: x and y read, y (or z)
//! written, 24 bytes per element; the time is the device's own (OpenCL profiling stamps
//! of the kernels, median over calls), so transfers do not enter it. Results are checked
//! against the same arithmetic in Rust (one multiply and one add per element, no fused
//! multiply-add: the generator compiles with `FP_CONTRACT OFF`).

use crate::record::{Recorder, Sample};
use std::time::Duration;
use velociraptor::cpu::CpuOptions;
use velociraptor::runtime::value::{Scalar, Value};

const DAXPY: &str = r#"
(module stream :index-base 0
  (function daxpy_parfor ((a f64) (x f64[1,row]) (y f64[1,row])) ()
    (locals (i i64) (n i64))
    (gpu
      (set n (dim x 0))
      (parfor (i) (range 0 (- n 1))
        (block (set (index y i) (+ (* a (index x i)) (index y i)))))))
  (function daxpy_library ((a f64) (x f64[1,row]) (y f64[1,row])) (f64[1,row])
    (locals (z f64[1,row]))
    (gpu (set z (+ (* a x) y)))
    (return z)))
"#;

/// The theoretical figure the issue's target is a fraction of (H100, hand-written
/// OpenCL daxpy), GB/s.
const REFERENCE_GBS: f64 = 3070.0;

pub fn run(quick: bool, reps: usize, csv: &mut Recorder) -> Result<(), String> {
    let n: usize = if quick { 1 << 16 } else { 1 << 25 };
    let m = velociraptor::backend::load(DAXPY).map_err(|e| e.to_string())?;
    let compiled = velociraptor::driver::compile_gpu(&m, CpuOptions::parallel())
        .map_err(|e| format!("stream: {e}"))?;
    let a = 0.5;
    let xk = |k: usize| (k % 1000) as f64 * 1e-3;
    let yk = |k: usize| 1.0 + (k % 7) as f64;
    let x = crate::kernels::f64_array(&[n], xk);
    let y = crate::kernels::f64_array(&[n], yk);
    let want: Vec<f64> = (0..n).map(|k| a * xk(k) + yk(k)).collect();
    println!();
    println!("| streaming kernel (n = {n}) | kernel ms (median of {}) | GB/s (24 bytes per element) | of {REFERENCE_GBS:.0} GB/s |", reps.max(1));
    println!("| --- | ---: | ---: | ---: |");
    for func in ["daxpy_parfor", "daxpy_library"] {
        let args = || {
            crate::kernels::fresh_copy(&[Value::Scalar(Scalar::F64(a)), x.clone(), y.clone()])
        };
        // The first call builds the program; its result is checked.
        let first = args();
        let results = compiled
            .call(func, first.clone())
            .map_err(|e| format!("stream {func}: {e}"))?;
        let got = match func {
            "daxpy_parfor" => crate::kernels::observed(&first[2..], &[]),
            _ => crate::kernels::observed(&[], &results),
        };
        crate::compare(&got, &want).map_err(|e| format!("stream {func} differs: {e}"))?;
        let mut times = Vec::new();
        for _ in 0..reps.max(1) {
            let call = args();
            let before = crate::gpu::device_ns().0;
            compiled.call(func, call).map_err(|e| e.to_string())?;
            times.push(Duration::from_nanos(crate::gpu::device_ns().0 - before));
        }
        let sample = Sample { times };
        csv.push(func, n, "gpu-kernels", 1, &sample);
        let s = sample.median().as_secs_f64();
        let gbs = 24.0 * n as f64 / s.max(1e-12) / 1e9;
        println!(
            "| {func} | {:.4} | {gbs:.0} | {:.2} |",
            s * 1e3,
            gbs / REFERENCE_GBS
        );
    }
    Ok(())
}
