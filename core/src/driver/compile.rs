//! One specialization's compile (the compile step of `runtime::compile_cache`): the
//! backend its options name, through the on-disk code cache when there is one. Here
//! because it is the one place that chooses between backends: a module with GPU sections
//! under the `gpu` backend is compiled in process with the GPU's plan and engine (its
//! code holds the engine's actions, so it is never written to disk); everything else is
//! the cpu backend's machine code, loaded from the disk cache or compiled and stored.

use super::compile_gpu;
use crate::gpu::placement::Placement;
use crate::cpu::{CompiledModule, CpuOptions};
use crate::runtime::disk_cache::{DiskCache, Lookup};
use crate::runtime::error::VrResult;
use crate::vrir::ast::Module;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// What one compile made and did.
pub struct Unit {
    pub compiled: CompiledModule,
    /// What the disk cache did, for `explain` (`loaded from DIR`, `compiled; written to
    /// DIR`, `not used: ...`, or `off_note` when there is no disk cache).
    pub disk: String,
    /// LLVM compiled it (not loaded from disk).
    pub built: bool,
    /// The disk entry was refused because someone else could have written it.
    pub untrusted: Option<String>,
    /// The entry could not be written (read-only directory, full disk): why.
    pub not_written: Option<String>,
}

/// How a unit is compiled besides its options: quick first or at full strength
/// (`cpu::tiers`), and where a background compile reports a disk entry it could not
/// write (the cache's first note, as the synchronous path's `Unit::not_written`).
pub struct Tiering {
    pub mode: crate::cpu::tiers::Tiers,
    pub notes: Arc<Mutex<Option<String>>>,
}

/// Compile `sub` (verified, optimized; `key`: the specialization cache's key) with `cpu`
/// options, on the `gpu` backend when `gpu` says how tasks are placed; through `disk` when given (entries keyed by
/// `key`, the target and `compiler_id`). `off_note`: what to report without a disk cache.
#[allow(clippy::too_many_arguments)]
pub fn compile_unit(
    sub: &Module,
    key: &str,
    cpu: CpuOptions,
    gpu: Option<Placement>,
    disk: Option<&Arc<DiskCache>>,
    compiler_id: &str,
    off_note: impl FnOnce() -> String,
    tiering: Tiering,
) -> VrResult<Unit> {
    let unit = |compiled, disk: String, built| Unit {
        compiled,
        disk,
        built,
        untrusted: None,
        not_written: None,
    };
    if let Some(placement) = gpu.filter(|_| crate::gpu::section_count(sub) > 0) {
        // Offload actions hold the engine's plan: compiled in process only. (Without
        // sections the gpu backend's code is cpu-par's, cached like it.)
        let c = match placement {
            Placement::Device => compile_gpu(sub, cpu)?,
            Placement::Model => super::compile_auto(sub, cpu)?,
        };
        return Ok(unit(
            c,
            "not used: GPU sections compile in process only".into(),
            true,
        ));
    }
    let mode = tiering.mode;
    let Some(disk) = disk else {
        let c = if mode.tiered() {
            crate::cpu::compile_tiered(sub, cpu, mode)?
        } else {
            crate::cpu::compile_with(sub, cpu)?
        };
        return Ok(unit(c, off_note(), true));
    };
    let disk_key = format!("{key}\n{}\n{compiler_id}", crate::cpu::target_id());
    let mut untrusted = None;
    match disk.load(&disk_key) {
        Lookup::Hit(object) => match crate::cpu::load_object(sub, &object, cpu) {
            Ok(c) => {
                disk.hits.fetch_add(1, Ordering::Relaxed);
                let what = format!("loaded from {}", disk.dir().display());
                return Ok(unit(c, what, false));
            }
            // Passed the checksum but does not link: rebuilt below.
            Err(_) => disk.reject(&disk.path_for(&disk_key)),
        },
        Lookup::Miss => {}
        // Not loaded, and not replaced either: the user should see it as found.
        Lookup::Untrusted(why) => untrusted = Some(why),
    }
    if mode.tiered() {
        // The quick compile verifies `sub`; the background one compiles the same.
        return quick_then_stored(sub, cpu, mode, disk, disk_key, untrusted, tiering.notes);
    }
    crate::vrir::verify::verify_module(sub)?;
    let object = crate::cpu::emit_object(sub, cpu)?;
    // The last safe point before the entry is written: an interrupted compile leaves
    // nothing on disk (what is written is always a whole object, see disk_cache).
    crate::cpu::interrupt::check_compile("writing the on-disk cache entry")?;
    let mut not_written = None;
    let what = if let Some(why) = &untrusted {
        format!("entry not loaded: {why}; compiled in memory, nothing written")
    } else {
        // A full disk or a read-only directory only costs the next process a compile.
        match disk.store(&disk_key, &object) {
            Ok(()) => format!("compiled; written to {}", disk.dir().display()),
            Err(e) => {
                let what = format!("compiled; not written to {} ({e})", disk.dir().display());
                not_written = Some(format!(
                    "entry not written ({e}); the next process compiles again"
                ));
                what
            }
        }
    };
    let c = crate::cpu::load_object(sub, &object, cpu)?;
    Ok(Unit {
        compiled: c,
        disk: what,
        built: true,
        untrusted,
        not_written,
    })
}

/// A disk-cache miss compiled quick first (`cpu::tiers`): the quick tier in memory now;
/// the full-strength object compiled, written to the cache (unless the entry found was
/// untrusted) and loaded in the background, where it replaces the quick tier for the
/// calls after. What the write did is reported when it has happened: the module's
/// `tier_disk_report` (explain's `disk cache:` line), and a failed write as the cache's
/// note, as on the synchronous path.
fn quick_then_stored(
    sub: &Module,
    cpu: CpuOptions,
    mode: crate::cpu::tiers::Tiers,
    disk: &Arc<DiskCache>,
    disk_key: String,
    untrusted: Option<String>,
    notes: Arc<Mutex<Option<String>>>,
) -> VrResult<Unit> {
    let (owned, disk_owned, store) = (sub.clone(), Arc::clone(disk), untrusted.is_none());
    let compiled = crate::cpu::compile_quick_then(sub, cpu, mode, move || {
        let object = crate::cpu::emit_object(&owned, cpu)?;
        crate::cpu::interrupt::check_compile("writing the on-disk cache entry")?;
        let dir = disk_owned.dir().display().to_string();
        let what = if !store {
            None
        } else {
            Some(match disk_owned.store(&disk_key, &object) {
                Ok(()) => format!("compiled; written to {dir}"),
                Err(e) => {
                    notes
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(format!("entry not written ({e}); the next process compiles again"));
                    format!("compiled; not written to {dir} ({e})")
                }
            })
        };
        Ok((crate::cpu::load_object(&owned, &object, cpu)?, what))
    })?;
    let what = match &untrusted {
        Some(why) => format!("entry not loaded: {why}; compiled in memory, nothing written"),
        None => format!(
            "compiled quick first; the full-strength object is written to {} when the background compile ends (see `code:`)",
            disk.dir().display()
        ),
    };
    Ok(Unit {
        compiled,
        disk: what,
        built: true,
        untrusted,
        not_written: None,
    })
}
