//! `vr-bench-matmul`: the cpu backend's `matmul` against Debian's OpenBLAS, side by side
//! in one process, n x n times n x n, for each size and for f64 and f32.
//!
//! Rows, measured interleaved (one repetition of every row, then the next repetition),
//! so that load from other processes on this shared machine hits all of them alike;
//! medians of the repetitions:
//! - OpenBLAS `cblas_?gemm` called here directly, 1 thread and all threads
//!   (`openblas_set_num_threads`): the reference;
//! - compiled VRIR `(return (matmul a b))` through `CompiledModule::call` on the `cpu`
//!   and `cpu-par` backends, which includes allocating the result and copying it out;
//! - the kernel entry that compiled code calls (`vr_cpu_matmul`), serial and with its
//!   `parallel` flag, against C arrays (OpenBLAS through `cpu::blas` when it loads);
//! - the `gemm` crate alone (`gemm_float`, the fallback kernel), serial and on rayon.
//!
//! Results are checked against OpenBLAS's (relative 1e-12, f32: 1e-4, of the inner
//! extent) before anything is timed. GFLOP/s counts 2 n^3 operations. Never used for
//! timed assertions.
//!
//! Usage: vr-bench-matmul [--sizes 500,1000,2000] [--reps R]

use libloading::{Library, Symbol};
use std::process::ExitCode;
use std::time::Instant;
use velociraptor::cpu::blas::{RealGemm, SetThreads, CBLAS_NO_TRANS, CBLAS_ROW_MAJOR};
use velociraptor::cpu::matmul::{elem_code, gemm_float, vr_cpu_matmul, MatRef};
use velociraptor::cpu::{self, CpuOptions};
use velociraptor::runtime::value::{Array, Buffer, Value};
use velociraptor::vrir::text::parse_module;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

type GetThreads = unsafe extern "C" fn() -> i32;

/// The element types measured: f64 and f32.
trait Elem: Copy + Default + PartialOrd + 'static {
    const TYPE: ScalarType;
    const SYMBOL: &'static [u8];
    const TOLERANCE: f64;
    fn one() -> Self;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn buffer(data: Vec<Self>) -> Buffer;
}

impl Elem for f64 {
    const TYPE: ScalarType = ScalarType::F64;
    const SYMBOL: &'static [u8] = b"cblas_dgemm\0";
    const TOLERANCE: f64 = 1e-12;
    fn one() -> f64 {
        1.0
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn buffer(data: Vec<f64>) -> Buffer {
        Buffer::F64(data)
    }
}

impl Elem for f32 {
    const TYPE: ScalarType = ScalarType::F32;
    const SYMBOL: &'static [u8] = b"cblas_sgemm\0";
    const TOLERANCE: f64 = 1e-4;
    fn one() -> f32 {
        1.0
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn buffer(data: Vec<f32>) -> Buffer {
        Buffer::F32(data)
    }
}

struct OpenBlas {
    lib: Library,
    set_threads: SetThreads,
    all_threads: i32,
}

impl OpenBlas {
    fn load() -> Result<OpenBlas, String> {
        // SAFETY: OpenBLAS's initialiser only sets up its thread pool; the signatures
        // are OpenBLAS's (cblas.h, openblas_config.h).
        unsafe {
            let lib = Library::new("libopenblas.so.0")
                .map_err(|e| format!("loading libopenblas.so.0 (Debian: libopenblas0): {e}"))?;
            let set_threads = *lib
                .get::<SetThreads>(b"openblas_set_num_threads\0")
                .map_err(|e| format!("openblas_set_num_threads: {e}"))?;
            let get: Symbol<GetThreads> = lib
                .get(b"openblas_get_num_threads\0")
                .map_err(|e| format!("openblas_get_num_threads: {e}"))?;
            let all_threads = get();
            Ok(OpenBlas {
                lib,
                set_threads,
                all_threads,
            })
        }
    }

    fn gemm<T: Elem>(&self) -> Result<RealGemm<T>, String> {
        // SAFETY: T::SYMBOL is `cblas_?gemm` of T's precision.
        unsafe { self.lib.get::<RealGemm<T>>(T::SYMBOL).map(|s| *s) }
            .map_err(|e| format!("OpenBLAS symbol: {e}"))
    }

    fn multiply<T: Elem>(&self, gemm: RealGemm<T>, n: usize, a: &[T], b: &[T], c: &mut [T], threads: i32) {
        let n = n as i32;
        // SAFETY: a, b, c hold n*n row-major elements each.
        unsafe {
            (self.set_threads)(threads);
            gemm(
                CBLAS_ROW_MAJOR,
                CBLAS_NO_TRANS,
                CBLAS_NO_TRANS,
                n,
                n,
                n,
                T::one(),
                a.as_ptr(),
                n,
                b.as_ptr(),
                n,
                T::default(),
                c.as_mut_ptr(),
                n,
            )
        }
    }
}

/// The kernel entry compiled code calls, on row-major C arrays.
fn kernel<T: Elem>(n: usize, a: &[T], b: &[T], c: &mut [T], parallel: bool) -> Result<(), String> {
    let n = n as i64;
    // SAFETY: row-major n x n arrays; a null context is allowed (no failure expected).
    let status = unsafe {
        vr_cpu_matmul(
            std::ptr::null_mut(),
            elem_code(T::TYPE),
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

/// The `gemm` crate alone (the fallback kernel).
fn gemm_crate<T: Elem>(n: usize, a: &[T], b: &[T], c: &mut [T], parallel: bool) {
    let row = |p: *const T| MatRef {
        ptr: p,
        rs: n as isize,
        cs: 1,
    };
    // SAFETY: row-major n x n arrays that do not overlap.
    unsafe {
        gemm_float(
            n,
            n,
            n,
            row(c.as_mut_ptr() as *const T),
            row(a.as_ptr()),
            row(b.as_ptr()),
            T::one(),
            parallel,
        )
    }
}

fn matrix<T: Elem>(n: usize, data: &[T]) -> Value {
    let a = Array::zeros(ArrayType::new(T::TYPE, 2, Layout::Row), vec![n, n]);
    *a.data.borrow_mut() = T::buffer(data.to_vec());
    Value::Array(a)
}

fn elements(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.elements().iter().filter_map(|s| s.as_f64()).collect(),
        _ => Vec::new(),
    }
}

/// Deterministic values in [-1, 1).
fn values<T: Elem>(n: usize, seed: u64) -> Vec<T> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            T::from_f64(((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0)
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

fn parse_args() -> Result<(Vec<usize>, usize), String> {
    let (mut sizes, mut reps) = (vec![500usize, 1000, 2000], 5usize);
    let usage = "usage: vr-bench-matmul [--sizes 500,1000,2000] [--reps R]";
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let value = it.next().ok_or(format!("{a} needs a value\n{usage}"))?;
        match a.as_str() {
            "--sizes" | "--n" => {
                sizes = value
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().ok().filter(|n| *n > 0))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(format!("--sizes needs positive numbers, got `{value}`"))?
            }
            "--reps" => {
                reps = value
                    .parse::<usize>()
                    .ok()
                    .filter(|r| *r > 0)
                    .ok_or(format!("--reps needs a positive number, got `{value}`"))?
            }
            other => return Err(format!("unknown argument `{other}`\n{usage}")),
        }
    }
    Ok((sizes, reps))
}

const ROWS: [&str; 8] = [
    "OpenBLAS ?gemm, 1 thread",
    "vr cpu: (matmul a b) compiled VRIR",
    "vr kernel entry, serial",
    "gemm crate alone, serial",
    "OpenBLAS ?gemm, all threads",
    "vr cpu-par: (matmul a b) compiled VRIR",
    "vr kernel entry, parallel flag",
    "gemm crate alone, rayon",
];

/// Rows 0..4 compare with row 0 (one thread), rows 4.. with row 4 (all threads).
fn reference_row(row: usize) -> usize {
    if row < 4 {
        0
    } else {
        4
    }
}

fn measure<T: Elem>(blas: &OpenBlas, n: usize, reps: usize) -> Result<Vec<f64>, String> {
    let gemm = blas.gemm::<T>()?;
    let src = format!(
        "(module mm :index-base 0
  (function mm ((a {t}[2,row]) (b {t}[2,row])) ({t}[2,row])
    (locals)
    (return (matmul a b))))",
        t = T::TYPE
    );
    let m = parse_module(&src).map_err(|e| e.to_string())?;
    let serial = cpu::compile(&m).map_err(|e| e.to_string())?;
    let parallel = cpu::compile_with(&m, CpuOptions::parallel()).map_err(|e| e.to_string())?;
    let (a, b) = (values::<T>(n * n, 1), values::<T>(n * n, 2));
    let (va, vb) = (matrix(n, &a), matrix(n, &b));
    let mut c_ref = vec![T::default(); n * n];
    let mut c = vec![T::default(); n * n];
    let f64s = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();

    // Check every variant against OpenBLAS once, untimed.
    blas.multiply(gemm, n, &a, &b, &mut c_ref, 1);
    let reference = f64s(&c_ref);
    let mut worst = 0.0f64;
    for compiled in [&serial, &parallel] {
        let out = compiled
            .call("mm", vec![va.clone(), vb.clone()])
            .map_err(|e| e.to_string())?;
        worst = worst.max(max_rel_diff(&elements(&out[0]), &reference, n));
    }
    for par in [false, true] {
        kernel(n, &a, &b, &mut c, par)?;
        worst = worst.max(max_rel_diff(&f64s(&c), &reference, n));
        gemm_crate(n, &a, &b, &mut c, par);
        worst = worst.max(max_rel_diff(&f64s(&c), &reference, n));
    }
    if worst > T::TOLERANCE {
        return Err(format!(
            "{} n = {n}: results differ from OpenBLAS's by {worst:e} (relative)",
            T::TYPE
        ));
    }

    let mut secs = vec![Vec::with_capacity(reps); ROWS.len()];
    for rep in 0..reps {
        eprintln!("{} n = {n}: repetition {} of {reps} ...", T::TYPE, rep + 1);
        for (row, times) in secs.iter_mut().enumerate() {
            let start = Instant::now();
            match row {
                0 => blas.multiply(gemm, n, &a, &b, &mut c, 1),
                1 | 5 => {
                    let compiled = if row == 1 { &serial } else { &parallel };
                    compiled
                        .call("mm", vec![va.clone(), vb.clone()])
                        .map_err(|e| e.to_string())?;
                }
                2 | 6 => kernel(n, &a, &b, &mut c, row == 6)?,
                3 | 7 => gemm_crate(n, &a, &b, &mut c, row == 7),
                _ => blas.multiply(gemm, n, &a, &b, &mut c, blas.all_threads),
            }
            times.push(start.elapsed().as_secs_f64());
        }
    }
    Ok(secs.iter_mut().map(|t| median(t)).collect())
}

fn run() -> Result<(), String> {
    let (sizes, reps) = parse_args()?;
    let blas = OpenBlas::load()?;
    let loaded = cpu::blas::blas().map_or("none: the gemm crate does every product", |b| b.name);
    println!(
        "matmul, n x n times n x n: {reps} interleaved repetitions, medians; OpenBLAS all threads = {}; \
         rayon threads = {}; BLAS of the kernel: {loaded}",
        blas.all_threads,
        std::thread::available_parallelism().map_or(0, |p| p.get())
    );
    println!("| n | type | variant | median s | GFLOP/s | / OpenBLAS (same threads) |");
    println!("| ---: | --- | --- | ---: | ---: | ---: |");
    for &n in &sizes {
        for t in [ScalarType::F64, ScalarType::F32] {
            let secs = match t {
                ScalarType::F64 => measure::<f64>(&blas, n, reps)?,
                _ => measure::<f32>(&blas, n, reps)?,
            };
            let flops = 2.0 * (n as f64).powi(3);
            for (row, name) in ROWS.iter().enumerate() {
                println!(
                    "| {n} | {t} | {name} | {:.4} | {:.2} | {:.2} |",
                    secs[row],
                    flops / secs[row] / 1e9,
                    secs[reference_row(row)] / secs[row]
                );
            }
        }
    }
    Ok(())
}
