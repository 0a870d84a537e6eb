//! The on-disk cache loads machine code only from places no one but this user (or root)
//! can write (core/src/runtime/cache_trust.rs has the rules). Each test plants what
//! another user could have planted — a writable cache directory, a writable parent, a
//! group-writable entry, a symlinked entry, a directory or entry of another user — and
//! checks, through the C API as a host sees it: nothing is loaded from it and nothing
//! written to it, the result is still right (3 * x by hand), `disk_untrusted` counts it,
//! and the reason is in `vr_context_cache_status` and the VR_DUMP_EXPLAIN text.

#![cfg(unix)]

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
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

/// What one "process" (a fresh context on `dir`) saw: the result of triple(2), the
/// cache counters, the cache status line and the explain text.
struct Seen {
    result: f64,
    stats: VrCacheStats,
    status: String,
    explain: String,
}

fn run(dir: &Path) -> Seen {
    let (k, v) = (cstr("cache_dir"), cstr(dir.to_str().unwrap()));
    let mut ctx = null_mut();
    assert_eq!(
        vr_context_create(&k.as_ptr(), &v.as_ptr(), 1, &mut ctx),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    let mut m = null_mut();
    assert_eq!(
        vr_module_load(
            ctx,
            SRC.as_ptr() as *const c_char,
            SRC.len(),
            VR_FORMAT_AUTO,
            &mut m
        ),
        VrStatus::VR_OK,
        "{}",
        last_message()
    );
    let mut f = null_mut();
    let ty = VrType {
        kind: VR_KIND_SCALAR,
        elem: VR_F64,
        ndims: 0,
        layout: 0,
    };
    let name = cstr("triple");
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
    arg.scalar = VrScalar { as_f64: 2.0 };
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

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

/// A private scratch directory.
fn scratch() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    chmod(t.path(), 0o700);
    t
}

/// The files in `dir` with their bytes (to show nothing was written).
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let bytes = if p.is_symlink() {
                Vec::new()
            } else {
                std::fs::read(&p).unwrap_or_default()
            };
            (p, bytes)
        })
        .collect();
    v.sort();
    v
}

/// A cache in `dir` holding the (good) entry of `triple`; the entry's path.
fn warm(dir: &Path) -> PathBuf {
    let s = run(dir);
    assert_eq!((s.result, s.stats.disk_writes), (6.0, 1), "{}", s.status);
    let files = contents(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].0.clone()
}

/// Nothing loaded, nothing written, the right result, and `why` in both reports.
fn refused(s: &Seen, why: &str) {
    assert_eq!(s.result, 6.0);
    assert_eq!(
        (s.stats.disk_hits, s.stats.disk_writes, s.stats.compiles),
        (0, 0, 1),
        "{}",
        s.status
    );
    assert_eq!(s.stats.disk_untrusted, 1, "{}", s.status);
    assert!(
        s.status.contains(why),
        "status `{}` lacks `{why}`",
        s.status
    );
    assert!(
        s.explain.contains(why),
        "explain lacks `{why}`:\n{}",
        s.explain
    );
}

#[test]
fn a_private_cache_is_written_0600_and_loaded() {
    let t = scratch();
    let dir = t.path().join("new/cache");
    let entry = warm(&dir);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(
        mode(&t.path().join("new")),
        0o700,
        "every directory made is private"
    );
    assert_eq!(mode(&entry), 0o600, "entries are private");
    let s = run(&dir);
    assert_eq!(
        (
            s.result,
            s.stats.disk_hits,
            s.stats.compiles,
            s.stats.disk_untrusted
        ),
        (6.0, 1, 0, 0)
    );
    assert!(
        s.explain.contains("disk cache: loaded from"),
        "{}",
        s.explain
    );
    assert_eq!(
        s.status,
        format!("in use: {}", std::fs::canonicalize(&dir).unwrap().display())
    );
}

#[test]
fn a_world_writable_cache_directory_is_not_used() {
    let t = scratch();
    let dir = t.path().join("cache");
    warm(&dir);
    chmod(&dir, 0o777);
    let before = contents(&dir);
    let s = run(&dir);
    refused(&s, "is writable by group and others (mode 0777)");
    assert!(
        s.status.starts_with("not used: the cache directory"),
        "{}",
        s.status
    );
    assert!(
        s.explain
            .contains("disk cache: not used: the cache directory"),
        "{}",
        s.explain
    );
    assert_eq!(contents(&dir), before, "nothing written");
}

#[test]
fn a_group_writable_parent_is_not_trusted() {
    let t = scratch();
    let parent = t.path().join("shared");
    let dir = parent.join("cache");
    warm(&dir);
    chmod(&parent, 0o770);
    let before = contents(&dir);
    let s = run(&dir);
    refused(&s, "is writable by its group (mode 0770)");
    assert!(s.status.contains("its parent"), "{}", s.status);
    assert_eq!(contents(&dir), before);
}

#[test]
fn a_group_writable_entry_is_not_loaded_nor_replaced() {
    let t = scratch();
    let dir = t.path().join("cache");
    let entry = warm(&dir);
    chmod(&entry, 0o660);
    let before = contents(&dir);
    let s = run(&dir);
    refused(&s, "is writable by its group (mode 0660)");
    assert!(
        s.status.contains("; entry not loaded: the entry"),
        "{}",
        s.status
    );
    assert!(
        s.explain.contains("disk cache: entry not loaded"),
        "{}",
        s.explain
    );
    assert_eq!(contents(&dir), before, "left as found, for the user to see");
    assert_eq!(mode(&entry), 0o660);
}

#[test]
fn a_symlinked_entry_is_not_followed() {
    // A good entry for the very same key elsewhere; the cache holds a link to it.
    let t = scratch();
    let elsewhere = warm(&t.path().join("elsewhere"));
    let dir = t.path().join("cache");
    std::fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o700);
    let link = dir.join(elsewhere.file_name().unwrap());
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let s = run(&dir);
    refused(&s, "is a symbolic link");
    assert!(link.is_symlink(), "the link is left as found");
    assert_eq!(contents(&dir).len(), 1);
}

/// The directory for a cache under a root-owned sticky parent (as /tmp): one made here
/// when root, else the system's /tmp itself.
fn sticky_parent(t: &Path) -> PathBuf {
    if euid() == 0 {
        let p = t.join("tmp-like");
        std::fs::create_dir(&p).unwrap();
        chmod(&p, 0o1777);
        return p;
    }
    let m = std::fs::metadata("/tmp").unwrap();
    assert!(
        m.uid() == 0 && m.mode() & 0o1777 == 0o1777,
        "this test needs /tmp root-owned with mode 1777"
    );
    PathBuf::from("/tmp")
}

fn euid() -> u32 {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() }
}

#[test]
fn a_root_owned_sticky_parent_like_tmp_is_fine() {
    let t = scratch();
    let parent = sticky_parent(t.path());
    let own = tempfile::Builder::new()
        .prefix("vr-sticky-test")
        .tempdir_in(&parent)
        .unwrap();
    chmod(own.path(), 0o700);
    let dir = own.path().join("cache");
    warm(&dir);
    let s = run(&dir);
    assert_eq!(
        (s.result, s.stats.disk_hits, s.stats.disk_untrusted),
        (6.0, 1, 0),
        "{}",
        s.status
    );
}

fn nobody() -> (u32, u32) {
    let name = cstr("nobody");
    // SAFETY: getpwnam reads the user database; the fields are copied out at once.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    assert!(!pw.is_null(), "no user `nobody` to hand the directory to");
    unsafe { ((*pw).pw_uid, (*pw).pw_gid) }
}

fn give_to(p: &Path, (uid, gid): (u32, u32)) {
    let c = cstr(p.to_str().unwrap());
    // SAFETY: a NUL-terminated path.
    assert_eq!(
        unsafe { libc::chown(c.as_ptr(), uid, gid) },
        0,
        "chown {}",
        p.display()
    );
}

#[test]
#[cfg_attr(
    not(vr_tests_as_root),
    ignore = "needs root: only root can make a directory owned by another user (chown to nobody)"
)]
fn a_directory_or_entry_of_another_user_is_not_used() {
    assert_eq!(
        euid(),
        0,
        "built as root but run as another user: rebuild the tests"
    );
    let other = nobody();
    let t = scratch();
    let dir = t.path().join("theirs");
    warm(&dir);
    give_to(&dir, other);
    let before = contents(&dir);
    let s = run(&dir);
    refused(
        &s,
        &format!(
            "is owned by nobody (uid {}), not by you (root (uid 0)) or root",
            other.0
        ),
    );
    assert_eq!(contents(&dir), before);
    // Their entry in our own directory.
    let dir = t.path().join("ours");
    let entry = warm(&dir);
    give_to(&entry, other);
    let s = run(&dir);
    refused(
        &s,
        &format!("is owned by nobody (uid {}), not by you", other.0),
    );
    assert_eq!(
        std::fs::metadata(&entry).unwrap().uid(),
        other.0,
        "left as found"
    );
}
