//! The results table, printed as Markdown so RESULTS.md can hold it verbatim.

use std::time::Duration;

/// One kernel's measurements.
pub struct Row {
    pub kernel: String,
    /// Interpreter time, scaled from `interp_size` to the full size by work.
    pub interp: Duration,
    pub interp_size: usize,
    pub size: usize,
    pub cpu_checked: Duration,
    /// Checks as emitted, then the optimizer (bounds-check elimination) with all passes.
    pub cpu_optimized: Duration,
    pub cpu_unchecked: Duration,
    /// Inner-loop bounds checks as written, and how many the optimizer removed.
    pub inner_checks: (u64, u64),
    /// cpu-par (parfor on the thread pool), after the optimizer.
    pub cpu_par: Duration,
    pub c: Duration,
    /// The C reference built with OpenMP at cpu-par's thread count (kernels with a parfor).
    pub openmp: Option<Duration>,
    pub compile_ms: f64,
}

/// One thread count of the scaling sweep: cpu-par against cpu (optimized), OpenMP against C.
pub struct SweepRow {
    pub kernel: String,
    pub threads: usize,
    pub cpu: Duration,
    pub cpu_par: Duration,
    pub c: Duration,
    pub openmp: Duration,
}

impl Row {
    pub fn ratio_checked(&self) -> f64 {
        secs(self.cpu_checked) / secs(self.c)
    }
    pub fn ratio_optimized(&self) -> f64 {
        secs(self.cpu_optimized) / secs(self.c)
    }
    pub fn ratio_unchecked(&self) -> f64 {
        secs(self.cpu_unchecked) / secs(self.c)
    }
    /// Speedup of cpu-par over cpu (both after the optimizer).
    pub fn par_speedup(&self) -> f64 {
        secs(self.cpu_optimized) / secs(self.cpu_par)
    }
    /// Speedup of OpenMP over serial C.
    pub fn omp_speedup(&self) -> Option<f64> {
        self.openmp.map(|o| secs(self.c) / secs(o))
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

pub fn print(rows: &[Row]) {
    println!("| kernel | size | interp ms (scaled from size) | cpu ms (checks on) | cpu ms (optimized) | cpu ms (checks off) | cpu-par ms | C ms | OpenMP ms | cpu/C (on) | cpu/C (opt) | cpu/C (off) | cpu/cpu-par | C/OpenMP | inner-loop checks removed | compile ms |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let omp_ms = r.openmp.map_or("-".to_string(), ms);
        let omp_speedup = r.omp_speedup().map_or("-".to_string(), |x| format!("{x:.2}"));
        println!(
            "| {} | {} | {} (from {}) | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {}/{} | {:.1} |",
            r.kernel,
            r.size,
            ms(r.interp),
            r.interp_size,
            ms(r.cpu_checked),
            ms(r.cpu_optimized),
            ms(r.cpu_unchecked),
            ms(r.cpu_par),
            ms(r.c),
            omp_ms,
            r.ratio_checked(),
            r.ratio_optimized(),
            r.ratio_unchecked(),
            r.par_speedup(),
            omp_speedup,
            r.inner_checks.1,
            r.inner_checks.0,
            r.compile_ms
        );
    }
    if !rows.is_empty() {
        let med =
            |f: fn(&Row) -> f64| crate::timing::median(&mut rows.iter().map(f).collect::<Vec<_>>());
        println!();
        println!(
            "median cpu/C over {} kernels: {:.2} (checks on), {:.2} (optimized), {:.2} (checks off)",
            rows.len(),
            med(Row::ratio_checked),
            med(Row::ratio_optimized),
            med(Row::ratio_unchecked)
        );
        println!(
            "median cpu-par speedup over cpu over {} kernels: {:.2}",
            rows.len(),
            med(Row::par_speedup)
        );
        println!(
            "median compile latency (VRIR text in -> callable out): {:.1} ms",
            med(|r| r.compile_ms)
        );
    }
}

/// The thread sweep: each kernel's cpu-par speedup over cpu and OpenMP's over C, and the
/// ratio of the two (1.00: Velociraptor scales as OpenMP does on the same loop).
pub fn print_sweep(rows: &[SweepRow]) {
    println!("| kernel | threads | cpu-par ms | OpenMP ms | cpu/cpu-par | C/OpenMP | speedup vs OpenMP's |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let par = secs(r.cpu) / secs(r.cpu_par);
        let omp = secs(r.c) / secs(r.openmp);
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} |",
            r.kernel,
            r.threads,
            ms(r.cpu_par),
            ms(r.openmp),
            par,
            omp,
            par / omp
        );
    }
}
