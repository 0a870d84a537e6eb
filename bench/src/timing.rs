//! Repeated timed runs: every repetition's time is kept (the CSV records median, min and
//! max), the tables print medians.

use crate::record::Sample;
use std::time::{Duration, Instant};

/// Wall times of `reps` runs of `run`; `prepare` builds each run's input outside the
/// timed region, and what `run` returns is dropped outside it too. The first error stops
/// the measurement.
///
/// Why `run` hands back what it may drop: freeing a kernel's arrays is the caller's
/// cost, not the kernel's, and for large arrays it is not small. Dropping rosen_der's
/// 2 x 32 MB inside the clock (munmap of 16,384 pages, with a TLB shootdown on every
/// core that ran the loop) made it, and its OpenMP reference alike, look like 0.14 of
/// STREAM on 16 cores (issue 18).
pub fn sample<I, T, E>(
    reps: usize,
    mut prepare: impl FnMut() -> I,
    mut run: impl FnMut(I) -> Result<T, E>,
) -> Result<Sample, E> {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let input = prepare();
        let start = Instant::now();
        let leftovers = run(input)?;
        times.push(start.elapsed());
        drop(leftovers);
    }
    Ok(Sample { times })
}

/// Median wall time of `reps` runs (see [`sample`]).
pub fn median_time<I, T, E>(
    reps: usize,
    prepare: impl FnMut() -> I,
    run: impl FnMut(I) -> Result<T, E>,
) -> Result<Duration, E> {
    sample(reps, prepare, run).map(|s| s.median())
}

pub fn median<T: PartialOrd + Copy>(xs: &mut [T]) -> T {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    xs[xs.len() / 2]
}
