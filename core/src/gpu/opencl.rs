//! OpenCL itself, through opencl3 with libOpenCL loaded at run time: choosing the device,
//! its context and queue, the process-wide program cache, and VRRuntime's [`Device`] on
//! that queue. Nothing else in the crate touches OpenCL.
//!
//! Device choice: `VR_OPENCL_DEVICE=P/D` picks device D of platform P (0-based, in the
//! order the ICD loader lists them; `P` alone: that platform's first device),
//! `VR_OPENCL_DEVICE=off` none at all; by default the first GPU of any platform, else the
//! first device. When there is no OpenCL library, no platform, no device or the chosen
//! one cannot be opened, [`gpu`] answers why, and sections run on the CPU.

use super::faults::{self, Op};
use super::runtime::{Device, DeviceError};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device as ClDevice, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_GPU};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_event, CL_BLOCKING, CL_NON_BLOCKING};
use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

/// What the code generator and the engine need to know about the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// `platform/device` indices, as `VR_OPENCL_DEVICE` writes them.
    pub index: String,
    pub platform: String,
    pub name: String,
    pub vendor: String,
    pub driver_version: String,
    pub is_gpu: bool,
    /// `cl_khr_fp64`: without it, sections that use f64 run on the CPU.
    pub fp64: bool,
    /// `cl_khr_int64_base_atomics`: 64-bit integer atomics (and f64 atomic add by CAS).
    pub int64_atomics: bool,
    /// `CL_DEVICE_MAX_WORK_GROUP_SIZE`: library kernels size their work groups by it.
    pub max_work_group: usize,
    /// `CL_DEVICE_MAX_COMPUTE_UNITS` (SMs on NVIDIA): `spread-groups` sizes small
    /// launches' work groups by it.
    pub compute_units: usize,
}

impl DeviceInfo {
    /// One line naming the device, for notes and `explain`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}, platform {}, driver {}, OpenCL device {})",
            self.name, self.vendor, self.platform, self.driver_version, self.index
        )
    }
}

/// The chosen device with its context and queue, shared by every call in the process.
pub struct Gpu {
    pub info: DeviceInfo,
    device: ClDevice,
    pub context: Context,
    /// Kernels, device copies, downloads (in order).
    pub queue: CommandQueue,
    /// Uploads, so that they overlap the kernels on `queue` (issue 15): None when the
    /// device would not make a second queue. See [`OclDevice::join_transfers`].
    pub transfer_queue: Option<CommandQueue>,
    /// The kernel cache (in the process and on disk).
    pub programs: super::program_cache::ProgramCache,
}

/// A device as the ICD loader lists it: (platform, device) indices, platform name, id.
type Listed = ((usize, usize), String, opencl3::types::cl_device_id);

/// The process's device, chosen once; `Err` says why there is none.
pub fn gpu() -> Result<Arc<Gpu>, String> {
    static GPU: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
    GPU.get_or_init(|| open(std::env::var("VR_OPENCL_DEVICE").ok().as_deref()).map(Arc::new))
        .clone()
}

fn cl_err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

/// Every device of every platform: ((platform index, device index), platform name, id).
fn devices() -> Result<Vec<Listed>, String> {
    let platforms = opencl3::platform::get_platforms().map_err(|e| {
        if e.0 == opencl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED {
            "no OpenCL library (libOpenCL.so.1 could not be loaded)".to_string()
        } else {
            format!("no OpenCL platform ({e})")
        }
    })?;
    if platforms.is_empty() {
        return Err("no OpenCL platform (the ICD loader found no driver)".into());
    }
    let mut out = Vec::new();
    for (p, platform) in platforms.iter().enumerate() {
        let name = platform.name().unwrap_or_default();
        // A platform without devices answers an error: it simply has none.
        for (d, id) in platform
            .get_devices(CL_DEVICE_TYPE_ALL)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            out.push(((p, d), name.clone(), id));
        }
    }
    if out.is_empty() {
        return Err("no OpenCL device on any platform".into());
    }
    Ok(out)
}

/// Open the device `choice` names (see the module documentation).
fn open(choice: Option<&str>) -> Result<Gpu, String> {
    let choice = choice.map(str::trim).filter(|c| !c.is_empty());
    if matches!(choice, Some("off" | "none" | "cpu")) {
        return Err("VR_OPENCL_DEVICE=off".into());
    }
    let all = devices()?;
    let pick = match choice {
        Some(c) => {
            let mut parts = c.split('/');
            let p: usize = parts
                .next()
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| {
                    format!("VR_OPENCL_DEVICE={c}: expected PLATFORM/DEVICE indices such as 0/0")
                })?;
            let d: usize = match parts.next() {
                Some(s) => s.trim().parse().map_err(|_| {
                    format!("VR_OPENCL_DEVICE={c}: expected PLATFORM/DEVICE indices such as 0/0")
                })?,
                None => 0,
            };
            all.iter()
                .find(|(ix, _, _)| *ix == (p, d))
                .ok_or_else(|| {
                    let have: Vec<String> = all
                        .iter()
                        .map(|((p, d), _, _)| format!("{p}/{d}"))
                        .collect();
                    format!(
                        "VR_OPENCL_DEVICE={c}: no such device (there are {})",
                        have.join(", ")
                    )
                })?
                .clone()
        }
        None => all
            .iter()
            .find(|(_, _, id)| {
                ClDevice::new(*id)
                    .dev_type()
                    .is_ok_and(|t| t & CL_DEVICE_TYPE_GPU != 0)
            })
            .unwrap_or(&all[0])
            .clone(),
    };
    let ((p, d), platform, id) = pick;
    let device = ClDevice::new(id);
    let ext = device.extensions().unwrap_or_default();
    let info = DeviceInfo {
        index: format!("{p}/{d}"),
        platform,
        name: device.name().unwrap_or_default().trim().to_string(),
        vendor: device.vendor().unwrap_or_default().trim().to_string(),
        driver_version: device
            .driver_version()
            .unwrap_or_default()
            .trim()
            .to_string(),
        is_gpu: device.dev_type().is_ok_and(|t| t & CL_DEVICE_TYPE_GPU != 0),
        fp64: ext.split_whitespace().any(|e| e == "cl_khr_fp64")
            || device.double_fp_config().is_ok_and(|c| c != 0),
        int64_atomics: ext
            .split_whitespace()
            .any(|e| e == "cl_khr_int64_base_atomics"),
        max_work_group: device.max_work_group_size().unwrap_or(1),
        compute_units: device.max_compute_units().unwrap_or(1) as usize,
    };
    if !device.available().unwrap_or(false) {
        return Err(format!("{}: device not available", info.describe()));
    }
    let context =
        Context::from_device(&device).map_err(|e| cl_err("cannot create an OpenCL context", e))?;
    #[allow(deprecated)]
    // Profiling on: `explain` reports time in transfers and in kernels from the events'
    // start and end stamps (read after the queue finished).
    let queue =
        CommandQueue::create_default(&context, opencl3::command_queue::CL_QUEUE_PROFILING_ENABLE)
            .map_err(|e| cl_err("cannot create an OpenCL command queue", e))?;
    #[allow(deprecated)]
    let transfer_queue =
        CommandQueue::create_default(&context, opencl3::command_queue::CL_QUEUE_PROFILING_ENABLE)
            .ok();
    Ok(Gpu {
        info,
        device,
        context,
        queue,
        transfer_queue,
        programs: Default::default(),
    })
}

impl Gpu {
    /// The program built from `src`, from the kernel cache (in the process, then on
    /// disk) or built now (a failed build is cached in the process, with its log).
    pub fn program(&self, src: &str) -> Result<Arc<Program>, String> {
        if faults::check(Op::Build).is_some() {
            return Err("the program did not build (injected by VR_GPU_FAULT)".into());
        }
        let dev = super::program_cache::DeviceKey {
            platform: self.info.platform.clone(),
            name: self.info.name.clone(),
            vendor: self.info.vendor.clone(),
            driver_version: self.info.driver_version.clone(),
            index: self.info.index.clone(),
        };
        self.programs.program(&self.context, &dev, src)
    }

    /// Programs compiled from source (not found in either cache) in this process.
    pub fn builds(&self) -> u64 {
        self.programs.stats().builds
    }

    pub fn device_id(&self) -> opencl3::types::cl_device_id {
        self.device.id()
    }
}

/// VRRuntime's device: the process's queue. Buffers are `Buffer<u8>`. Keeps the events
/// of what it enqueued (transfers and kernels) until [`OclDevice::take_times`] reads
/// their profiling stamps.
pub struct OclDevice {
    pub gpu: Arc<Gpu>,
    events: Vec<(Timed, opencl3::event::Event)>,
}

thread_local! {
    /// Uploads this thread enqueued on the transfer queue that the kernel queue is not
    /// yet ordered after (retained events, released when joined or finished). Per thread,
    /// not per device value, so that [`launch`] joins them whoever calls it: a call runs
    /// on one thread.
    static PENDING: std::cell::RefCell<Vec<cl_event>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn release_pending(pending: &mut Vec<cl_event>) {
    for ev in pending.drain(..) {
        // SAFETY: retained when pushed; released once here.
        let _ = unsafe { opencl3::event::release_event(ev) };
    }
}

/// Order everything enqueued on the kernel queue from now on after this thread's
/// uploads on the transfer queue (one barrier with their events). Called before every
/// command on the kernel queue: kernel launches ([`launch`] itself), device copies,
/// downloads. An upload only targets a buffer no queued command uses (VRRuntime uploads
/// only what the host holds alone: a new row, or one the CPU wrote after waiting for the
/// queues), so it may run beside earlier kernels; later commands wait for it here.
pub fn join_transfers(gpu: &Gpu) -> Result<(), DeviceError> {
    PENDING.with(|p| {
        let mut pending = p.borrow_mut();
        if pending.is_empty() {
            return Ok(());
        }
        // SAFETY: the events are retained (live) until released below.
        let r = unsafe {
            opencl3::command_queue::enqueue_barrier_with_wait_list(
                gpu.queue.get(),
                pending.len() as u32,
                pending.as_ptr(),
            )
        };
        let ev = enqueued("barrier after uploads", r, false)?;
        if !ev.is_null() {
            // Not timed: released now (the queue keeps what it needs).
            drop(opencl3::event::Event::new(ev));
        }
        release_pending(&mut pending);
        Ok(())
    })
}

/// Uploads go on their own queue, overlapping kernels (the default), or on the kernel
/// queue in order (`VR_GPU_OVERLAP=off`, for measuring what the overlap gives); read at
/// every upload.
pub fn overlap_enabled() -> bool {
    !matches!(
        std::env::var("VR_GPU_OVERLAP").ok().as_deref(),
        Some("off" | "0" | "no" | "false")
    )
}

/// What an event timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timed {
    Transfer,
    Kernel,
}

/// Nanoseconds the device spent, by kind, as its profiling stamps say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Times {
    pub transfer_ns: u64,
    pub kernel_ns: u64,
}

/// Whether an OpenCL error code says the device ran out of memory or resources, or is
/// gone, rather than that we called OpenCL wrongly: the engine then gives the device up
/// and the CPU carries on (docs/gpu.md, "When the device fails"). `CL_INVALID_BUFFER_SIZE`
/// is a buffer larger than the device's largest allocation; `CL_EXEC_STATUS_ERROR_FOR_
/// EVENTS_IN_WAIT_LIST`, a command this one waits for failed; `CL_CONTEXT_TERMINATED_KHR`,
/// the driver ended the context (a reset device).
pub fn is_device_fault(code: i32) -> bool {
    use opencl3::error_codes as e;
    matches!(
        code,
        e::CL_DEVICE_NOT_FOUND
            | e::CL_DEVICE_NOT_AVAILABLE
            | e::CL_MEM_OBJECT_ALLOCATION_FAILURE
            | e::CL_OUT_OF_RESOURCES
            | e::CL_OUT_OF_HOST_MEMORY
            | e::CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
            | e::CL_INVALID_BUFFER_SIZE
            | e::CL_CONTEXT_TERMINATED_KHR
    )
}

/// An OpenCL error of `what`, classified. `waited`: it came from waiting for enqueued
/// commands (a blocking read, a finish).
pub fn cl_failure(what: &str, code: i32, waited: bool) -> DeviceError {
    DeviceError {
        message: format!("{what}: {}", opencl3::error_codes::ClError(code)),
        fault: is_device_fault(code),
        waited,
    }
}

/// The failure `VR_GPU_FAULT` injects into this `op`, if any (`gpu::faults`).
fn injected(op: Op, what: &str, waited: bool) -> Result<(), DeviceError> {
    match faults::check(op) {
        None => Ok(()),
        Some((code, which)) => {
            let mut e = cl_failure(what, code, waited);
            e.message = format!("{} ({which}, injected by VR_GPU_FAULT)", e.message);
            Err(e)
        }
    }
}

/// The error of an enqueue, or its event.
fn enqueued(what: &str, r: Result<cl_event, i32>, waited: bool) -> Result<cl_event, DeviceError> {
    r.map_err(|code| cl_failure(what, code, waited))
}

impl OclDevice {
    pub fn new(gpu: Arc<Gpu>) -> OclDevice {
        OclDevice {
            gpu,
            events: Vec::new(),
        }
    }

    /// Keep `ev` (an enqueued command's event) for timing.
    pub fn record(&mut self, kind: Timed, ev: cl_event) {
        if !ev.is_null() {
            self.events.push((kind, opencl3::event::Event::new(ev)));
        }
    }

    fn check(
        &mut self,
        what: &str,
        r: Result<cl_event, i32>,
        waited: bool,
    ) -> Result<(), DeviceError> {
        let ev = enqueued(what, r, waited)?;
        self.record(Timed::Transfer, ev);
        Ok(())
    }

    /// The time the recorded commands took on the device, and forget them. Call only
    /// when the queue has finished (an in-order queue: after a wait or a blocking read);
    /// a command without stamps counts nothing.
    pub fn take_times(&mut self) -> Times {
        let mut t = Times::default();
        for (kind, ev) in self.events.drain(..) {
            let (Ok(a), Ok(b)) = (ev.profiling_command_start(), ev.profiling_command_end()) else {
                continue;
            };
            let ns = b.saturating_sub(a);
            match kind {
                Timed::Transfer => t.transfer_ns += ns,
                Timed::Kernel => t.kernel_ns += ns,
            }
        }
        t
    }

    /// Events waiting to be timed (many: the caller may finish the queue and take them).
    pub fn recorded(&self) -> usize {
        self.events.len()
    }

    /// [`join_transfers`] on this device's queues.
    pub fn join_transfers(&self) -> Result<(), DeviceError> {
        join_transfers(&self.gpu)
    }
}

impl Device for OclDevice {
    type Buffer = Buffer<u8>;

    fn alloc(&mut self, bytes: usize) -> Result<Buffer<u8>, DeviceError> {
        let what = format!("allocating {bytes} bytes on the device");
        injected(Op::Alloc, &what, false)?;
        // SAFETY: no host pointer; the size is positive.
        unsafe {
            Buffer::<u8>::create(
                &self.gpu.context,
                CL_MEM_READ_WRITE,
                bytes.max(1),
                std::ptr::null_mut(),
            )
            .map_err(|e| cl_failure(&what, e.0, false))
        }
    }

    fn upload(
        &mut self,
        buf: &Buffer<u8>,
        offset: usize,
        host: *const u8,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        injected(Op::Upload, "upload", false)?;
        let queue = match &self.gpu.transfer_queue {
            Some(t) if overlap_enabled() => t.get(),
            _ => self.gpu.queue.get(),
        };
        let overlapped = queue != self.gpu.queue.get();
        // SAFETY: `host` holds `bytes` bytes that stay unchanged until the queues are
        // finished (VRRuntime waits before the CPU writes them).
        let r = unsafe {
            opencl3::command_queue::enqueue_write_buffer(
                queue,
                buf.get(),
                CL_NON_BLOCKING,
                offset,
                bytes,
                host as *const c_void,
                0,
                std::ptr::null(),
            )
        };
        let ev = enqueued("upload", r, false)?;
        self.record(Timed::Transfer, ev);
        if overlapped && !ev.is_null() {
            // SAFETY: a live event; the pending list holds its own reference.
            if unsafe { opencl3::event::retain_event(ev) }.is_ok() {
                PENDING.with(|p| p.borrow_mut().push(ev));
            } else {
                // Cannot keep it: order the kernel queue after it now.
                self.finish()?;
            }
        }
        Ok(())
    }

    fn download(
        &mut self,
        buf: &Buffer<u8>,
        offset: usize,
        host: *mut u8,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        injected(Op::Download, "download", true)?;
        self.join_transfers()?;
        // SAFETY: `host` holds `bytes` writable bytes; the read blocks until done.
        let r = unsafe {
            opencl3::command_queue::enqueue_read_buffer(
                self.gpu.queue.get(),
                buf.get(),
                CL_BLOCKING,
                offset,
                bytes,
                host as *mut c_void,
                0,
                std::ptr::null(),
            )
        };
        self.check("download", r, true)
    }

    fn copy(
        &mut self,
        src: &Buffer<u8>,
        so: usize,
        dst: &Buffer<u8>,
        d: usize,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        injected(Op::Copy, "device copy", false)?;
        self.join_transfers()?;
        // SAFETY: both ranges lie inside their buffers (VRRuntime's rows).
        let r = unsafe {
            opencl3::command_queue::enqueue_copy_buffer(
                self.gpu.queue.get(),
                src.get(),
                dst.get(),
                so,
                d,
                bytes,
                0,
                std::ptr::null(),
            )
        };
        self.check("device copy", r, false)
    }

    fn finish(&mut self) -> Result<(), DeviceError> {
        // The pending uploads are waited for (or failed) either way: let them go.
        let r = self.finish_both();
        PENDING.with(|p| release_pending(&mut p.borrow_mut()));
        r
    }
}

impl OclDevice {
    fn finish_both(&mut self) -> Result<(), DeviceError> {
        injected(Op::Finish, "finish", true)?;
        if let Some(t) = &self.gpu.transfer_queue {
            opencl3::command_queue::finish(t.get()).map_err(|c| cl_failure("finish", c, true))?;
        }
        opencl3::command_queue::finish(self.gpu.queue.get())
            .map_err(|c| cl_failure("finish", c, true))
    }

    /// A launch's error slot, its header initialised from `init` (a static, so the
    /// non-blocking upload may read it later).
    pub fn alloc_slot(&mut self, init: &'static [i32; 2]) -> Result<Buffer<u8>, DeviceError> {
        let buf = self.alloc(super::kernel::ERR_SLOT_WORDS * 8)?;
        self.upload(&buf, 0, init.as_ptr() as *const u8, 8)?;
        Ok(buf)
    }

    /// Wait for everything enqueued.
    pub fn finish_queue(&mut self) -> Result<(), DeviceError> {
        self.finish()
    }

    /// Read the first `out.len()` bytes of a buffer (blocking).
    pub fn download_into(&mut self, buf: &Buffer<u8>, out: &mut [u8]) -> Result<(), DeviceError> {
        self.download(buf, 0, out.as_mut_ptr(), out.len())
    }

    /// Read the first `out.len()` words of a buffer (blocking).
    pub fn download_words(&mut self, buf: &Buffer<u8>, out: &mut [i64]) -> Result<(), DeviceError> {
        self.download(buf, 0, out.as_mut_ptr() as *mut u8, out.len() * 8)
    }
}

/// One kernel argument.
pub enum Arg<'a> {
    Buffer(&'a Buffer<u8>),
    I64(i64),
    I32(i32),
    F64(f64),
    F32(f32),
    U8(u8),
    /// A `__local` array of this many bytes.
    Local(usize),
}

/// Enqueue `name` of `program` over `global` work items (1 to 3 dimensions), without
/// waiting; `local`: the work-group size (None: the implementation's choice).
pub fn launch(
    gpu: &Gpu,
    program: &Program,
    name: &str,
    args: &[Arg],
    global: &[usize],
    local: Option<&[usize]>,
) -> Result<cl_event, DeviceError> {
    // The kernel runs after the uploads this thread enqueued (it may read them).
    join_transfers(gpu)?;
    injected(Op::Launch, &format!("kernel {name}"), false)?;
    with_kernel(program, name, |kernel| set_args_and_enqueue(gpu, kernel, name, args, global, local))
}

thread_local! {
    /// Kernel objects by (program handle, kernel name), made once per thread: creating
    /// one at every launch cost each launch a `clCreateKernel`. Per thread because
    /// setting a kernel's arguments is not thread-safe; a launch copies the arguments at
    /// enqueue, so the object may be reused at once. A kernel keeps its program alive,
    /// so a handle in the table is never reused for another program.
    static KERNELS: std::cell::RefCell<std::collections::HashMap<(usize, String), Kernel>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn with_kernel(
    program: &Program,
    name: &str,
    run: impl FnOnce(&Kernel) -> Result<cl_event, DeviceError>,
) -> Result<cl_event, DeviceError> {
    let key = (program.get() as usize, name.to_string());
    let cached = KERNELS.with(|k| k.borrow_mut().remove(&key));
    let kernel = match cached {
        Some(k) => k,
        None => Kernel::create(program, name)
            .map_err(|e| cl_failure(&format!("kernel {name}"), e.0, false))?,
    };
    let r = run(&kernel);
    KERNELS.with(|k| k.borrow_mut().insert(key, kernel));
    r
}

fn set_args_and_enqueue(
    gpu: &Gpu,
    kernel: &Kernel,
    name: &str,
    args: &[Arg],
    global: &[usize],
    local: Option<&[usize]>,
) -> Result<cl_event, DeviceError> {
    for (k, a) in args.iter().enumerate() {
        let k = k as u32;
        // SAFETY: each value matches the kernel parameter's size (the generator declares
        // `long`, `int`, `double`, `float`, `uchar` and `__global` pointers to match).
        let r = unsafe {
            match a {
                Arg::Buffer(b) => {
                    let m = b.get();
                    opencl3::kernel::set_kernel_arg(
                        kernel.get(),
                        k,
                        std::mem::size_of_val(&m),
                        &m as *const _ as *const c_void,
                    )
                }
                Arg::I64(v) => opencl3::kernel::set_kernel_arg(
                    kernel.get(),
                    k,
                    8,
                    v as *const i64 as *const c_void,
                ),
                Arg::I32(v) => opencl3::kernel::set_kernel_arg(
                    kernel.get(),
                    k,
                    4,
                    v as *const i32 as *const c_void,
                ),
                Arg::F64(v) => opencl3::kernel::set_kernel_arg(
                    kernel.get(),
                    k,
                    8,
                    v as *const f64 as *const c_void,
                ),
                Arg::F32(v) => opencl3::kernel::set_kernel_arg(
                    kernel.get(),
                    k,
                    4,
                    v as *const f32 as *const c_void,
                ),
                Arg::U8(v) => opencl3::kernel::set_kernel_arg(
                    kernel.get(),
                    k,
                    1,
                    v as *const u8 as *const c_void,
                ),
                Arg::Local(bytes) => {
                    opencl3::kernel::set_kernel_arg(kernel.get(), k, *bytes, std::ptr::null())
                }
            }
        };
        r.map_err(|c| cl_failure(&format!("kernel {name} argument {k}"), c, false))?;
    }
    // SAFETY: arguments set above; `global` holds work_dim sizes.
    let r = unsafe {
        opencl3::command_queue::enqueue_nd_range_kernel(
            gpu.queue.get(),
            kernel.get(),
            global.len() as u32,
            std::ptr::null(),
            global.as_ptr(),
            local.map_or(std::ptr::null(), |l| l.as_ptr()),
            0,
            std::ptr::null(),
        )
    };
    enqueued(&format!("kernel {name}"), r, false)
}
