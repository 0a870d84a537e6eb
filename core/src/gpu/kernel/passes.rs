//! The switches of the GPU code generator's optimisations (issue 19 item 1), read like
//! `VR_PASSES` from `VR_GPU_PASSES` (`none`, `-tile-local`, `none,+ndrange-loops`), or
//! set for one thread by [`with_passes`] (tests, `vr-bench --gpu`'s "passes off" run).
//!
//! Each optimisation is its own file next to `kernel.rs` and says what it does, why, and
//! what it counts; a kernel lists the ones that fired on it ([`super::Kernel::passes`]),
//! the plan sums them per module, and the section report (`VR_DUMP_EXPLAIN`, R's
//! `vr_explain()`, `vr run --backend gpu`) prints them. Every pass keeps the kernel's
//! results bit for bit and its errors in the serial order (docs/gpu.md), so switching one
//! off changes only the speed.

use std::cell::RefCell;
use std::collections::BTreeSet;

/// The environment variable [`GpuPasses::from_env`] reads.
pub const GPU_PASSES_ENV: &str = "VR_GPU_PASSES";

/// Serial `for` loops of a section with independent iterations become kernels of their
/// own, one work item per iteration (`loop_kernels.rs`).
pub const LOOP_KERNELS: &str = "loop-kernels";
/// Serial loops that form the rest of a perfect nest under a parfor, with independent
/// iterations, become NDRange dimensions (`ndrange.rs`).
pub const NDRANGE_LOOPS: &str = "ndrange-loops";
/// The dimension that indexes arrays' fastest-varying storage position goes on work-item
/// dimension 0, so neighbouring work items touch neighbouring bytes (`ndrange.rs`).
pub const COALESCE: &str = "coalesce";
/// Serial loops whose reads are affine in the loop index, in 2-D kernels, read through
/// work-group tiles in local memory (`tile.rs`).
pub const TILE_LOCAL: &str = "tile-local";

/// Launches too small to fill the device get work groups small enough to reach every
/// compute unit (`groups.rs`).
pub const SPREAD_GROUPS: &str = "spread-groups";

/// Accesses the optimizer proved in bounds (`:nocheck`) are not checked again in parfor
/// kernels (`proven_bounds.rs`).
pub const PROVEN_BOUNDS: &str = "proven-bounds";

/// Every pass, in the order the generator applies them.
pub const ALL: &[&str] = &[
    LOOP_KERNELS,
    NDRANGE_LOOPS,
    COALESCE,
    TILE_LOCAL,
    SPREAD_GROUPS,
    PROVEN_BOUNDS,
];

/// Which passes are on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuPasses {
    disabled: BTreeSet<&'static str>,
}

impl GpuPasses {
    pub fn all() -> GpuPasses {
        GpuPasses::default()
    }

    pub fn none() -> GpuPasses {
        GpuPasses {
            disabled: ALL.iter().copied().collect(),
        }
    }

    /// These passes with `pass` switched on as well.
    pub fn enabling(mut self, pass: &str) -> GpuPasses {
        self.disabled.retain(|p| *p != pass);
        self
    }

    pub fn is_enabled(&self, pass: &str) -> bool {
        !self.disabled.contains(pass)
    }

    /// Comma-separated items applied left to right to "every pass on": `-NAME`, `+NAME`
    /// or `NAME`, `none`, `all`. An unknown name is an error listing the names.
    pub fn parse(spec: &str) -> Result<GpuPasses, String> {
        let mut p = GpuPasses::all();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "none" => p = GpuPasses::none(),
                "all" => p = GpuPasses::all(),
                _ => {
                    let (name, on) = match item.strip_prefix('-') {
                        Some(n) => (n, false),
                        None => (item.strip_prefix('+').unwrap_or(item), true),
                    };
                    let Some(known) = ALL.iter().find(|k| **k == name) else {
                        return Err(format!(
                            "{GPU_PASSES_ENV}: unknown gpu pass `{name}` (passes: {}; also all, none)",
                            ALL.join(", ")
                        ));
                    };
                    if on {
                        p.disabled.remove(known);
                    } else {
                        p.disabled.insert(known);
                    }
                }
            }
        }
        Ok(p)
    }

    /// `VR_GPU_PASSES` (an unknown name switches every pass off and is reported once on
    /// stderr, since a kernel is never wrong without them). Unset: every pass on, except
    /// on an OpenCL device that is a CPU (PoCL), where they cost time (a work group runs
    /// as loops split at each barrier, and one work item per row vectorises best:
    /// docs/gpu.md), so none.
    pub fn from_env() -> GpuPasses {
        match std::env::var(GPU_PASSES_ENV) {
            Ok(spec) => GpuPasses::parse(&spec).unwrap_or_else(|why| {
                static SAID: std::sync::Once = std::sync::Once::new();
                SAID.call_once(|| eprintln!("warning: {why}: every gpu pass is off"));
                GpuPasses::none()
            }),
            Err(_) => match crate::gpu::device() {
                Ok(d) if !d.is_gpu => GpuPasses::none(),
                _ => GpuPasses::all(),
            },
        }
    }

    /// The passes in force on this thread: an enclosing [`with_passes`], else the
    /// environment.
    pub fn current() -> GpuPasses {
        SCOPED
            .with(|s| s.borrow().clone())
            .unwrap_or_else(GpuPasses::from_env)
    }
}

thread_local! {
    static SCOPED: RefCell<Option<GpuPasses>> = const { RefCell::new(None) };
}

/// Run `f` with `passes` in force on this thread (kernels generated inside use them).
pub fn with_passes<R>(passes: GpuPasses, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<GpuPasses>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|s| *s.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(SCOPED.with(|s| s.borrow_mut().replace(passes)));
    f()
}

/// What fired on one kernel: (pass, what it did), in the order applied.
pub type Fired = Vec<(&'static str, String)>;

static FIRED: [std::sync::atomic::AtomicU64; ALL.len()] =
    [const { std::sync::atomic::AtomicU64::new(0) }; ALL.len()];

/// Count a kernel generated with `fired` (process-wide, for `vr run` / `vr test`).
pub(super) fn count(fired: &Fired) {
    for (k, p) in ALL.iter().enumerate() {
        if fired.iter().any(|(f, _)| f == p) {
            FIRED[k].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Kernels generated in this process that each pass fired on.
pub fn fired_in_process() -> Vec<(&'static str, u64)> {
    ALL.iter()
        .zip(&FIRED)
        .map(|(p, n)| (*p, n.load(std::sync::atomic::Ordering::Relaxed)))
        .collect()
}
