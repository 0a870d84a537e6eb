//! The machine's sustainable memory bandwidth (STREAM's triad, built with OpenMP from
//! bench/c/stream.c) at each thread count of a run, and the memory-bound kernels'
//! achieved bandwidth against it (issue 18: rosen_der and stencil5 at >= 80% of the
//! measured stream bandwidth).
//!
//! Bandwidth is counted as STREAM counts it: the bytes the loop must read and write
//! (triad: 24 per element; write-allocate traffic not counted). A kernel's bytes are its
//! arrays read once and written once (`kernel_bytes`); where its arrays fit in the
//! last-level cache the figure can exceed STREAM's, which then says the kernel is not
//! memory-bound at that size rather than that it beats the memory.

use crate::c_ref::{self, BuildDir};
use crate::record::{Recorder, Sample};
use crate::timing;
use libloading::Symbol;
use std::alloc::{alloc, dealloc, Layout};

/// Elements per array: 3 x 256 MiB, far beyond any last-level cache (`--quick`: 8 MiB).
fn elements(quick: bool) -> usize {
    if quick {
        1 << 20
    } else {
        1 << 25
    }
}

/// Bytes a call of the memory-bound kernel `name` at `size` must move, if it is one.
pub fn kernel_bytes(name: &str, size: usize) -> Option<f64> {
    let f = 8.0;
    match name {
        // x read, der written.
        "rosen_der" => Some(2.0 * f * size as f64),
        // a (size x size) read, b written.
        "stencil5" => Some(2.0 * f * (size * size) as f64),
        _ => None,
    }
}

/// STREAM triad GB/s (median of `reps`) at each of `threads`, recorded as
/// `stream-triad` rows.
pub fn triad(dir: &BuildDir, threads: &[usize], quick: bool, reps: usize, csv: &mut Recorder) -> Result<Vec<(usize, f64)>, String> {
    let source = include_str!("../c/stream.c");
    // Never unloaded: libgomp's idle worker threads would run unmapped code.
    let lib = std::mem::ManuallyDrop::new(c_ref::build_and_load(dir, "stream", source, true)?);
    let n = elements(quick);
    let layout = Layout::array::<f64>(n).map_err(|e| e.to_string())?;
    // Untouched pages, so that stream_init's parallel first touch places them.
    // SAFETY: a non-zero layout; each pointer is checked and freed below.
    let arrays: Vec<*mut f64> = (0..3).map(|_| unsafe { alloc(layout) } as *mut f64).collect();
    let result = (|| {
        if arrays.iter().any(|p| p.is_null()) {
            return Err(format!("cannot allocate 3 arrays of {n} doubles"));
        }
        type Init = unsafe extern "C" fn(*mut f64, *mut f64, *mut f64, i64);
        type Triad = unsafe extern "C" fn(*mut f64, *const f64, *const f64, i64, f64);
        // SAFETY: the signatures of bench/c/stream.c.
        let init: Symbol<Init> = unsafe { lib.get(b"stream_init\0") }.map_err(|e| e.to_string())?;
        let run: Symbol<Triad> = unsafe { lib.get(b"stream_triad\0") }.map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for &t in threads {
            c_ref::set_openmp_threads(&lib, t)?;
            // SAFETY: three arrays of n doubles each.
            unsafe { init(arrays[0], arrays[1], arrays[2], n as i64) };
            let s: Sample = timing::sample(reps.max(5), || (), |()| {
                unsafe { run(arrays[0], arrays[1], arrays[2], n as i64, 3.0) };
                Ok::<(), String>(())
            })?;
            // The result proves the loop ran: a = 1 + 3 * 2.
            let probe = unsafe { *arrays[0].add(n / 2) };
            if probe != 7.0 {
                return Err(format!("stream triad computed {probe}, not 7"));
            }
            csv.push("stream_triad", n, "stream-triad", t, &s);
            out.push((t, 24.0 * n as f64 / s.median().as_secs_f64() / 1e9));
        }
        Ok(out)
    })();
    for p in arrays.into_iter().filter(|p| !p.is_null()) {
        // SAFETY: allocated above with this layout.
        unsafe { dealloc(p as *mut u8, layout) };
    }
    result
}

/// One memory-bound kernel at one thread count: its achieved bandwidth and STREAM's.
pub struct BandwidthRow {
    pub kernel: String,
    pub threads: usize,
    pub cpu_par_gbs: f64,
    pub openmp_gbs: Option<f64>,
    pub stream_gbs: f64,
}

/// The rows for `(kernel, size, threads, cpu-par seconds, OpenMP seconds)` timings of
/// memory-bound kernels, against the triad at the same thread count.
pub fn rows(timings: &[(String, usize, usize, f64, Option<f64>)], stream: &[(usize, f64)]) -> Vec<BandwidthRow> {
    timings
        .iter()
        .filter_map(|(k, size, t, par, omp)| {
            let bytes = kernel_bytes(k, *size)?;
            let stream_gbs = stream.iter().find(|(st, _)| st == t)?.1;
            Some(BandwidthRow {
                kernel: k.clone(),
                threads: *t,
                cpu_par_gbs: bytes / par / 1e9,
                openmp_gbs: omp.map(|s| bytes / s / 1e9),
                stream_gbs,
            })
        })
        .collect()
}

pub fn print(stream: &[(usize, f64)], rows: &[BandwidthRow]) {
    println!("| threads | STREAM triad GB/s |");
    println!("| ---: | ---: |");
    for (t, g) in stream {
        println!("| {t} | {g:.1} |");
    }
    if rows.is_empty() {
        return;
    }
    println!();
    println!("| kernel | threads | cpu-par GB/s | OpenMP GB/s | STREAM GB/s | cpu-par / STREAM |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let omp = r.openmp_gbs.map_or("-".to_string(), |g| format!("{g:.1}"));
        println!(
            "| {} | {} | {:.1} | {} | {:.1} | {:.2} |",
            r.kernel, r.threads, r.cpu_par_gbs, omp, r.stream_gbs, r.cpu_par_gbs / r.stream_gbs
        );
    }
}
