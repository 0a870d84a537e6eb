//! The kernel cache on disk (`gpu/program_cache.rs`): a second process loads the program
//! binaries the first one built instead of building them again (counted by the `vr`
//! binary's `programs:` note); a damaged entry is rejected, deleted and rebuilt; a cache
//! folder someone else could write is not used, and the note says why.

use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
(module m :index-base 0
  (function f ((a f64[1,row]) (b i64[2,row])) (f64[1,row] i64 i64[2,row])
    (locals (c f64[1,row]) (s i64) (t i64[2,row]) (i i64))
    (gpu
      (set c (+ (* a 2.0) 1.0))
      (set s (sum b))
      (set t (transpose b))
      (parfor (i) (range 0 (- (len a) 1))
        (block (set (index c i) (* (index c i) (index c i))))))
    (return c s t)))
"#;

const ARGS: &str =
    r#"[[1.0, 2.0, 3.0], {"data": [[1, 2, 3], [4, 5, 6]], "dtype": "i64", "shape": [2, 3]}]"#;

/// (built, loaded from disk, written, rejected) from a `vr run` in a fresh process, or
/// None when there is no OpenCL device.
fn run_counts(cache: &Path) -> Option<(u64, u64, u64, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.vrir");
    std::fs::write(&file, PROGRAM).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vr"))
        .args([
            "run",
            file.to_str().unwrap(),
            "f",
            "--args",
            ARGS,
            "--backend",
            "gpu",
        ])
        .env("VR_CACHE_DIR", cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim(),
        r#"[{"data":[9.0,25.0,49.0],"dtype":"f64","shape":[3]},21,{"data":[[1,4],[2,5],[3,6]],"dtype":"i64","shape":[3,2]}]"#
    );
    let line = stderr.lines().find(|l| l.contains("gpu: programs:"))?;
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    // built, loaded, reused, written, rejected
    Some((nums[0], nums[1], nums[3], nums[4]))
}

#[test]
fn a_second_process_loads_the_programs_the_first_built() {
    let cache = tempfile::tempdir().unwrap();
    let Some((built, loaded, written, _)) = run_counts(cache.path()) else {
        eprintln!("no OpenCL device: nothing to cache");
        return;
    };
    assert!(
        built >= 4,
        "element-wise, reduction, gather, parfor: {built}"
    );
    assert_eq!((loaded, written), (0, built));
    let (built2, loaded2, written2, rejected2) = run_counts(cache.path()).unwrap();
    assert_eq!(built2, 0, "the second process builds nothing");
    assert_eq!((loaded2, written2, rejected2), (built, 0, 0));

    // A damaged entry: rejected, deleted and rebuilt; the others still load.
    let opencl = cache.path().join("opencl");
    let mut entries: Vec<_> = std::fs::read_dir(&opencl)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    assert_eq!(entries.len() as u64, built);
    let bytes = std::fs::read(&entries[0]).unwrap();
    std::fs::write(&entries[0], &bytes[..bytes.len() / 2]).unwrap();
    let (built3, loaded3, written3, rejected3) = run_counts(cache.path()).unwrap();
    assert_eq!((built3, loaded3, written3, rejected3), (1, built - 1, 1, 1));
    // Rebuilt in place: the next process loads everything again.
    assert_eq!(run_counts(cache.path()).unwrap(), (0, built, 0, 0));
}

#[cfg(unix)]
#[test]
fn a_folder_others_can_write_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let cache = tempfile::tempdir().unwrap();
    if run_counts(cache.path()).is_none() {
        return;
    }
    let opencl = cache.path().join("opencl");
    std::fs::set_permissions(&opencl, std::fs::Permissions::from_mode(0o777)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.vrir");
    std::fs::write(&file, PROGRAM).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vr"))
        .args([
            "run",
            file.to_str().unwrap(),
            "f",
            "--args",
            ARGS,
            "--backend",
            "gpu",
        ])
        .env("VR_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("0 loaded from the kernel cache on disk"),
        "{stderr}"
    );
    assert!(stderr.contains("the kernel cache is not used"), "{stderr}");
}
