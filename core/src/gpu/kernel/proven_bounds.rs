//! **proven-bounds** (issue 19 item 1): element accesses the optimizer proved in bounds
//! are not checked again in a parfor's kernel.
//!
//! Why: the kernel generator kept every bounds check of a parfor body, `:nocheck`
//! included (the interpreter's rule), so `bce-version`'s unchecked copy of a loop was
//! the checked copy again on the device. In a loop such as nbody1d's inner `j` loop
//! each read then carries a compare and a branch to the error path, which keeps
//! the OpenCL compiler from unrolling the loop and overlapping one step's division
//! and square root with the next's.
//!
//! When: a read or a store marked `:nocheck` (docs/vrir-semantics.md: the front end or
//! the optimizer proved it in bounds; compiled code may omit the check, as the cpu
//! backends do), outside the tiled part of a `tile-local` kernel (there, work items
//! padding the NDRange run the body with indices outside the domain, which the proof
//! does not cover, so every check stays). The "assigned" checks of arrays and scalars
//! stay.
//!
//! What it keeps: a proof holds for every iteration of the domain, which is what the
//! work items run (`spread-groups`' padding returns before the body), so no access that
//! could fail loses its check and the results and errors are unchanged.
//!
//! Counted per kernel in [`super::Kernel::passes`]: the accesses left unchecked.

use crate::vrir::ast::IndexFlags;

/// Whether an access with `flags` goes unchecked: marked `:nocheck`, the pass on, and
/// not in the tiled part of a kernel (`dead_mode`: padding work items run it).
pub(super) fn skips_check(flags: IndexFlags, on: bool, dead_mode: bool) -> bool {
    on && !flags.check && !dead_mode
}
