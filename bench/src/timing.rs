//! Repeated timed runs: every repetition's time is kept (the CSV records median, min and
//! max), the tables print medians.

use crate::record::Sample;
use std::time::{Duration, Instant};

/// Wall times of `reps` runs of `run`; `prepare` builds each run's input outside the
/// timed region. The first error stops the measurement.
pub fn sample<I, E>(
    reps: usize,
    mut prepare: impl FnMut() -> I,
    mut run: impl FnMut(I) -> Result<(), E>,
) -> Result<Sample, E> {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let input = prepare();
        let start = Instant::now();
        run(input)?;
        times.push(start.elapsed());
    }
    Ok(Sample { times })
}

/// Median wall time of `reps` runs (see [`sample`]).
pub fn median_time<I, E>(
    reps: usize,
    prepare: impl FnMut() -> I,
    run: impl FnMut(I) -> Result<(), E>,
) -> Result<Duration, E> {
    sample(reps, prepare, run).map(|s| s.median())
}

pub fn median<T: PartialOrd + Copy>(xs: &mut [T]) -> T {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    xs[xs.len() / 2]
}
