//! Tells the tests whether they are built by root (`cfg(vr_tests_as_root)`): a test
//! that needs a directory owned by another user can make one only as root (chown), and
//! is marked ignored, with its reason, everywhere else rather than passing unchecked.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(vr_tests_as_root)");
    println!("cargo::rerun-if-changed=build.rs");
    let uid = std::process::Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if uid.as_deref() == Some("0") {
        println!("cargo::rustc-cfg=vr_tests_as_root");
    }
}
