//! `vr explain` says whether the default on-disk cache (VR_CACHE_DIR here) would be
//! trusted, and why not (core/src/runtime/cache_trust.rs has the rules), without
//! creating it; the output still parses as a module.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn explain_with_cache_dir(dir: &Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(["explain", "bench/kernels/stencil5.vrir", "stencil5"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("VR_CACHE_DIR", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    velociraptor::vrir::text::parse_module(&text).unwrap();
    text
}

#[test]
fn vr_explain_reports_whether_the_cache_is_trusted() {
    let t = tempfile::tempdir().unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let dir = t.path().join("cache");
    let text = explain_with_cache_dir(&dir);
    assert!(
        text.contains(&format!(
            "; disk cache: {}: missing, made mode 0700 on first use\n",
            dir.display()
        )),
        "{text}"
    );
    assert!(!dir.exists(), "explain creates nothing");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let text = explain_with_cache_dir(&dir);
    assert!(
        text.contains(&format!("; disk cache: {}: in use\n", dir.display())),
        "{text}"
    );
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let text = explain_with_cache_dir(&dir);
    assert!(
        text.contains(&format!(
            "; disk cache: {}: not used: the cache directory",
            dir.display()
        )) && text.contains("is writable by group and others (mode 0777)"),
        "{text}"
    );
}
