//! The GPU's offload engine (`runtime::offload`): carries out a [`GpuPlan`]'s actions for
//! compiled code, with one VRRuntime per call on the process's OpenCL device.
//!
//! A task that cannot run on the device (no device, f64 without `cl_khr_fp64`, a program
//! that does not build, a launch the device refuses, more than 2^31 iterations) is
//! declined: its arrays are brought home and the statement's compiled CPU code runs
//! instead, with one note per reason in the process (see [`notes`]) and in the module's
//! report. A device that runs out of memory or is lost (a *device fault*, classified by
//! `opencl::is_device_fault`) is given up for the rest of the call: everything it holds
//! comes home and the CPU carries on from there, or, where the only fresh copy of an
//! array was on the device and cannot come home, the call stops with a device error
//! (`Session::give_up`, docs/gpu.md "When the device fails"). Kernel launches are not
//! waited for; their error slots are read at the next synchronisation point, at the end
//! of the section, or when the call ends, and the first failed launch's error (the
//! lowest iteration in it) is reported, as the serial order would meet it.

mod library;

use super::errors;
use super::kernel::{Kernel, Param, Site, ERR_SLOT_WORDS};
use super::opencl::{self, Arg, OclDevice};
use super::placement::{Calibration, Placement};
use super::plan::{GpuAction, GpuPlan};
use super::runtime::{Access, DeviceError, Runtime};
use crate::runtime::error::{ErrorKind, VrError};
use crate::runtime::offload::{ActionEnv, HostArray, OffloadEngine, OffloadSession, Outcome};
use crate::runtime::value::Scalar;
use crate::vrir::types::{Layout, ScalarType, Type};
use opencl3::memory::Buffer;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Process-wide counts, for `explain`, `vr` and the tests.
#[derive(Debug, Default)]
pub struct Counters {
    pub launches: AtomicU64,
    pub declined: AtomicU64,
    pub uploads: AtomicU64,
    pub upload_bytes: AtomicU64,
    pub downloads: AtomicU64,
    pub download_bytes: AtomicU64,
    pub device_copies: AtomicU64,
    /// Device time (OpenCL profiling stamps), nanoseconds.
    pub transfer_ns: AtomicU64,
    pub kernel_ns: AtomicU64,
}

pub fn counters() -> &'static Counters {
    static C: OnceLock<Counters> = OnceLock::new();
    C.get_or_init(Counters::default)
}

/// Notes of this process (each text once): why sections or tasks ran on the CPU.
pub fn notes() -> Vec<String> {
    note_list()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

fn note_list() -> &'static Mutex<Vec<String>> {
    static N: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    N.get_or_init(|| Mutex::new(Vec::new()))
}

pub fn note(text: String) {
    let mut n = note_list().lock().unwrap_or_else(|p| p.into_inner());
    if !n.contains(&text) {
        n.push(text);
    }
}

/// What one section did over every call of its module (for `explain`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SectionStats {
    /// Times the section ended (ran to its end or left it).
    pub runs: u64,
    /// Of those, runs in which no task reached a device (no device, or every task
    /// declined or none placed).
    pub runs_on_cpu: u64,
    pub launches: u64,
    /// Tasks whose CPU code ran instead.
    pub declined: u64,
    pub uploads: u64,
    pub upload_bytes: u64,
    pub downloads: u64,
    pub download_bytes: u64,
    pub device_copies: u64,
    /// Device time in transfers and in kernels (OpenCL profiling stamps).
    pub transfer_ns: u64,
    pub kernel_ns: u64,
    /// Tasks the placement model sent to the device and kept on the CPU.
    pub placed_device: u64,
    pub placed_cpu: u64,
    /// The model's last estimate and choice (`Choice::describe`).
    pub last_choice: Option<String>,
    /// Arrays synchronised by CPU code in the last run that used the device (the model
    /// charges them to the device next time), those inside serial loops that are tasks
    /// (`loop-kernels`) excepted.
    pub device_syncs: u64,
    /// Per serial loop that is a task (`GpuPlan::loop_tasks`): arrays its own CPU code
    /// synchronised on its last run on the CPU (the model charges them to that loop's
    /// CPU choice: nbody1d's update loop makes 12,000 a call, none on the device).
    pub loop_syncs: std::collections::BTreeMap<usize, u64>,
}

/// Recorded events before the engine waits for the queue to read their times.
const EVENTS_KEPT: usize = 4096;

/// The engine of one compiled module.
pub struct GpuEngine {
    plan: Arc<GpuPlan>,
    index_base: u8,
    stats: Arc<Mutex<Vec<SectionStats>>>,
    /// Why its tasks ran on the CPU at run time (each text once), for its report.
    notes: Arc<Mutex<Vec<String>>>,
    placement: Placement,
    calibration: Option<Arc<Calibration>>,
}

impl GpuEngine {
    pub fn new(plan: Arc<GpuPlan>, index_base: u8) -> GpuEngine {
        let stats = Arc::new(Mutex::new(vec![SectionStats::default(); plan.sections]));
        GpuEngine {
            plan,
            index_base,
            stats,
            notes: Arc::new(Mutex::new(Vec::new())),
            placement: Placement::Device,
            calibration: None,
        }
    }

    /// Who decides where tasks run (`Model` needs the machine's calibration; without
    /// one, every task goes to the device).
    pub fn placed(mut self, placement: Placement, calibration: Option<Arc<Calibration>>) -> GpuEngine {
        self.placement = placement;
        self.calibration = calibration;
        self
    }

    /// The notes its calls made at run time (a failed build, a device given up, ...).
    pub fn run_notes(&self) -> Vec<String> {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Per section: where it is and what it did so far.
    pub fn section_stats(&self) -> Vec<(super::plan::SectionInfo, SectionStats)> {
        let stats = self.stats.lock().unwrap_or_else(|p| p.into_inner()).clone();
        self.plan.section_info.iter().cloned().zip(stats).collect()
    }
}

/// `1234 bytes`, `1.2 MB`, ...
fn bytes(n: u64) -> String {
    match n {
        0..=9_999 => format!("{n} bytes"),
        10_000..=9_999_999 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

impl OffloadEngine for GpuEngine {
    fn session(&self) -> Box<dyn OffloadSession> {
        Box::new(Session {
            plan: self.plan.clone(),
            index_base: self.index_base,
            rt: None,
            pending: Vec::new(),
            dummy: None,
            stats: self.stats.clone(),
            notes: self.notes.clone(),
            current: None,
            launched_in_run: false,
            depth: 0,
            stable: Vec::new(),
            given_up: false,
            unchecked: false,
            model: match self.placement {
                Placement::Model => self.calibration.clone(),
                Placement::Device => None,
            },
            syncs_in_run: 0,
            loop_syncs_in_run: std::collections::BTreeMap::new(),
        })
    }

    /// One line per section: where it ran, kernels launched, tasks on the CPU, bytes
    /// moved each way, device time in transfers and in kernels; then the reasons
    /// statements of the sections run on the CPU.
    fn report(&self) -> String {
        let mut out = String::new();
        let device = match super::device() {
            Ok(d) => d.describe(),
            Err(why) => format!("no OpenCL device ({why})"),
        };
        for (k, (info, s)) in self.section_stats().into_iter().enumerate() {
            let place = if s.runs == 0 {
                "not run yet".to_string()
            } else if s.runs_on_cpu == s.runs {
                format!("ran on the CPU in all {} run(s)", s.runs)
            } else if s.runs_on_cpu > 0 {
                format!(
                    "ran on {device} in {} of {} run(s), on the CPU in the others",
                    s.runs - s.runs_on_cpu,
                    s.runs
                )
            } else {
                format!("ran on {device} in {} run(s)", s.runs)
            };
            out.push_str(&format!(
                "gpu section {} ({}): {place}; {} kernel launch(es), {} task(s) on the CPU; to the device {} transfer(s), {}; to the host {} transfer(s), {}; device time {:.3} ms in transfers, {:.3} ms in kernels\n",
                k + 1,
                info.describe(),
                s.launches,
                s.declined,
                s.uploads,
                bytes(s.upload_bytes),
                s.downloads,
                bytes(s.download_bytes),
                s.transfer_ns as f64 / 1e6,
                s.kernel_ns as f64 / 1e6,
            ));
            if s.placed_device + s.placed_cpu > 0 {
                out.push_str(&format!(
                    "gpu section {} placement (cost model): {} task(s) on the device, {} on the CPU; last estimate {}{}\n",
                    k + 1,
                    s.placed_device,
                    s.placed_cpu,
                    s.last_choice.as_deref().unwrap_or("-"),
                    if s.device_syncs > 0 {
                        format!(" (counting {} array synchronisations of its last run on the device)", s.device_syncs)
                    } else {
                        String::new()
                    },
                ));
            }
        }
        if self.placement == Placement::Model && self.plan.sections > 0 {
            out.push_str(&match &self.calibration {
                Some(c) => format!("gpu placement: {}\n", c.describe()),
                None => "gpu placement: cost model, but no device to calibrate: sections run on the CPU\n".to_string(),
            });
        }
        if self.plan.kernels() > 0 {
            let counts: Vec<String> = self
                .plan
                .pass_counts()
                .into_iter()
                .map(|(p, n)| format!("{p} {n}"))
                .collect();
            out.push_str(&format!(
                "gpu passes ({} kernel(s); off with VR_GPU_PASSES=none): {}\n",
                self.plan.kernels(),
                counts.join(", ")
            ));
        }
        for p in &self.plan.passes {
            out.push_str(&format!("gpu pass: {p}\n"));
        }
        for n in self.plan.notes.iter().chain(&self.run_notes()) {
            out.push_str(&format!("gpu note: {n}\n"));
        }
        out
    }
}

/// A launched kernel whose error slot is not read yet.
struct Pending {
    slot: Buffer<u8>,
    sites: Vec<Site>,
    function: String,
}

struct Session {
    plan: Arc<GpuPlan>,
    index_base: u8,
    /// Created at the first task that finds a device.
    rt: Option<Runtime<OclDevice>>,
    pending: Vec<Pending>,
    /// The error-slot argument of kernels that cannot fail (never written).
    dummy: Option<Buffer<u8>>,
    /// The module's per-section counts, and the section of the action being run.
    stats: Arc<Mutex<Vec<SectionStats>>>,
    notes: Arc<Mutex<Vec<String>>>,
    current: Option<usize>,
    /// A task of the current run of the section reached the device.
    launched_in_run: bool,
    /// Sections begun and not ended (more than one: a call made inside a section runs
    /// a section of its own).
    depth: usize,
    /// Host byte ranges of the call's arguments the host vouches are unchanged since
    /// earlier calls (`gpu::resident`): their device copies are adopted, and kept after.
    stable: Vec<(usize, usize)>,
    /// The device failed in this call and was given up: the rest runs on the CPU.
    given_up: bool,
    /// A kernel's error slot could not be read: what the kernels launched since the
    /// last check wrote is not trusted.
    unchecked: bool,
    /// The placement model's machine, when it chooses where tasks run.
    model: Option<Arc<Calibration>>,
    /// Arrays synchronised in the current run of the section (one per array a
    /// synchronisation names), outside serial loops that are tasks; inside them, per loop.
    syncs_in_run: u64,
    loop_syncs_in_run: std::collections::BTreeMap<usize, u64>,
}

/// Why an action stopped short of its end.
enum Stop {
    /// The call stops with this error (a kernel's error, or a bug of ours).
    Error(VrError),
    /// The device ran out of memory or resources, or was lost, while doing `what`: it is
    /// given up for the call (`Session::give_up`).
    Fault { what: String, error: DeviceError },
    /// The device refused to launch a library kernel (not a fault): that task runs on
    /// the CPU, with this note.
    Refused(String),
}

impl From<VrError> for Stop {
    fn from(e: VrError) -> Stop {
        Stop::Error(e)
    }
}

type Step<T> = Result<T, Stop>;

/// Initial error slot header: no failed iteration (i32::MAX), no record.
static SLOT_INIT: [i32; 2] = [i32::MAX, 0];

impl OffloadSession for Session {
    fn stable_arrays(&mut self, ranges: &[(usize, usize)]) {
        self.stable = ranges.iter().copied().filter(|(lo, hi)| lo < hi).collect();
        // Adopt the kept copies before any CPU code of the call runs, so that a CPU
        // write of such an argument (which a host should not make, but a caller of
        // `call_host` might) is reported to the runtime like any other and makes the
        // copy stale.
        if super::resident::enabled()
            && self
                .stable
                .iter()
                .any(|(lo, hi)| super::resident::contains(*lo, *hi))
        {
            let _ = self.runtime();
        }
    }

    fn finish(&mut self) -> Option<VrError> {
        let r = match self.check_pending() {
            Ok(()) => None,
            Err(Stop::Error(e)) => Some(e),
            Err(Stop::Fault { what, error }) => self.give_up(&what, &error).err(),
            Err(Stop::Refused(_)) => None,
        };
        let mut times = None;
        if let Some(rt) = self.rt.as_mut() {
            // Uploads may still read host memory that the call is about to free.
            let finished = rt.device().finish_queue().is_ok();
            times = Some(rt.device().take_times());
            // Device copies of stable arguments that both sides still agree on stay for
            // the next call; everything else of the call is dropped with the runtime.
            if finished && super::resident::enabled() {
                for (lo, hi) in &self.stable {
                    if let Some(buf) = rt.take_clean(*lo, *hi) {
                        super::resident::put(*lo, *hi, buf);
                    }
                }
            }
        }
        if let Some(t) = times {
            self.time(t);
        }
        r
    }

    fn act(&mut self, action: u32, env: &mut dyn ActionEnv) -> Outcome {
        let Some(meaning) = self.plan.actions.get(&action) else {
            return Outcome::Declined;
        };
        // The hot path: CPU code synchronising while the device holds nothing of the
        // call (no device, or every task so far on the CPU). A serial loop inside a
        // section reaches it once per statement (nbody1d's update: 6,000 a call), so it
        // must not allocate: nothing to bring home, nothing to mark stale.
        if let GpuAction::Sync { writes } = meaning {
            // Counted per array named (each one lookup in the runtime's tables): the
            // section's, or the serial loop's whose CPU code it is in.
            let arrays = writes.len() as u64;
            match self.plan.nested_in.get(&action) {
                Some(t) => *self.loop_syncs_in_run.entry(*t).or_default() += arrays,
                None => self.syncs_in_run += arrays,
            }
            if self.pending.is_empty() && self.rt.as_ref().is_none_or(|rt| rt.holds_nothing()) {
                return Outcome::Done;
            }
        }
        let meaning = meaning.clone();
        self.current = self.plan.section_of.get(&action).copied();
        let task = matches!(
            meaning,
            GpuAction::Parfor { .. } | GpuAction::Copy { .. } | GpuAction::Library { .. }
        );
        let r = match meaning {
            GpuAction::Sync { writes } => self.sync(env, &writes).map(|_| Outcome::Done),
            GpuAction::BeginSection => {
                self.depth += 1;
                Ok(Outcome::Done)
            }
            GpuAction::EndSection { keep_all, keep } => {
                // A section that a caller's section is running (a call made inside it)
                // knows nothing of the caller's arrays: everything comes home.
                let nested = self.depth > 1;
                self.depth = self.depth.saturating_sub(1);
                let keep = (!keep_all && !nested).then_some(keep);
                self.end_section(env, keep).map(|_| Outcome::Done)
            }
            GpuAction::Parfor { kernel, function } => self.parfor(&kernel, &function, env),
            GpuAction::Copy { layout, gather } => self.copy(env, layout, gather.as_ref()),
            GpuAction::Library { kernel, function } => self.library(&kernel, &function, env),
            GpuAction::ForgetAll => match self.rt.as_mut() {
                Some(rt) => rt
                    .forget_all()
                    .map(|_| Outcome::Done)
                    .map_err(|e| device_error("bringing arrays home", e)),
                None => Ok(Outcome::Done),
            },
        };
        match r {
            Ok(o) => o,
            Err(Stop::Error(e)) => Outcome::Failed(e),
            Err(Stop::Fault { what, error }) => match self.give_up(&what, &error) {
                // Everything is home: a task's CPU code runs, other CPU code goes on.
                Ok(()) if task => {
                    counters().declined.fetch_add(1, Ordering::Relaxed);
                    self.bump(|s| s.declined += 1);
                    Outcome::Declined
                }
                Ok(()) => Outcome::Done,
                Err(e) => Outcome::Failed(e),
            },
            // Handled by the library task itself.
            Err(Stop::Refused(why)) => Outcome::Failed(VrError::new(
                ErrorKind::Internal,
                format!("gpu: a refused launch reached the engine's top: {why}"),
            )),
        }
    }
}

/// A failed device operation while doing `what`: a device fault gives the device up
/// (the CPU carries on); anything else is a bug of ours.
fn device_error(what: &str, e: DeviceError) -> Stop {
    if e.fault {
        Stop::Fault {
            what: what.to_string(),
            error: e,
        }
    } else {
        Stop::Error(VrError::new(
            ErrorKind::Internal,
            format!("gpu: {what}: {e}"),
        ))
    }
}

impl Session {
    /// Read every pending error slot, in launch order; the first error found is the one
    /// the serial order meets first.
    fn check_pending(&mut self) -> Step<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let Some(rt) = self.rt.as_mut() else {
            return Ok(());
        };
        for p in pending {
            let mut words = vec![0i64; ERR_SLOT_WORDS];
            let read = rt
                .device()
                .download_words(&p.slot, &mut words[..1])
                .and_then(|_| {
                    if (words[0] as u64 & 0xffff_ffff) as u32 as i32 == i32::MAX {
                        Ok(false)
                    } else {
                        rt.device()
                            .download_words(&p.slot, &mut words)
                            .map(|_| true)
                    }
                });
            let failed = match read {
                Ok(failed) => failed,
                Err(e) => {
                    // This kernel and those after it may have failed unseen.
                    self.unchecked = true;
                    return Err(device_error("reading a kernel's error slot", e));
                }
            };
            if !failed {
                continue;
            }
            if let Some(e) = errors::decode(&words, &p.sites, &p.function, self.index_base) {
                return Err(Stop::Error(e));
            }
        }
        Ok(())
    }

    fn sync(&mut self, env: &mut dyn ActionEnv, writes: &[bool]) -> Step<()> {
        self.check_pending()?;
        let Some(rt) = self.rt.as_mut() else {
            return Ok(());
        };
        let before = rt.stats();
        for (k, w) in writes.iter().enumerate() {
            if let Some(a) = env.array(k) {
                rt.host_access(&a, *w)
                    .map_err(|e| device_error("bringing an array home", e))?;
            }
        }
        let now = rt.stats();
        self.account(before, now);
        Ok(())
    }

    /// `keep`: how many of the action's arrays code after the section may read (None:
    /// anything may be read).
    fn end_section(&mut self, env: &mut dyn ActionEnv, keep: Option<usize>) -> Step<()> {
        let r = self.end_section_transfers(env, keep);
        // The run counts whatever happened to its transfers.
        let on_device = std::mem::take(&mut self.launched_in_run);
        let syncs = std::mem::take(&mut self.syncs_in_run);
        let loop_syncs = std::mem::take(&mut self.loop_syncs_in_run);
        self.bump(|s| {
            s.runs += 1;
            s.runs_on_cpu += (!on_device) as u64;
            if on_device {
                s.device_syncs = syncs;
            }
            s.loop_syncs.extend(loop_syncs);
        });
        r
    }

    fn end_section_transfers(&mut self, env: &mut dyn ActionEnv, keep: Option<usize>) -> Step<()> {
        self.check_pending()?;
        if let Some(rt) = self.rt.as_mut() {
            let before = rt.stats();
            // Only what code after the section may read comes home; the rest (dead
            // temporaries, arrays no variable holds any more) is dropped unread.
            let keep: Option<Vec<HostArray>> =
                keep.map(|n| (0..n).filter_map(|k| env.array(k)).collect());
            rt.end_section_keeping(keep.as_deref())
                .map_err(|e| device_error("ending a section", e))?;
            let now = rt.stats();
            // The queue is finished: every recorded command has its stamps.
            let times = rt.device().take_times();
            self.account(before, now);
            self.time(times);
        }
        Ok(())
    }

    /// The device failed while doing `what` (a device fault, `e`): give it up for the
    /// rest of the call. Kernels launched before came first in the serial order, so their
    /// error slots are read first where the device still answers (a kernel's error is
    /// the call's error). Then every byte only the device holds comes home and every
    /// table is emptied (`Runtime::abandon`): the CPU code after this point, and every
    /// later task (declined from now on), sees what a run on the CPU from the section's
    /// start would see, since each task before ran to its end on the device and the one
    /// that failed had not been enqueued or is re-run on the CPU from unchanged inputs.
    ///
    /// Not recoverable: when the failure came from waiting for enqueued commands (a
    /// download, a finish), or a kernel's error slot could not be read, nothing the device
    /// alone holds is trusted; when such bytes exist (written by a task that is past), or
    /// kernels were left unchecked, the call stops with a device error that names them.
    /// A wrong number is never returned.
    fn give_up(&mut self, what: &str, e: &DeviceError) -> Result<(), VrError> {
        if !e.waited && !self.unchecked {
            match self.check_pending() {
                Ok(()) => {}
                Err(Stop::Error(err)) => return Err(err),
                Err(_) => {}
            }
        }
        let unchecked = self.unchecked || !self.pending.is_empty();
        self.pending.clear();
        self.dummy = None;
        self.given_up = true;
        let function = self
            .current
            .and_then(|k| self.plan.section_info.get(k))
            .map(|i| i.function.clone());
        let Some(mut rt) = self.rt.take() else {
            return Ok(());
        };
        let device = rt.device().gpu.info.describe();
        let before = rt.stats();
        let lost = rt.abandon(!e.waited && !unchecked);
        let now = rt.stats();
        let times = rt.device().take_times();
        drop(rt);
        self.account(before, now);
        self.time(times);
        let stop = |message: String| {
            let err = VrError::new(ErrorKind::Device, message);
            match &function {
                Some(f) => err.with_function(f),
                None => err,
            }
        };
        if unchecked {
            return Err(stop(format!(
                "gpu: {device} failed ({what}: {e}) before the kernels already launched could be checked: what they computed cannot be trusted or recomputed on the CPU, so the call stops"
            )));
        }
        if !lost.is_empty() {
            let mut names: Vec<String> = Vec::new();
            let mut writers: Vec<String> = Vec::new();
            for l in &lost {
                if l.vars.is_empty() {
                    names.push(format!("an array of {} bytes", l.hi - l.lo));
                }
                for v in &l.vars {
                    if !names.contains(&format!("`{v}`")) {
                        names.push(format!("`{v}`"));
                    }
                }
                if let Some(w) = &l.writer {
                    if !writers.contains(w) {
                        writers.push(w.clone());
                    }
                }
            }
            let written = if writers.is_empty() {
                String::new()
            } else {
                format!(" (written by {})", writers.join(", "))
            };
            return Err(stop(format!(
                "gpu: {device} failed ({what}: {e}) while the only fresh copy of {}{written} was on it: it cannot be brought home or recomputed on the CPU, so the call stops",
                names.join(", ")
            )));
        }
        let section = self
            .current
            .and_then(|k| self.plan.section_info.get(k))
            .map_or(String::new(), |i| {
                format!(" from section `{}`", i.describe())
            });
        self.note(format!(
            "gpu: {device} failed ({what}: {e}): given up for the rest of the call; what it had computed came home and the CPU runs the rest{section}"
        ));
        Ok(())
    }

    /// A note for `vr` (the process's list) and for this module's report.
    fn note(&self, text: String) {
        note(text.clone());
        let mut n = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        if !n.contains(&text) {
            n.push(text);
        }
    }

    /// Count into the current section's stats.
    fn bump(&self, f: impl FnOnce(&mut SectionStats)) {
        if let Some(k) = self.current {
            if let Some(s) = self
                .stats
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_mut(k)
            {
                f(s);
            }
        }
    }

    fn time(&self, t: super::opencl::Times) {
        counters()
            .transfer_ns
            .fetch_add(t.transfer_ns, Ordering::Relaxed);
        counters().kernel_ns.fetch_add(t.kernel_ns, Ordering::Relaxed);
        self.bump(|s| {
            s.transfer_ns += t.transfer_ns;
            s.kernel_ns += t.kernel_ns;
        });
    }

    /// A kernel was enqueued (its event `ev`): counted, and timed later.
    fn launched_kernel(&mut self, ev: opencl3::types::cl_event) {
        counters().launches.fetch_add(1, Ordering::Relaxed);
        self.launched_in_run = true;
        self.bump(|s| s.launches += 1);
        let mut times = None;
        if let Some(rt) = self.rt.as_mut() {
            rt.device().record(super::opencl::Timed::Kernel, ev);
            if rt.device().recorded() > EVENTS_KEPT {
                // Many commands in one section: wait, and read their times now.
                if rt.device().finish_queue().is_ok() {
                    times = Some(rt.device().take_times());
                }
            }
        }
        if let Some(t) = times {
            self.time(t);
        }
    }

    /// Add a runtime's transfers since `before` to the process's and the section's
    /// counts.
    fn account(&self, before: super::runtime::Stats, now: super::runtime::Stats) {
        account(before, now);
        self.bump(|s| {
            s.uploads += now.uploads - before.uploads;
            s.upload_bytes += now.upload_bytes - before.upload_bytes;
            s.downloads += now.downloads - before.downloads;
            s.download_bytes += now.download_bytes - before.download_bytes;
            s.device_copies += now.device_copies - before.device_copies;
        });
    }

    /// The call's runtime on the process's device, or None when there is no device.
    fn runtime(&mut self) -> Option<&mut Runtime<OclDevice>> {
        if self.given_up {
            return None;
        }
        if self.rt.is_none() {
            match opencl::gpu() {
                Ok(gpu) => {
                    let mut rt = Runtime::new(OclDevice::new(gpu));
                    if super::resident::enabled() {
                        rt.set_resident(true);
                        for (lo, hi) in &self.stable {
                            if let Some(buf) = super::resident::take(*lo, *hi) {
                                rt.adopt(*lo, *hi, buf);
                            }
                        }
                    }
                    self.rt = Some(rt);
                }
                Err(why) => {
                    self.note(format!(
                        "gpu: no OpenCL device ({why}); GPU sections run on the CPU"
                    ));
                    return None;
                }
            }
        }
        self.rt.as_mut()
    }

    /// The placement model's estimate for parfor `k` over a domain of `counts` points.
    fn place_parfor(
        &mut self,
        k: &Kernel,
        env: &dyn ActionEnv,
        (starts, steps, counts): (&[i64], &[i64], &[u128]),
        c: &Calibration,
    ) -> super::placement::Choice {
        use super::placement::estimate::Known;
        let mut dims: std::collections::HashMap<&str, Vec<i64>> = Default::default();
        let (mut up, mut down_now, mut down_after, mut footprint) = (0u64, 0u64, 0u64, 0u64);
        for p in &k.params {
            if let Param::Array { var, .. } = p {
                if let Some(a) = env.array(*var) {
                    let (lo, hi) = a.byte_range();
                    footprint += (hi - lo) as u64;
                    let (lacks, only_device) = match self.rt.as_ref() {
                        Some(rt) => rt.bytes_to_move(lo, hi),
                        None => ((hi - lo) as u64, 0),
                    };
                    up += lacks;
                    down_now += only_device;
                    if k.writes.contains(var) {
                        down_after += (hi - lo) as u64;
                    }
                    dims.insert(k.vars[*var].0.as_str(), a.dims.clone());
                }
            }
        }
        let dim = |name: &str, axis: u32| dims.get(name).and_then(|d| d.get(axis as usize)).map(|n| *n as f64);
        let mut known = Known::new(&dim);
        for p in &k.params {
            if let Param::Scalar { var, .. } = p {
                if let Some(v) = env.scalar(*var).and_then(|v| v.as_f64()) {
                    known.set(&k.vars[*var].0, v);
                }
            }
        }
        for (d, var) in k.loop_vars.iter().enumerate().take(counts.len()) {
            let (start, step) = (starts[d] as f64, steps[d] as f64);
            let middle = start + step * ((counts[d] as f64 - 1.0) / 2.0).floor().max(0.0);
            known.trips(&k.vars[*var].0, counts[d] as f64, middle);
        }
        let cost = k.work.evaluate(&mut known);
        let this_loop = self.plan.loop_tasks.iter().position(|n| *n == k.name);
        let (syncs, cpu_syncs) = self
            .current
            .and_then(|s| {
                self.stats.lock().unwrap_or_else(|p| p.into_inner()).get(s).map(|s| {
                    let own = this_loop.and_then(|t| s.loop_syncs.get(&t)).copied();
                    (s.device_syncs, own.unwrap_or(0))
                })
            })
            .unwrap_or((0, 0));
        let task = super::placement::Task {
            cost,
            footprint: footprint as f64,
            items: counts.iter().product::<u128>() as f64,
            outer: counts.first().copied().unwrap_or(1) as f64,
            up: up as f64,
            down_after: down_after as f64,
            down_now: down_now as f64,
            first: !self.launched_in_run,
            syncs: syncs as f64,
            cpu_syncs: cpu_syncs as f64,
        };
        super::placement::choose(&task, c)
    }

    /// The task runs on the CPU: its arrays come home first (the CPU may write them).
    fn decline(
        &mut self,
        env: &mut dyn ActionEnv,
        arrays: &[usize],
        why: Option<String>,
    ) -> Step<Outcome> {
        counters().declined.fetch_add(1, Ordering::Relaxed);
        self.bump(|s| s.declined += 1);
        if let Some(w) = why {
            self.note(w);
        }
        self.check_pending()?;
        if let Some(rt) = self.rt.as_mut() {
            let before = rt.stats();
            for k in arrays {
                if let Some(a) = env.array(*k) {
                    rt.host_access(&a, true)
                        .map_err(|e| device_error("bringing an array home", e))?;
                }
            }
            let now = rt.stats();
            self.account(before, now);
        }
        Ok(Outcome::Declined)
    }

    fn copy(
        &mut self,
        env: &mut dyn ActionEnv,
        layout: Layout,
        gather: Option<&Arc<super::library::LibKernel>>,
    ) -> Step<Outcome> {
        // The target gets its new array first; a device fault after that gives it back
        // its old one, since the statement's CPU code runs instead (`a = copy(a)`).
        let target = env.array(0);
        let r = self.copy_task(env, layout, gather);
        if matches!(r, Err(Stop::Fault { .. })) {
            env.restore_array(0, target.as_ref());
        }
        r
    }

    fn copy_task(
        &mut self,
        env: &mut dyn ActionEnv,
        layout: Layout,
        gather: Option<&Arc<super::library::LibKernel>>,
    ) -> Step<Outcome> {
        if self.runtime().is_none() {
            return Ok(Outcome::Declined);
        }
        let Some(src) = env.array(1) else {
            return self.decline(env, &[1], None);
        };
        // The new array gets its type's contiguous strides: a deferred copy needs the
        // same strides (one storage order).
        let udims: Vec<usize> = src.dims.iter().map(|d| *d as usize).collect();
        let strides: Vec<i64> = crate::runtime::value::contiguous_strides(
            &udims,
            if layout == Layout::Col {
                Layout::Col
            } else {
                Layout::Row
            },
        )
        .into_iter()
        .map(|s| s as i64)
        .collect();
        let (lo, hi) = src.byte_range();
        let contiguous =
            (hi - lo) as i64 == src.len() * src.elem_size() as i64 && src.data as usize == lo;
        if strides != src.strides || !contiguous || src.is_empty() {
            // Not one run of bytes in the copy's order: a gather kernel copies it.
            return match gather {
                Some(k) if !src.is_empty() => self.library(k, "", env),
                _ => self.decline(env, &[1], None),
            };
        }
        let dst = env.new_array(0, &src.dims).map_err(|e| e.with_line(None))?;
        let rt = self.rt.as_mut().expect("runtime made above");
        if !rt.lazy_copy(&dst, &src) {
            // Not deferrable after all: copy now in host memory, with the source fresh.
            let before = rt.stats();
            rt.host_access(&src, false)
                .map_err(|e| device_error("bringing an array home", e))?;
            let now = rt.stats();
            // SAFETY: both are live host arrays of the same byte length.
            unsafe {
                std::ptr::copy_nonoverlapping(src.data, dst.data, hi - lo);
            }
            self.account(before, now);
        }
        Ok(Outcome::Done)
    }

    fn parfor(
        &mut self,
        k: &Arc<Kernel>,
        function: &str,
        env: &mut dyn ActionEnv,
    ) -> Step<Outcome> {
        let arrays: Vec<usize> = k
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Array { var, .. } => Some(*var),
                _ => None,
            })
            .collect();
        let Some(rt) = self.runtime() else {
            return Ok(Outcome::Declined);
        };
        let gpu = rt.device().gpu.clone();
        // Bounds the CPU evaluated early read an unassigned variable: its code says so.
        if k.needs_set.iter().any(|v| match k.vars[*v].1 {
            Type::Array(_) => env.array(*v).is_none(),
            _ => env.scalar(*v).is_none(),
        }) {
            return self.decline(env, &arrays, None);
        }
        if k.fp64 && !gpu.info.fp64 {
            return self.decline(
                env,
                &arrays,
                Some(format!(
                    "gpu: {} lacks cl_khr_fp64: parfors using f64 run on the CPU",
                    gpu.info.describe()
                )),
            );
        }
        if k.int64_atomics && !gpu.info.int64_atomics {
            return self.decline(
                env,
                &arrays,
                Some(format!(
                    "gpu: {} lacks cl_khr_int64_base_atomics: parfors with 64-bit atomics run on the CPU",
                    gpu.info.describe()
                )),
            );
        }
        let program = match gpu.program(&k.source) {
            Ok(p) => p,
            Err(why) => {
                return self.decline(
                    env,
                    &arrays,
                    Some(format!(
                        "gpu: kernel {} of `{function}` runs on the CPU: {why}",
                        k.name
                    )),
                )
            }
        };
        // The domain, as the CPU evaluated its bounds.
        let mut starts = Vec::new();
        let mut steps = Vec::new();
        let mut counts = Vec::new();
        for d in 0..k.dims {
            let v = |j: usize| env.value(3 * d + j).as_i64().unwrap_or(0);
            let (a, b, s) = (v(0), v(1), v(2));
            if s == 0 {
                return Err(Stop::Error(
                    VrError::runtime("zero step in a range")
                        .with_function(function)
                        .with_line(k.line),
                ));
            }
            let nonempty = if s > 0 { b >= a } else { a >= b };
            let count = if nonempty {
                let dist = if s > 0 {
                    (b as i128 - a as i128) as u128
                } else {
                    (a as i128 - b as i128) as u128
                };
                dist / s.unsigned_abs() as u128 + 1
            } else {
                0
            };
            starts.push(a);
            steps.push(s);
            counts.push(count);
        }
        if counts.contains(&0) {
            return Ok(Outcome::Done);
        }
        let total: u128 = counts.iter().product();
        if total >= i32::MAX as u128 {
            return self.decline(
                env,
                &arrays,
                Some(format!(
                    "gpu: kernel {} of `{function}` has {total} iterations (at most 2^31 - 1 on the GPU): it runs on the CPU",
                    k.name
                )),
            );
        }
        if let Some(c) = self.model.clone() {
            let choice = self.place_parfor(k, env, (&starts, &steps, &counts), &c);
            self.bump(|s| {
                s.placed_device += choice.device as u64;
                s.placed_cpu += !choice.device as u64;
                s.last_choice = Some(choice.describe());
            });
            if !choice.device {
                return self.decline(env, &arrays, None);
            }
        }
        let mut scalars = Vec::new();
        for p in &k.params {
            if let Param::Scalar { var, elem } = p {
                let v = env.scalar(*var);
                let set = v.is_some() as i32;
                let arg = match v.unwrap_or(Scalar::zero(*elem)) {
                    Scalar::Bool(b) => Arg::U8(b as u8),
                    Scalar::I32(x) => Arg::I32(x),
                    Scalar::I64(x) => Arg::I64(x),
                    Scalar::F32(x) => Arg::F32(x),
                    Scalar::F64(x) => Arg::F64(x),
                    _ => return self.decline(env, &arrays, None),
                };
                scalars.push((arg, set));
            }
        }
        self.check_pending()?;
        let rt = self.rt.as_mut().expect("runtime made above");
        let before = rt.stats();
        // Arguments: error slot, ranges, then variables.
        let slot = rt
            .device()
            .alloc_slot(&SLOT_INIT)
            .map_err(|e| device_error("allocating an error slot", e))?;
        struct ArrayArg {
            bound: super::runtime::Bound,
            arr: Option<HostArray>,
        }
        // Bind the arrays the kernel writes first: binding one for writing makes the
        // deferred copies that read it now, so a later read binding of such a copy gets
        // the copy's own bytes, not the buffer the kernel is about to change. Then bind
        // every array again in parameter order: a binding may have merged rows, and the
        // second pass (no transfers left to make) gives every array its final row.
        let arrays_of = |writes: bool| {
            k.params
                .iter()
                .filter_map(|p| match p {
                    Param::Array { var, .. } if k.writes.contains(var) == writes => Some(*var),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        for var in arrays_of(true).into_iter().chain(arrays_of(false)) {
            if let Some(a) = env.array(var) {
                let access = if k.writes.contains(&var) {
                    Access::ReadWrite
                } else {
                    Access::Read
                };
                rt.bind(&k.vars[var].0, &a, access)
                    .map_err(|e| device_error("binding an array", e))?;
            }
        }
        let mut array_args: Vec<(usize, ArrayArg)> = Vec::new();
        let mut written_rows = Vec::new();
        for p in &k.params {
            if let Param::Array { var, .. } = p {
                let arr = env.array(*var);
                let access = if k.writes.contains(var) {
                    Access::ReadWrite
                } else {
                    Access::Read
                };
                let bound = match &arr {
                    Some(a) => rt
                        .bind(&k.vars[*var].0, a, access)
                        .map_err(|e| device_error("binding an array", e))?,
                    None => {
                        let empty = HostArray {
                            data: std::ptr::null_mut(),
                            elem: ScalarType::I64,
                            dims: vec![0],
                            strides: vec![1],
                        };
                        rt.bind("", &empty, Access::Read)
                            .map_err(|e| device_error("binding an array", e))?
                    }
                };
                if access == Access::ReadWrite && arr.as_ref().is_some_and(|a| !a.is_empty()) {
                    written_rows.push(bound.buffer);
                }
                array_args.push((*var, ArrayArg { bound, arr }));
            }
        }
        let mut args: Vec<Arg> = vec![Arg::Buffer(&slot)];
        for d in 0..k.dims {
            args.push(Arg::I64(starts[d]));
            args.push(Arg::I64(steps[d]));
            args.push(Arg::I64(counts[d] as i64));
        }
        let mut arrays_iter = array_args.iter();
        let mut scalars_iter = scalars.into_iter();
        let rt = self.rt.as_ref().expect("runtime");
        for p in &k.params {
            match p {
                Param::Range(_) => {}
                Param::Scalar { .. } => {
                    let (arg, set) = scalars_iter.next().expect("one per scalar parameter");
                    args.push(arg);
                    args.push(Arg::I32(set));
                }
                Param::Array { ndims, .. } => {
                    let (_, a) = arrays_iter.next().expect("one per array parameter");
                    args.push(Arg::Buffer(rt.buffer(a.bound.buffer)));
                    args.push(Arg::I64(a.bound.offset));
                    for d in 0..*ndims {
                        args.push(Arg::I64(a.arr.as_ref().map_or(0, |x| x.dims[d])));
                    }
                    for d in 0..*ndims {
                        args.push(Arg::I64(a.arr.as_ref().map_or(0, |x| x.strides[d])));
                    }
                    args.push(Arg::I32(a.arr.is_some() as i32));
                }
            }
        }
        let (global, local) =
            k.launch_shape(&counts, gpu.info.compute_units, gpu.info.max_work_group);
        // The kernel runs after the uploads it may read (on the transfer queue).
        let launched = rt.device_ref().join_transfers().and_then(|_| {
            opencl::launch(&gpu, &program, &k.name, &args, &global, local.as_deref())
        });
        drop(args);
        let ev = match launched {
            Ok(ev) => ev,
            Err(e) if e.fault => {
                return Err(Stop::Fault {
                    what: format!("launching kernel {} of `{function}`", k.name),
                    error: e,
                })
            }
            // Refused (nothing ran): the CPU runs the parfor instead.
            Err(e) => return self.decline(
                env,
                &arrays,
                Some(format!("gpu: kernel {} of `{function}` could not be launched ({e}): it runs on the CPU", k.name)),
            ),
        };
        let rt = self.rt.as_mut().expect("runtime");
        rt.launched(&k.name, &written_rows);
        let now = rt.stats();
        self.account(before, now);
        self.launched_kernel(ev);
        self.pending.push(Pending {
            slot,
            sites: k.sites.clone(),
            function: function.to_string(),
        });
        // Loop variables hold the last point afterwards, as the CPU backends leave them.
        for (d, var) in k.loop_vars.iter().enumerate() {
            let last = starts[d].wrapping_add(((counts[d] - 1) as i64).wrapping_mul(steps[d]));
            let v = match k.vars[*var].1 {
                Type::Scalar {
                    elem: ScalarType::I32,
                } => Scalar::I32(last as i32),
                _ => Scalar::I64(last),
            };
            env.set_scalar(*var, v);
        }
        Ok(Outcome::Done)
    }
}

/// Add a runtime's transfers since `before` to the process counters.
fn account(before: super::runtime::Stats, now: super::runtime::Stats) {
    let c = counters();
    c.uploads
        .fetch_add(now.uploads - before.uploads, Ordering::Relaxed);
    c.upload_bytes
        .fetch_add(now.upload_bytes - before.upload_bytes, Ordering::Relaxed);
    c.downloads
        .fetch_add(now.downloads - before.downloads, Ordering::Relaxed);
    c.download_bytes.fetch_add(
        now.download_bytes - before.download_bytes,
        Ordering::Relaxed,
    );
    c.device_copies
        .fetch_add(now.device_copies - before.device_copies, Ordering::Relaxed);
}
