//! Device faults injected for tests (`VR_GPU_FAULT`): what a device out of memory, a
//! lost device or a failed build looks like to the engine, on a device that has none of
//! these problems (PoCL here and in CI). A test hook only: nothing sets it in normal use.
//!
//! `VR_GPU_FAULT=SPEC` (read once per process) or [`with_faults`] (one thread, for the
//! tests) takes a comma-separated list of `KIND[:N]` (N from 1, default 1):
//!
//! - `alloc:N`: the Nth buffer allocation fails (`CL_MEM_OBJECT_ALLOCATION_FAILURE`);
//! - `upload:N`: the Nth upload fails (`CL_OUT_OF_RESOURCES`);
//! - `launch:N`: the Nth kernel launch fails (`CL_OUT_OF_RESOURCES`);
//! - `refuse:N`: the Nth kernel launch is refused (`CL_INVALID_WORK_GROUP_SIZE`: not a
//!   device fault, so only that task runs on the CPU);
//! - `download:N`: the Nth download fails (`CL_OUT_OF_RESOURCES`), a kernel's error slot
//!   and a reduction's scalar included;
//! - `build:N`: the Nth program the engine asks for does not build;
//! - `lost:N`: the device is lost at its Nth operation of any of these kinds (device
//!   copies and waits included): that one and every later one fails
//!   (`CL_DEVICE_NOT_AVAILABLE`).
//!
//! Operations are counted per thread (a call runs on one thread) from the thread's
//! first device operation, or from the start of [`with_faults`]. Each injected failure
//! says `(injected by VR_GPU_FAULT)` in its message. An unknown spec injects nothing and
//! says so once on stderr.

use std::cell::{Cell, RefCell};
use std::sync::OnceLock;

/// A kind of device operation that can be made to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Alloc,
    Upload,
    Download,
    Copy,
    Launch,
    Finish,
    Build,
}

const KINDS: usize = 7;

fn index(op: Op) -> usize {
    op as usize
}

/// A parsed spec: the operation number (per kind) that fails, and from which operation
/// (of any kind but builds) the device counts as lost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    at: [Option<u64>; KINDS],
    /// The launch number that is refused (counted with the launches).
    refused_at: Option<u64>,
    lost_at: Option<u64>,
}

/// `CL_DEVICE_NOT_AVAILABLE`, `CL_MEM_OBJECT_ALLOCATION_FAILURE`, `CL_OUT_OF_RESOURCES`.
const DEVICE_NOT_AVAILABLE: i32 = -2;
const MEM_OBJECT_ALLOCATION_FAILURE: i32 = -4;
const OUT_OF_RESOURCES: i32 = -5;
/// `CL_INVALID_WORK_GROUP_SIZE`: a launch the device refuses.
const INVALID_WORK_GROUP_SIZE: i32 = -54;

impl Faults {
    pub fn parse(spec: &str) -> Result<Faults, String> {
        let mut f = Faults::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (kind, n) =
                match item.split_once(':') {
                    Some((k, n)) => {
                        let n: u64 =
                            n.trim().parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                                format!("`{item}`: N must be a whole number from 1")
                            })?;
                        (k.trim(), n)
                    }
                    None => (item, 1),
                };
            let op = match kind {
                "alloc" => Op::Alloc,
                "upload" => Op::Upload,
                "download" => Op::Download,
                "launch" => Op::Launch,
                "build" => Op::Build,
                "lost" => {
                    f.lost_at = Some(n);
                    continue;
                }
                "refuse" => {
                    f.refused_at = Some(n);
                    continue;
                }
                _ => {
                    return Err(format!(
                        "`{item}`: expected alloc, upload, download, launch, refuse, build or lost"
                    ))
                }
            };
            f.at[index(op)] = Some(n);
        }
        Ok(f)
    }
}

thread_local! {
    static OVERRIDE: RefCell<Option<Faults>> = const { RefCell::new(None) };
    static COUNTS: Cell<[u64; KINDS]> = const { Cell::new([0; KINDS]) };
    static DEVICE_OPS: Cell<u64> = const { Cell::new(0) };
}

fn from_env() -> &'static Option<Faults> {
    static F: OnceLock<Option<Faults>> = OnceLock::new();
    F.get_or_init(|| {
        let spec = std::env::var("VR_GPU_FAULT").ok()?;
        match Faults::parse(&spec) {
            Ok(f) => Some(f),
            Err(why) => {
                eprintln!("warning: VR_GPU_FAULT={spec}: {why}; no fault injected");
                None
            }
        }
    })
}

/// Run `f` on this thread with `spec` injected (instead of `VR_GPU_FAULT`), counting
/// operations from zero; the previous setting and counts come back afterwards.
pub fn with_faults<R>(spec: &str, f: impl FnOnce() -> R) -> R {
    let faults = Faults::parse(spec).unwrap_or_else(|why| panic!("with_faults({spec:?}): {why}"));
    /// Puts the thread's previous setting back, also when `f` panics.
    struct Restore {
        faults: Option<Faults>,
        counts: [u64; KINDS],
        ops: u64,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| *o.borrow_mut() = self.faults.take());
            COUNTS.with(|c| c.set(self.counts));
            DEVICE_OPS.with(|c| c.set(self.ops));
        }
    }
    let _restore = Restore {
        faults: OVERRIDE.with(|o| o.replace(Some(faults))),
        counts: COUNTS.with(|c| c.replace([0; KINDS])),
        ops: DEVICE_OPS.with(|c| c.replace(0)),
    };
    f()
}

/// Count one `op` on this thread; the injected failure's OpenCL error code and text
/// when it must fail.
pub fn check(op: Op) -> Option<(i32, String)> {
    let faults = OVERRIDE.with(|o| o.borrow().clone());
    let faults = match faults {
        Some(f) => f,
        None => from_env().clone()?,
    };
    let n = COUNTS.with(|c| {
        let mut v = c.get();
        v[index(op)] += 1;
        c.set(v);
        v[index(op)]
    });
    if op != Op::Build {
        let k = DEVICE_OPS.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        if faults.lost_at.is_some_and(|at| k >= at) {
            return Some((DEVICE_NOT_AVAILABLE, "device lost".into()));
        }
    }
    if op == Op::Launch && faults.refused_at == Some(n) {
        return Some((
            INVALID_WORK_GROUP_SIZE,
            format!("launch number {n} refused"),
        ));
    }
    if faults.at[index(op)] == Some(n) {
        let code = match op {
            Op::Alloc => MEM_OBJECT_ALLOCATION_FAILURE,
            _ => OUT_OF_RESOURCES,
        };
        return Some((code, format!("{op:?} number {n}").to_lowercase()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_count_per_kind() {
        assert!(Faults::parse("alloc:0").is_err());
        assert!(Faults::parse("memory:1").is_err());
        with_faults("alloc:2,download", || {
            assert_eq!(check(Op::Alloc), None);
            assert_eq!(check(Op::Download).map(|f| f.0), Some(OUT_OF_RESOURCES));
            assert_eq!(
                check(Op::Alloc).map(|f| f.0),
                Some(MEM_OBJECT_ALLOCATION_FAILURE)
            );
            assert_eq!(check(Op::Alloc), None, "once");
        });
        with_faults("lost:3", || {
            assert_eq!(check(Op::Alloc), None);
            assert_eq!(check(Op::Build), None, "a build is not a device operation");
            assert_eq!(check(Op::Upload), None);
            for op in [Op::Launch, Op::Finish, Op::Alloc] {
                assert_eq!(check(op).map(|f| f.0), Some(DEVICE_NOT_AVAILABLE));
            }
        });
    }
}
