//! **spread-groups** (issue 19 item 1): a launch too small to fill the device gets work
//! groups small enough that every compute unit receives some.
//!
//! Why: a kernel without tiling was launched with the work-group size left to the
//! OpenCL implementation, which must divide the global size by it. nbody1d's parfor has
//! 3,000 work items, each a loop of 3,000 steps with a division and a square root: the
//! time is the latency of those steps, so what counts is how many compute units (SMs)
//! run work items at once. 3,000 items in groups of several hundred reach a handful of
//! an H200's 132 SMs; in groups of 32 (one warp), 94 of them. numba-cuda launches the
//! same kernel in blocks of 128 (24 SMs).
//!
//! Rule: when the NDRange has fewer items than `compute units x 2,048` (an NVIDIA SM
//! holds at most 2,048 resident threads; above that the implementation's choice has
//! enough groups), work-item dimension 0 gets the largest group of 256, 128, 64 or 32
//! items that still gives at least one group per compute unit (32 when none does), the
//! other dimensions groups of 1; the global size of dimension 0 is rounded up to whole
//! groups and the padding work items return at once (the kernel tests its index against
//! the domain before anything else, [`super::Kernel::spread`]). Kernels the
//! `tile-local` pass shaped keep their groups.
//!
//! What it keeps: the work items of the domain run exactly as before (only how they
//! are grouped changes), so results and errors are unchanged. Counted as fired on every
//! kernel it applies to (the rule itself is decided at each launch, from the domain).

/// Items per compute unit above which the implementation's own grouping is kept.
const FULL_PER_UNIT: u128 = 2048;

/// The work-group size for work-item dimension 0 of a launch of `global` work items per
/// dimension on a device of `units` compute units, or None to leave it to the
/// implementation.
pub(super) fn group_size(global: &[usize], units: usize) -> Option<usize> {
    let units = units.max(1) as u128;
    let items: u128 = global.iter().map(|g| *g as u128).product();
    if items == 0 || items >= units * FULL_PER_UNIT {
        return None;
    }
    let rest = items / (global[0].max(1) as u128);
    let groups = |l: usize| (global[0].div_ceil(l) as u128) * rest;
    let pick = [256, 128, 64, 32]
        .into_iter()
        .find(|l| groups(*l) >= units)
        .unwrap_or(32);
    Some(pick)
}

#[cfg(test)]
mod tests {
    use super::group_size;

    #[test]
    fn small_launches_spread_over_every_unit() {
        // nbody1d on an H200: 3,000 items, 132 SMs: 32 per group, 94 groups.
        assert_eq!(group_size(&[3000], 132), Some(32));
        // 40,000 items: 256 per group gives 157 groups.
        assert_eq!(group_size(&[40_000], 132), Some(256));
        // 20,000 items: 128 per group gives 157 groups (256 would give 79).
        assert_eq!(group_size(&[20_000], 132), Some(128));
        // a 2-D launch: groups along dimension 0 times the other extents.
        assert_eq!(group_size(&[100, 50], 132), Some(32));
        assert_eq!(group_size(&[300, 50], 132), Some(128));
        // large enough to fill the device, or empty: the implementation's choice.
        assert_eq!(group_size(&[132 * 2048], 132), None);
        assert_eq!(group_size(&[0], 132), None);
    }
}
