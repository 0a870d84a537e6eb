//! Helpers shared by integration tests.

pub mod gen;
pub mod gpu;
pub mod rgen;

/// Proptest case count: `PROPTEST_CASES` if set, else `default`, or ten times that with
/// `VR_LONG_TESTS=1`.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn cases(default: u32) -> u32 {
    if let Some(n) = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("VR_LONG_TESTS").is_ok_and(|v| v == "1") {
        default * 10
    } else {
        default
    }
}
