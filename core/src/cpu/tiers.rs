//! Tiered compilation: quick machine code for the first calls, full-strength code
//! swapped in when a background compile of the same module finishes (issue 18, compile
//! latency).
//!
//! Why: LLVM is 85-95% of a compile: `default<O2>` about half, machine code generation
//! the other half. The quick tier runs a short cleanup pipeline instead (inlining, SROA,
//! early CSE, instcombine, simplifycfg: no loop passes, no vectorizer) and the code
//! generator at -O1: 2-3x less compile time, on code our own optimizer has already
//! cleaned up (bounds checks, invariant code, fusion), so it runs within 1.0-1.4x of the
//! full tier on the bench kernels (bench/RESULTS.md, "Tiered compilation"; LLVM's fast
//! instruction selector and register allocator would compile 5-8x faster, but their loop
//! code ran 3-4.5x slower: a first call that loops long would lose more than the compile
//! saves). The full tier (`default<O2>`, the code generator at -O2) is compiled on a
//! thread of its own; every call that starts after it is ready runs it. A call that is
//! running keeps the code it started with: the quick module stays alive as long as the
//! compiled module does.
//!
//! Both tiers are compiled from the same VRIR with the same code generator, and LLVM's
//! passes keep IEEE semantics (no fast-math flags are emitted), so the tiers return the
//! same bits and record the same errors; only their speed differs.
//!
//! What is not tiered: modules with GPU sections (their code holds the engine's plan),
//! and every compile unless a host asks (C API `tiers=quick-first`, R
//! `vr_options(tiers = )`, `VR_TIERS`; see [`setting`] for why not by default).

use super::jit::JitModule;
use crate::runtime::error::VrResult;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// `VR_TIERS`, read once per process: `quick-first` (hosts compile quick first and
/// tier up in the background; also the C API's `tiers` configuration and R's
/// `vr_options(tiers = )`), `quick` (every cpu compile of `backend::execute`, so
/// `vr run` and `vr test`, at the quick tier alone: to test and measure it), anything
/// else or unset: one compile at full strength. Not the default: a first call that runs
/// longer than about twice the compile time saved loses more (1.0-1.5x slower code)
/// than it gains (bench/RESULTS.md, "Tiered compilation").
fn setting() -> &'static str {
    static SET: OnceLock<String> = OnceLock::new();
    SET.get_or_init(|| std::env::var("VR_TIERS").unwrap_or_default())
}

/// Whether hosts compile quick first (`VR_TIERS=quick-first`).
pub fn requested() -> bool {
    setting() == "quick-first"
}

/// Whether `backend::execute` compiles at the quick tier alone (`VR_TIERS=quick`).
pub fn quick_only() -> bool {
    setting() == "quick"
}

/// The full-strength code of a module compiled quick first, once the background
/// compile has made it.
pub(super) struct TierUp {
    full: OnceLock<FullCode>,
    state: Mutex<State>,
    changed: Condvar,
    started: Instant,
}

/// Background compiles still running in this process (`wait_all`).
static PENDING: super::interrupt::Outstanding = super::interrupt::Outstanding::new();

/// Wait at most `timeout` for every background compile of this process to end (the
/// reports that count what they do, such as the disk cache's writes, read after it).
pub fn wait_all(timeout: Duration) {
    PENDING.wait_zero(timeout);
}

/// What a background compile makes: the full tier, and what it did with the on-disk
/// cache (None without one).
pub type Full = (super::CompiledModule, Option<String>);

/// JIT code is immutable once made and only freed when dropped (the reason
/// `CompiledModule` is Send and Sync): it may be made on one thread and run on others.
struct FullCode(JitModule);
// SAFETY: see above; the engine is touched again only by its Drop.
unsafe impl Send for FullCode {}
unsafe impl Sync for FullCode {}

#[derive(Clone, Debug)]
enum State {
    Compiling,
    /// Swapped in this long after the quick tier; what it did with the on-disk cache.
    Ready(Duration, Option<String>),
    Failed(String),
}

impl TierUp {
    /// The full tier's entry of `func`, when it is ready.
    pub(super) fn entry(&self, func: &str) -> Option<super::jit::EntryFn> {
        self.full.get().and_then(|f| f.0.entry(func))
    }

    /// Wait at most `timeout` for the background compile to end; whether the full tier
    /// is ready.
    pub(super) fn wait(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while matches!(*state, State::Compiling) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = self.changed.wait_timeout(state, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        self.full.get().is_some()
    }

    /// What the background compile did with the on-disk cache, once it ended.
    pub(super) fn disk(&self) -> Option<String> {
        match &*self.state.lock().unwrap_or_else(|p| p.into_inner()) {
            State::Ready(_, disk) => disk.clone(),
            State::Compiling | State::Failed(_) => None,
        }
    }

    /// One line for `explain`: which tier runs and why.
    pub(super) fn report(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match state {
            State::Compiling => format!(
                "quick (short LLVM pipeline); the full-strength code is compiling in the background ({:.0} ms so far)",
                self.started.elapsed().as_secs_f64() * 1e3
            ),
            State::Ready(after, _) => format!(
                "full strength (swapped in {:.1} ms after the quick tier was ready; calls before ran the quick tier)",
                after.as_secs_f64() * 1e3
            ),
            State::Failed(why) => format!("quick (short LLVM pipeline): the full-strength compile failed: {why}"),
        }
    }
}

/// Start compiling the full tier on a thread of its own with `compile_full` (which
/// makes a whole module: in memory, or through the on-disk cache), and return what
/// the quick module will ask. The process waits for the thread at exit (LLVM's static
/// destructors must not run under it); an interrupt that stops the background compile
/// leaves the quick tier in place.
pub(super) fn start(compile_full: impl FnOnce() -> VrResult<Full> + Send + 'static) -> Arc<TierUp> {
    let tier = Arc::new(TierUp {
        full: OnceLock::new(),
        state: Mutex::new(State::Compiling),
        changed: Condvar::new(),
        started: Instant::now(),
    });
    let theirs = Arc::clone(&tier);
    let guards = (super::interrupt::background_work(), PENDING.enter());
    let spawned = std::thread::Builder::new()
        .name("vr-tier-up".into())
        .stack_size(8 << 20)
        .spawn(move || {
            let _guards = guards;
            let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(compile_full));
            let outcome = match made {
                Ok(Ok((full, disk))) => {
                    let _ = theirs.full.set(FullCode(full.into_jit()));
                    State::Ready(theirs.started.elapsed(), disk)
                }
                Ok(Err(e)) => State::Failed(e.message),
                Err(_) => State::Failed("a panic in the background compile".into()),
            };
            *theirs.state.lock().unwrap_or_else(|p| p.into_inner()) = outcome;
            theirs.changed.notify_all();
        });
    if let Err(e) = spawned {
        *tier.state.lock().unwrap_or_else(|p| p.into_inner()) =
            State::Failed(format!("no thread for the background compile: {e}"));
    }
    tier
}
