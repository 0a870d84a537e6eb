//! Faults of the on-disk code cache, through the C API as a host sees it: damaged entries
//! (truncated, flipped bytes, another format version, another key, a payload that passes
//! the checksum but is no object), a read-only directory, a full disk (a per-process file
//! size quota), and ten processes plus eight threads compiling the same function into one
//! directory at once. Each time: the right result (3 * x by hand), no crash, nothing bad
//! loaded, and what happened in the counters and the status line. The trust rules (who
//! may write the directory and its entries) are tests/cache_trust.rs's.
//!
//! Scenarios that need another process (another user, a resource limit, concurrency)
//! re-run this test binary on its `child` test with `VR_FAULTS_CHILD` set.

#![cfg(unix)]

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::ptr::null_mut;
use velociraptor::runtime::disk_cache::{decode, encode, FORMAT_VERSION};
use velociraptor_capi::*;

const SRC: &str = "(module m :index-base 0
  (function triple ((x f64)) (f64) (locals) (return (* x 3.0))))";

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_message() -> String {
    unsafe { CStr::from_ptr(vr_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn take_string(p: *mut c_char) -> String {
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    vr_string_free(p);
    s
}

/// What one fresh context on a cache directory saw.
#[derive(Debug)]
struct Seen {
    result: f64,
    stats: VrCacheStats,
    status: String,
    explain: String,
}

/// A fresh context on `dir` compiles triple and calls it on `x`.
fn run_on(dir: &Path, x: f64) -> Seen {
    let (k, v) = (cstr("cache_dir"), cstr(dir.to_str().unwrap()));
    let mut ctx = null_mut();
    assert_eq!(
        vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    let mut m = null_mut();
    let st = vr_module_load(
        ctx,
        SRC.as_ptr() as *const c_char,
        SRC.len(),
        VR_FORMAT_AUTO,
        &mut m,
    );
    assert_eq!(st, VrStatus::VR_OK, "{}", last_message());
    let ty = VrType {
        kind: VR_KIND_SCALAR,
        elem: VR_F64,
        ndims: 0,
        layout: 0,
    };
    let name = cstr("triple");
    let mut f = null_mut();
    assert_eq!(
        vr_compile(m, name.as_ptr(), &ty, 1, &mut f),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    // SAFETY: VrValue is plain data; zero is a valid (scalar 0) value.
    let mut arg: VrValue = unsafe { std::mem::zeroed() };
    arg.kind = VR_KIND_SCALAR;
    arg.elem = VR_F64;
    arg.scalar = VrScalar { as_f64: x };
    let mut out: VrValue = unsafe { std::mem::zeroed() };
    assert_eq!(
        vr_call(f, &arg, 1, &mut out, 1),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    let mut stats = VrCacheStats::default();
    assert_eq!(vr_context_stats(ctx, &mut stats), VrStatus::VR_OK);
    let mut s = null_mut();
    assert_eq!(vr_context_cache_status(ctx, &mut s), VrStatus::VR_OK);
    let status = take_string(s);
    let mut e = null_mut();
    assert_eq!(
        vr_function_dump(f, VR_DUMP_EXPLAIN, &mut e),
        VrStatus::VR_OK
    );
    let explain = take_string(e);
    vr_function_free(f);
    vr_module_free(m);
    vr_context_destroy(ctx);
    Seen {
        result: unsafe { out.scalar.as_f64 },
        stats,
        status,
        explain,
    }
}

fn run(dir: &Path) -> Seen {
    run_on(dir, 2.0)
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A private scratch directory.
fn scratch() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    chmod(t.path(), 0o700);
    t
}

/// The names in `dir`, sorted (temporary files left behind would show here).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A cache in `dir` holding the good entry of triple; the entry's path.
fn warm(dir: &Path) -> PathBuf {
    let s = run(dir);
    assert_eq!((s.result, s.stats.disk_writes), (6.0, 1), "{}", s.status);
    let n = names(dir);
    assert_eq!(n.len(), 1, "{n:?}");
    dir.join(&n[0])
}

/// The key stored in an entry (magic 8, version 4, key length 8, key).
fn key_of(entry: &[u8]) -> String {
    let len = u64::from_le_bytes(entry[12..20].try_into().unwrap()) as usize;
    String::from_utf8(entry[20..20 + len].to_vec()).unwrap()
}

/// The entry at `path` is a good one (decodes for its own key).
fn is_good(path: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    decode(&bytes, &key_of(&bytes)).is_ok()
}

#[test]
fn damaged_entries_are_rejected_rebuilt_and_never_loaded() {
    type Damage = fn(Vec<u8>) -> Vec<u8>;
    let damages: [(&str, Damage); 9] = [
        ("empty", |_| Vec::new()),
        ("truncated to half", |mut e| {
            e.truncate(e.len() / 2);
            e
        }),
        ("last byte cut", |mut e| {
            e.pop();
            e
        }),
        ("trailing byte", |mut e| {
            e.push(0);
            e
        }),
        ("flipped byte in the payload", |mut e| {
            let at = e.len() - 100;
            e[at] ^= 0x40;
            e
        }),
        ("flipped byte in the key", |mut e| {
            e[30] ^= 0x01;
            e
        }),
        ("another format version", |mut e| {
            e[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
            e
        }),
        ("another key's entry", |e| {
            let key = key_of(&e);
            let payload = decode(&e, &key).unwrap().to_vec();
            encode(&format!("{key} (another compiler)"), &payload)
        }),
        ("checksum fine, payload not an object", |e| {
            encode(&key_of(&e), b"\x7fELF but not really an object file at all")
        }),
    ];
    for (what, damage) in damages {
        let t = scratch();
        let dir = t.path().join("cache");
        let entry = warm(&dir);
        let good = std::fs::read(&entry).unwrap();
        std::fs::write(&entry, damage(good.clone())).unwrap();
        let s = run(&dir);
        assert_eq!(s.result, 6.0, "{what}");
        assert_eq!(
            (
                s.stats.disk_hits,
                s.stats.disk_rejects,
                s.stats.compiles,
                s.stats.disk_writes
            ),
            (0, 1, 1, 1),
            "{what}: {}",
            s.status
        );
        assert!(
            s.explain.contains("disk cache: compiled; written to"),
            "{what}: {}",
            s.explain
        );
        assert_eq!(names(&dir).len(), 1, "{what}: no temporary file left");
        assert!(is_good(&entry), "{what}: rebuilt");
        // The next process loads the rebuilt entry.
        let s = run_on(&dir, 5.0);
        assert_eq!(
            (s.result, s.stats.disk_hits, s.stats.compiles),
            (15.0, 1, 0),
            "{what}"
        );
    }
}

// ---- scenarios in another process ----------------------------------------------------

/// Run this binary's `child` test on scenario `what` with `dir`, through `setup`
/// (applied before exec); its stdout.
fn spawn_child(what: &str, dir: &Path, setup: impl FnOnce(&mut Command)) -> std::process::Child {
    spawn_child_of(&std::env::current_exe().unwrap(), what, dir, setup)
}

/// `spawn_child` running the test binary at `exe` (a copy another user can reach).
fn spawn_child_of(exe: &Path, what: &str, dir: &Path, setup: impl FnOnce(&mut Command)) -> std::process::Child {
    let mut c = Command::new(exe);
    c.args([
        "child",
        "--exact",
        "--nocapture",
        "--test-threads=1",
        "--quiet",
    ])
    .env("VR_FAULTS_CHILD", what)
    .env("VR_FAULTS_DIR", dir)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    setup(&mut c);
    c.spawn().unwrap()
}

/// The `SEEN ...` line of a child that succeeded.
fn seen_line(c: std::process::Child) -> String {
    let out = c.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find(|l| l.starts_with("SEEN "))
        .unwrap_or_else(|| panic!("no SEEN line in:\n{stdout}"))
        .to_string()
}

/// Not a test by itself: the body of the scenarios above, in the child process.
#[test]
fn child() {
    let Ok(what) = std::env::var("VR_FAULTS_CHILD") else {
        return;
    };
    let dir = PathBuf::from(std::env::var("VR_FAULTS_DIR").unwrap());
    let rounds = if what == "race" { 5 } else { 1 };
    for _ in 0..rounds {
        let s = run(&dir);
        assert_eq!(s.result, 6.0, "{s:?}");
        println!(
            "SEEN hits={} writes={} rejects={} compiles={} status={} explain_disk={}",
            s.stats.disk_hits,
            s.stats.disk_writes,
            s.stats.disk_rejects,
            s.stats.compiles,
            s.status,
            s.explain
                .lines()
                .find(|l| l.contains("disk cache:"))
                .unwrap_or("")
        );
    }
}

fn euid() -> u32 {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() }
}

fn nobody() -> (u32, u32) {
    let name = cstr("nobody");
    // SAFETY: getpwnam reads the user database; the fields are copied out at once.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    assert!(!pw.is_null(), "no user `nobody`");
    unsafe { ((*pw).pw_uid, (*pw).pw_gid) }
}

/// A directory made read-only (mode 0500) and the way to run a child that cannot write
/// it: root writes anywhere, so as root the directory is given to `nobody` and the child
/// runs as nobody. The scratch directory holding it is under /tmp (root-owned, sticky,
/// so trusted) and mode 0755 so that nobody can reach it.
fn read_only_dir(t: &Path, entry_from: Option<&Path>) -> (PathBuf, Option<(u32, u32)>) {
    chmod(t, 0o755);
    let dir = t.join("cache");
    if let Some(src) = entry_from {
        std::fs::create_dir(&dir).unwrap();
        for e in std::fs::read_dir(src).unwrap() {
            let e = e.unwrap();
            let to = dir.join(e.file_name());
            std::fs::copy(e.path(), &to).unwrap();
            chmod(&to, 0o600);
        }
    } else {
        std::fs::create_dir(&dir).unwrap();
    }
    let user = if euid() == 0 {
        let who = nobody();
        for p in std::iter::once(dir.clone()).chain(names(&dir).iter().map(|n| dir.join(n))) {
            let c = cstr(p.to_str().unwrap());
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::chown(c.as_ptr(), who.0, who.1) }, 0);
        }
        Some(who)
    } else {
        None
    };
    chmod(&dir, 0o500);
    (dir, user)
}

fn as_user(c: &mut Command, user: Option<(u32, u32)>) {
    if let Some((uid, gid)) = user {
        c.uid(uid).gid(gid).env("HOME", "/nonexistent");
    }
}

/// The test binary a child runs: this one, or as root a copy of it in the scratch folder
/// `t` (mode 0755, made once), since `nobody` may not be able to enter the checkout's own
/// target folder (a clone under a 0700 temporary folder, as scripts/fresh-check.sh
/// makes). The cache key names the compiler's file, so entries a test expects a child to
/// load are made by the same binary (`warm_in_child`).
fn child_exe(t: &Path) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    if euid() != 0 {
        return exe;
    }
    let copy = t.join("child-test-binary");
    if !copy.exists() {
        std::fs::copy(&exe, &copy).unwrap();
        chmod(&copy, 0o755);
    }
    copy
}

/// A child reading the read-only directory `dir` (in scratch folder `t`) as `user`.
fn read_only_child(t: &Path, dir: &Path, user: Option<(u32, u32)>) -> std::process::Child {
    spawn_child_of(&child_exe(t), "read-only", dir, |c| as_user(c, user))
}

/// `warm`, done by the binary the children run.
fn warm_in_child(t: &Path, dir: &Path) {
    let line = seen_line(spawn_child_of(&child_exe(t), "warm", dir, |_| {}));
    assert_eq!(field(&line, "writes"), "1", "{line}");
    assert_eq!(names(dir).len(), 1, "{:?}", names(dir));
}

fn field<'a>(line: &'a str, name: &str) -> &'a str {
    let start = line.find(&format!("{name}=")).unwrap() + name.len() + 1;
    line[start..].split(' ').next().unwrap()
}

#[test]
fn a_read_only_cache_directory_compiles_writes_nothing_and_says_why() {
    let t = tempfile::Builder::new()
        .prefix("vr-faults")
        .tempdir_in("/tmp")
        .unwrap();
    let (dir, user) = read_only_dir(t.path(), None);
    let line = seen_line(read_only_child(t.path(), &dir, user));
    assert_eq!(
        (field(&line, "writes"), field(&line, "compiles")),
        ("0", "1"),
        "{line}"
    );
    assert!(
        line.contains("; entry not written (Permission denied (os error 13)")
            && line.contains("the next process compiles again"),
        "status says why: {line}"
    );
    assert!(
        line.contains("disk cache: compiled; not written to"),
        "{line}"
    );
    assert!(names(&dir).is_empty(), "nothing written");
    chmod(&dir, 0o700); // so that the scratch directory can be removed when not root
}

#[test]
fn a_read_only_cache_directory_still_loads_its_entries_and_survives_a_bad_one() {
    let t = tempfile::Builder::new()
        .prefix("vr-faults")
        .tempdir_in("/tmp")
        .unwrap();
    chmod(t.path(), 0o755);
    let warm_dir = t.path().join("warm");
    warm_in_child(t.path(), &warm_dir);
    let ro = t.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let (dir, user) = read_only_dir(&ro, Some(&warm_dir));
    let line = seen_line(read_only_child(t.path(), &dir, user));
    assert_eq!(
        (field(&line, "hits"), field(&line, "compiles")),
        ("1", "0"),
        "{line}"
    );
    // A damaged entry it can neither delete nor replace: rejected, compiled, left.
    let bad = std::fs::read_dir(&warm_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&bad).unwrap();
    bytes.truncate(bytes.len() / 2);
    let ro2 = t.path().join("ro2");
    std::fs::create_dir(&ro2).unwrap();
    std::fs::write(&bad, &bytes).unwrap();
    let (dir, user) = read_only_dir(&ro2, Some(&warm_dir));
    let line = seen_line(read_only_child(t.path(), &dir, user));
    assert_eq!(
        (
            field(&line, "hits"),
            field(&line, "rejects"),
            field(&line, "compiles"),
            field(&line, "writes")
        ),
        ("0", "1", "1", "0"),
        "{line}"
    );
    assert_eq!(names(&dir).len(), 1, "left as found");
    for d in [ro.join("cache"), dir] {
        chmod(&d, 0o700); // so that the scratch directory can be removed when not root
    }
}

#[test]
fn a_full_disk_compiles_leaves_no_temporary_file_and_says_why() {
    // A file size quota of 1 KiB for the child (an entry is several KiB): its write
    // fails with EFBIG as on a full disk (SIGXFSZ ignored so that it is an error).
    let t = scratch();
    let dir = t.path().join("cache");
    let c = spawn_child("full", &dir, |c| {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let lim = libc::rlimit {
                    rlim_cur: 1024,
                    rlim_max: 1024,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    let line = seen_line(c);
    assert_eq!(
        (field(&line, "writes"), field(&line, "compiles")),
        ("0", "1"),
        "{line}"
    );
    assert!(
        line.contains("; entry not written (File too large"),
        "{line}"
    );
    assert!(
        names(&dir).is_empty(),
        "no partial or temporary file: {:?}",
        names(&dir)
    );
    // With room again the next process writes it.
    let s = run(&dir);
    assert_eq!((s.result, s.stats.disk_writes), (6.0, 1));
}

#[test]
fn ten_processes_and_eight_threads_compiling_into_one_directory() {
    let t = scratch();
    let dir = t.path().join("cache");
    // Ten processes at once, each five fresh contexts in a row.
    let children: Vec<_> = (0..10).map(|_| spawn_child("race", &dir, |_| {})).collect();
    let mut writes = 0;
    let mut hits = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for l in stdout.lines().filter(|l| l.starts_with("SEEN ")) {
            assert_eq!(field(l, "rejects"), "0", "no torn entry seen: {l}");
            writes += field(l, "writes").parse::<u32>().unwrap();
            hits += field(l, "hits").parse::<u32>().unwrap();
        }
    }
    assert_eq!(writes + hits, 50, "every context wrote or loaded");
    eprintln!("10 processes x 5 contexts: {writes} wrote the entry, {hits} loaded it, 0 rejected");
    assert!(writes >= 1);
    assert_eq!(
        names(&dir).len(),
        1,
        "one entry, no temporary files: {:?}",
        names(&dir)
    );
    // Eight threads of this process, each with its own context.
    std::fs::remove_dir_all(&dir).unwrap();
    let seen: Vec<Seen> = std::thread::scope(|s| {
        let dir = &dir;
        let hs: Vec<_> = (0..8)
            .map(|i| s.spawn(move || run_on(dir, i as f64)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s.result, 3.0 * i as f64);
        assert_eq!(s.stats.disk_rejects, 0, "{}", s.status);
    }
    assert_eq!(names(&dir).len(), 1);
    // Afterwards a fresh context loads a valid entry.
    let s = run(&dir);
    assert_eq!((s.result, s.stats.disk_hits, s.stats.compiles), (6.0, 1, 0));
    assert!(is_good(&dir.join(&names(&dir)[0])));
}
