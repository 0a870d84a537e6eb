//! Builds the C reference kernels with gcc and loads them.

use libloading::Library;
use std::path::{Path, PathBuf};
use std::process::Command;

/// gcc flags. `-ffp-contract=off` because GNU C otherwise fuses `a * b + c` into FMA on
/// FMA hardware, which VRIR's IEEE semantics (and the cpu backend) never do: without it
/// results differ in the last bits, and julia_set's escape counts diverge outright.
const CFLAGS: [&str; 5] = [
    "-O2",
    "-march=native",
    "-ffp-contract=off",
    "-shared",
    "-fPIC",
];

/// A directory of built shared objects, removed when dropped.
pub struct BuildDir(PathBuf);

impl BuildDir {
    /// A new private directory (mode 0700) in the temporary directory. Made with one
    /// `mkdir`, never reused: the objects in it are loaded into this process, and a
    /// directory of this predictable name that another user made first could let them
    /// swap an object between gcc and the load (issue 22).
    pub fn new() -> Result<BuildDir, String> {
        let dir = std::env::temp_dir().join(format!("vr-bench-{}", std::process::id()));
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("making {} private: {e}", dir.display()))?;
        }
        Ok(BuildDir(dir))
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for BuildDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compiles `source` (the C reference of kernel `name`) into a shared object in `dir`
/// and loads it; with `openmp`, built with `-fopenmp` (its `#pragma omp` loops run on
/// OpenMP's threads; see [`set_openmp_threads`]).
pub fn build_and_load(dir: &BuildDir, name: &str, source: &str, openmp: bool) -> Result<Library, String> {
    let stem = if openmp { format!("{name}_omp") } else { name.to_string() };
    let c_file = dir.path().join(format!("{stem}.c"));
    let so_file = dir.path().join(format!("lib{stem}.so"));
    std::fs::write(&c_file, source).map_err(|e| format!("writing {}: {e}", c_file.display()))?;
    let out = Command::new("gcc")
        .args(CFLAGS)
        .args(openmp.then_some("-fopenmp"))
        .arg("-o")
        .arg(&so_file)
        .arg(&c_file)
        .arg("-lm")
        .output()
        .map_err(|e| format!("running gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "gcc failed on {stem}.c:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // SAFETY: the library is our own C code, which has no initialisers (libgomp's run
    // when it loads as a dependency of the OpenMP build).
    unsafe { Library::new(&so_file) }.map_err(|e| format!("loading {}: {e}", so_file.display()))
}

/// Set the thread count of an OpenMP build's parallel loops: `omp_set_num_threads`
/// found through the library (dlsym searches its dependencies, libgomp among them).
pub fn set_openmp_threads(lib: &Library, threads: usize) -> Result<(), String> {
    // SAFETY: omp_set_num_threads has this C signature in every OpenMP runtime.
    let f: libloading::Symbol<unsafe extern "C" fn(i32)> = unsafe { lib.get(b"omp_set_num_threads\0") }
        .map_err(|e| format!("omp_set_num_threads not found (built without -fopenmp?): {e}"))?;
    unsafe { f(threads as i32) };
    Ok(())
}
