//! The kernel cache: OpenCL programs kept in the process by (device, driver version,
//! source hash), and on disk as program binaries (`clGetProgramInfo(CL_PROGRAM_BINARIES)`)
//! so that the next process loads instead of compiling (PoCL spends 0.1-0.8 s per
//! program build; NVIDIA's compiler is slower still).
//!
//! On disk: the `opencl` folder of the CPU code cache's directory (`VR_CACHE_DIR`, the
//! XDG cache directory's `velociraptor`, `~/.cache/velociraptor`, or the directory a
//! C API context names), through the CPU cache's own policy (`runtime::disk_cache`):
//! made mode 0700; used only where no one but the user or root can write the folder,
//! its parents and each entry (`runtime::cache_trust`, OpenSSH's rules); each entry
//! stores its full key (device, vendor, platform, driver version, build options and the
//! whole source) and is loaded only when that key equals the one asked for; a magic
//! number, format version and checksum guard the bytes. A bad entry (damaged, another
//! key, or a binary the driver refuses to build) is counted, deleted and rebuilt from
//! source. A build that fails is cached in the process only, with its log.

use crate::runtime::cache_trust::Problem;
use crate::runtime::disk_cache::{DiskCache, Lookup};
use opencl3::context::Context;
use opencl3::program::Program;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Build options: IEEE results (no fast math), OpenCL C 1.2.
pub const BUILD_OPTIONS: &str = "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt";

/// Where the disk cache is, as configured (process-wide: programs belong to the
/// process's one device).
#[derive(Clone, Debug, PartialEq)]
enum Place {
    /// Not configured: `DiskCache::default_dir()`.
    Default,
    Off,
    Dir(PathBuf),
}

static PLACE: Mutex<Place> = Mutex::new(Place::Default);

/// Keep program binaries in `dir`'s `opencl` folder (None: no disk cache). The C API
/// calls it with a gpu context's `cache_dir`; the last call wins. Takes effect for
/// programs built afterwards.
pub fn set_dir(dir: Option<PathBuf>) {
    *PLACE.lock().unwrap_or_else(|p| p.into_inner()) = match dir {
        Some(d) => Place::Dir(d),
        None => Place::Off,
    };
}

/// What the kernel cache did in this process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Programs compiled from source.
    pub builds: u64,
    /// Programs found in the process.
    pub memory_hits: u64,
    /// Programs loaded from a binary on disk.
    pub disk_hits: u64,
    pub disk_writes: u64,
    /// Entries refused (damaged, another key, a binary the driver would not build),
    /// deleted and rebuilt.
    pub disk_rejects: u64,
}

/// (device, driver version, source hash).
type Key = (String, String, u64);

/// The disk cache and the place it was opened for (an error: why it is not used).
type Opened = Option<(Place, Result<Arc<DiskCache>, String>)>;

/// The identity of the device a binary is for, as stored in each entry's key.
#[derive(Clone, Debug)]
pub struct DeviceKey {
    pub platform: String,
    pub name: String,
    pub vendor: String,
    pub driver_version: String,
    /// `platform/device` indices (in-process key only: the same device may be listed
    /// elsewhere in another process).
    pub index: String,
}

#[derive(Default)]
pub struct ProgramCache {
    memory: Mutex<HashMap<Key, Result<Arc<Program>, String>>>,
    /// The disk cache for the place it was opened for (reopened when the place changes).
    disk: Mutex<Opened>,
    builds: AtomicU64,
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    disk_writes: AtomicU64,
    /// Why the disk cache was not used (the first reason), for the notes.
    note: Mutex<Option<String>>,
}

/// FNV-1a, 64 bits: the source hash (stable across processes).
pub fn source_hash(src: &str) -> u64 {
    crate::runtime::disk_cache::fnv1a64(&[src.as_bytes()])
}

/// The full key of a program on disk.
fn disk_key(dev: &DeviceKey, src: &str) -> String {
    format!(
        "velociraptor opencl program\nplatform: {}\ndevice: {}\nvendor: {}\ndriver: {}\noptions: {BUILD_OPTIONS}\nsource:\n{src}",
        dev.platform, dev.name, dev.vendor, dev.driver_version
    )
}

impl ProgramCache {
    /// A small entry of another kind kept in the same folder under the same rules (the
    /// placement model's calibration): its payload, when a good one is there.
    pub fn load_entry(&self, key: &str) -> Option<Vec<u8>> {
        match self.disk_cache()?.load(key) {
            Lookup::Hit(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// Keep `payload` for `key` (see [`ProgramCache::load_entry`]); failing to is not an
    /// error (the next process measures again).
    pub fn store_entry(&self, key: &str, payload: &[u8]) {
        if let Some(d) = self.disk_cache() {
            let _ = d.store(key, payload);
        }
    }

    pub fn stats(&self) -> Stats {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let rejects = self
            .disk_cache()
            .map_or(0, |d| d.rejects.load(Ordering::Relaxed));
        Stats {
            builds: l(&self.builds),
            memory_hits: l(&self.memory_hits),
            disk_hits: l(&self.disk_hits),
            disk_writes: l(&self.disk_writes),
            disk_rejects: rejects,
        }
    }

    /// Why the disk cache is not in use, if it was wanted and refused.
    pub fn note(&self) -> Option<String> {
        self.note.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The disk cache of the configured place, opened on first use (None: off, or
    /// refused, with the reason in `note`).
    fn disk_cache(&self) -> Option<Arc<DiskCache>> {
        let place = PLACE.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut disk = self.disk.lock().unwrap_or_else(|p| p.into_inner());
        if disk.as_ref().is_none_or(|(p, _)| *p != place) {
            let dir = match &place {
                Place::Off => None,
                Place::Dir(d) => Some(d.clone()),
                Place::Default => DiskCache::default_dir(),
            };
            let opened = match dir {
                None => Err(String::new()),
                Some(d) => DiskCache::open(&d.join("opencl")).map(Arc::new).map_err(|p| match p {
                    Problem::Untrusted(why) => format!(
                        "the kernel cache is not used: {why}, so another user could plant program binaries there; programs are built in every process"
                    ),
                    Problem::Unusable(why) => format!("the kernel cache is not used: {why}"),
                }),
            };
            if let Err(why) = &opened {
                if !why.is_empty() {
                    self.note
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(why.clone());
                }
            }
            *disk = Some((place, opened));
        }
        disk.as_ref().and_then(|(_, d)| d.as_ref().ok().cloned())
    }

    /// The program built from `src` for the context's device: from the process, from a
    /// binary on disk, or built now (and stored in both).
    pub fn program(
        &self,
        context: &Context,
        dev: &DeviceKey,
        src: &str,
    ) -> Result<Arc<Program>, String> {
        let key = (
            dev.index.clone() + " " + &dev.name,
            dev.driver_version.clone(),
            source_hash(src),
        );
        let mut memory = self.memory.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = memory.get(&key) {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
            return p.clone();
        }
        // VR_GPU_DUMP=DIR keeps every program's source (to read what was generated).
        if let Ok(dir) = std::env::var("VR_GPU_DUMP") {
            let _ = std::fs::write(format!("{dir}/{:016x}.cl", key.2), src);
        }
        let disk = self.disk_cache();
        let full_key = disk_key(dev, src);
        if let Some(d) = &disk {
            if let Lookup::Hit(binary) = d.load(&full_key) {
                match Program::create_and_build_from_binary(context, &[&binary], BUILD_OPTIONS) {
                    Ok(p) => {
                        self.disk_hits.fetch_add(1, Ordering::Relaxed);
                        let p = Ok(Arc::new(p));
                        memory.insert(key, p.clone());
                        return p;
                    }
                    Err(_) => {
                        // A binary this driver will not take: rebuilt from source below.
                        d.reject(&d.path_for(&full_key));
                    }
                }
            }
        }
        self.builds.fetch_add(1, Ordering::Relaxed);
        let built = Program::create_and_build_from_source(context, src, BUILD_OPTIONS)
            .map(Arc::new)
            .map_err(|log| format!("OpenCL build failed: {}", log.trim()));
        if let (Err(log), Ok(dir)) = (&built, std::env::var("VR_GPU_DUMP")) {
            let _ = std::fs::write(format!("{dir}/{:016x}.log", key.2), log);
        }
        if let (Ok(p), Some(d)) = (&built, &disk) {
            if let Ok(Some(binary)) = p.get_binaries().map(|b| b.into_iter().next()) {
                if !binary.is_empty() && d.store(&full_key, &binary).is_ok() {
                    self.disk_writes.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        memory.insert(key, built.clone());
        built
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_holds_the_device_driver_options_and_whole_source() {
        let dev = DeviceKey {
            platform: "P".into(),
            name: "D".into(),
            vendor: "V".into(),
            driver_version: "1.2".into(),
            index: "0/0".into(),
        };
        let k = disk_key(&dev, "__kernel void f() {}");
        for part in [
            "platform: P",
            "device: D",
            "vendor: V",
            "driver: 1.2",
            BUILD_OPTIONS,
            "__kernel void f() {}",
        ] {
            assert!(k.contains(part), "{part} in {k}");
        }
        assert!(
            !k.contains("0/0"),
            "the device's position in this process's list is not part of it"
        );
    }
}
