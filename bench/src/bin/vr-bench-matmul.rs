//! `vr-bench-matmul`: the cpu backend's `matmul` against Debian's OpenBLAS `dgemm`, side
//! by side in one process, f64, n x n times n x n (n = 2000 by default).
//!
//! Rows, measured interleaved (one repetition of every row, then the next repetition),
//! so that load from other processes on this shared machine hits all of them alike;
//! medians of the repetitions:
//! - OpenBLAS `cblas_dgemm`, 1 thread, and all threads (`openblas_set_num_threads`);
//! - compiled VRIR `(return (matmul a b))` through `CompiledModule::call` (serial: what
//!   the cpu backend emits), which includes allocating the result and copying it out;
//! - the kernel entry that compiled code calls (`vr_cpu_matmul`), serial and with its
//!   `parallel` flag (what the cpu-par backend will switch on), against C arrays.
//!
//! Results are checked against OpenBLAS's (relative 1e-12 of the row norm bound) before
//! anything is timed. GFLOP/s counts 2 n^3 operations. Never used for timed assertions.
//!
//! Usage: vr-bench-matmul [--n N] [--reps R]

use libloading::{Library, Symbol};
use std::process::ExitCode;
use std::time::Instant;
use velociraptor::cpu;
use velociraptor::cpu::matmul::{elem_code, vr_cpu_matmul};
use velociraptor::runtime::value::{Array, Buffer, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

const CBLAS_ROW_MAJOR: i32 = 101;
const CBLAS_NO_TRANS: i32 = 111;

type Dgemm = unsafe extern "C" fn(
    i32,
    i32,
    i32,
    i32,
    i32,
    i32,
    f64,
    *const f64,
    i32,
    *const f64,
    i32,
    f64,
    *mut f64,
    i32,
);
type SetThreads = unsafe extern "C" fn(i32);
type GetThreads = unsafe extern "C" fn() -> i32;

const KERNEL: &str = "(module mm :index-base 0
  (function mm ((a f64[2,row]) (b f64[2,row])) (f64[2,row])
    (locals)
    (return (matmul a b))))";

struct OpenBlas<'l> {
    dgemm: Symbol<'l, Dgemm>,
    set_threads: Symbol<'l, SetThreads>,
}

impl OpenBlas<'_> {
    fn multiply(&self, n: usize, a: &[f64], b: &[f64], c: &mut [f64], threads: i32) {
        let n = n as i32;
        // SAFETY: a, b, c hold n*n row-major elements each.
        unsafe {
            (self.set_threads)(threads);
            (self.dgemm)(
                CBLAS_ROW_MAJOR,
                CBLAS_NO_TRANS,
                CBLAS_NO_TRANS,
                n,
                n,
                n,
                1.0,
                a.as_ptr(),
                n,
                b.as_ptr(),
                n,
                0.0,
                c.as_mut_ptr(),
                n,
            )
        }
    }
}

/// The kernel entry compiled code calls, on row-major C arrays.
fn kernel(n: usize, a: &[f64], b: &[f64], c: &mut [f64], parallel: bool) -> Result<(), String> {
    let n = n as i64;
    // SAFETY: row-major n x n arrays; a null context is allowed (no failure expected).
    let status = unsafe {
        vr_cpu_matmul(
            std::ptr::null_mut(),
            elem_code(ScalarType::F64),
            n,
            n,
            n,
            c.as_mut_ptr() as *mut u8,
            n,
            1,
            a.as_ptr() as *const u8,
            n,
            1,
            b.as_ptr() as *const u8,
            n,
            1,
            parallel as i32,
        )
    };
    if status == 0 {
        Ok(())
    } else {
        Err("the matmul kernel failed".into())
    }
}

fn f64_matrix(n: usize, data: &[f64]) -> Value {
    let a = Array::zeros(ArrayType::new(ScalarType::F64, 2, Layout::Row), vec![n, n]);
    *a.data.borrow_mut() = Buffer::F64(data.to_vec());
    Value::Array(a)
}

fn elements(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.elements().iter().filter_map(|s| s.as_f64()).collect(),
        _ => Vec::new(),
    }
}

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Largest |x - y| over the elements, relative to k (each |a_ik b_kj| is below 1, so
/// the sum of k of them bounds the rounding error's scale).
fn max_rel_diff(x: &[f64], y: &[f64], k: usize) -> f64 {
    x.iter()
        .zip(y)
        .map(|(p, q)| (p - q).abs() / k as f64)
        .fold(0.0, f64::max)
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    xs[xs.len() / 2]
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vr-bench-matmul: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args() -> Result<(usize, usize), String> {
    let (mut n, mut reps) = (2000usize, 5usize);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut num = |what: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{what} needs a positive number"))
        };
        match a.as_str() {
            "--n" => n = num("--n")?,
            "--reps" => reps = num("--reps")?.max(1),
            other => {
                return Err(format!(
                    "unknown argument `{other}`\nusage: vr-bench-matmul [--n N] [--reps R]"
                ))
            }
        }
    }
    Ok((n, reps))
}

fn run() -> Result<(), String> {
    let (n, reps) = parse_args()?;
    // SAFETY: OpenBLAS's initialiser only sets up its thread pool.
    let lib = unsafe { Library::new("libopenblas.so.0") }
        .map_err(|e| format!("loading libopenblas.so.0 (Debian: libopenblas0): {e}"))?;
    let sym = |name: &str| format!("OpenBLAS symbol `{name}`");
    // SAFETY: the signatures are OpenBLAS's (cblas.h).
    let blas = unsafe {
        OpenBlas {
            dgemm: lib
                .get(b"cblas_dgemm")
                .map_err(|e| format!("{}: {e}", sym("cblas_dgemm")))?,
            set_threads: lib
                .get(b"openblas_set_num_threads")
                .map_err(|e| format!("{}: {e}", sym("openblas_set_num_threads")))?,
        }
    };
    let all_threads = unsafe {
        let get: Symbol<GetThreads> = lib
            .get(b"openblas_get_num_threads")
            .map_err(|e| format!("{}: {e}", sym("openblas_get_num_threads")))?;
        get()
    };
    let m = parse_module(KERNEL).map_err(|e| e.to_string())?;
    let compiled = cpu::compile(&m).map_err(|e| e.to_string())?;
    let (a, b) = (values(n * n, 1), values(n * n, 2));
    let (va, vb) = (f64_matrix(n, &a), f64_matrix(n, &b));
    let mut c_ref = vec![0.0; n * n];
    let mut c = vec![0.0; n * n];

    // Check every variant against OpenBLAS once, untimed.
    blas.multiply(n, &a, &b, &mut c_ref, 1);
    let through_vrir = compiled
        .call("mm", vec![va.clone(), vb.clone()])
        .map_err(|e| e.to_string())?;
    let mut worst = max_rel_diff(&elements(&through_vrir[0]), &c_ref, n);
    for parallel in [false, true] {
        kernel(n, &a, &b, &mut c, parallel)?;
        worst = worst.max(max_rel_diff(&c, &c_ref, n));
    }
    if worst > 1e-12 {
        return Err(format!(
            "results differ from OpenBLAS's by {worst:e} (relative)"
        ));
    }

    let flops = 2.0 * (n as f64).powi(3);
    let names = [
        "OpenBLAS dgemm, 1 thread",
        "vr cpu: (matmul a b) compiled VRIR, serial",
        "vr kernel entry, serial",
        "OpenBLAS dgemm, all threads",
        "vr kernel entry, parallel flag (rayon)",
    ];
    let mut secs = vec![Vec::with_capacity(reps); names.len()];
    for rep in 0..reps {
        eprintln!("repetition {} of {reps} ...", rep + 1);
        for (row, times) in secs.iter_mut().enumerate() {
            let start = Instant::now();
            match row {
                0 => blas.multiply(n, &a, &b, &mut c, 1),
                1 => {
                    compiled
                        .call("mm", vec![va.clone(), vb.clone()])
                        .map_err(|e| e.to_string())?;
                }
                2 => kernel(n, &a, &b, &mut c, false)?,
                3 => blas.multiply(n, &a, &b, &mut c, all_threads),
                _ => kernel(n, &a, &b, &mut c, true)?,
            }
            times.push(start.elapsed().as_secs_f64());
        }
    }
    let gflops: Vec<f64> = secs.iter_mut().map(|t| flops / median(t) / 1e9).collect();
    println!(
        "matmul f64, n = {n}: {reps} interleaved repetitions, medians; OpenBLAS all threads = {all_threads}; rayon threads = {}",
        std::thread::available_parallelism().map_or(0, |p| p.get())
    );
    println!("| variant | median s | GFLOP/s | / OpenBLAS (same threads) |");
    println!("| --- | ---: | ---: | ---: |");
    for (row, name) in names.iter().enumerate() {
        let reference = if row < 3 { gflops[0] } else { gflops[3] };
        println!(
            "| {name} | {:.3} | {:.2} | {:.2} |",
            flops / gflops[row] / 1e9,
            gflops[row],
            gflops[row] / reference
        );
    }
    println!("largest difference from OpenBLAS's result: {worst:.1e} (relative to n)");
    Ok(())
}
