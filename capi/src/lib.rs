//! The stable C ABI of Velociraptor (a shell until the C API issue lands).

/// Version of the C ABI; bumped on every incompatible change.
#[no_mangle]
pub extern "C" fn vr_abi_version() -> u32 {
    0
}
