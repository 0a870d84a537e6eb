//! Helpers of the tests that need an OpenCL device.

/// Process-wide counters and notes: one device test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether there is a device; if not, a line saying why `test` is skipped.
#[allow(dead_code)]
pub fn device_or_skip(test: &str) -> bool {
    match velociraptor::gpu::device() {
        Ok(_) => true,
        Err(why) => {
            println!("skipped {test}: no OpenCL device ({why})");
            false
        }
    }
}
