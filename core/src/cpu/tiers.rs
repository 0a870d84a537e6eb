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
//! `backend::execute`'s compiles (`vr run`, `vr test`, the bench binaries: they measure
//! one tier), and a host's compiles when it asks for `full` (C API `tiers=full`, R
//! `vr_options(tiers = "full")`, `VR_TIERS=full`). Hosts default to `auto` (measured in
//! bench/RESULTS.md, "First calls in R"); see [`Tiers`] for the choices.
//!
//! `auto` decides per call from the call's own size: while the full tier compiles, a
//! call whose estimated work (`analysis::work`, evaluated with its arguments) would run
//! long enough that the quick tier's slower code costs more than the rest of the
//! compile waits for the full tier (at most half its estimated run time); a short call
//! runs the quick tier at once. Both compiles start together on a machine with two or
//! more cores, so a long first call waits no longer than a compile at full strength.

use super::jit::JitModule;
use crate::analysis::work::{Cost, Known, Work};
use crate::runtime::error::VrResult;
use crate::vrir::ast::Module;
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How a host's compiles use the tiers (C API `tiers=`, R `vr_options(tiers = )`,
/// `VR_TIERS` for the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tiers {
    /// One compile at full strength; the first call waits for it.
    Full,
    /// The quick tier for every call until the full tier is ready. A first call that
    /// runs longer than about twice the compile time saved loses more (1.0-1.5x slower
    /// code) than it gains (bench/RESULTS.md, "Tiered compilation").
    QuickFirst,
    /// Quick first, but a call whose estimated work is long waits for the full tier
    /// (the module doc). The hosts' default.
    #[default]
    Auto,
}

impl Tiers {
    /// `full`, `quick-first` or `auto`.
    pub fn parse(s: &str) -> Option<Tiers> {
        match s {
            "full" => Some(Tiers::Full),
            "quick-first" => Some(Tiers::QuickFirst),
            "auto" => Some(Tiers::Auto),
            _ => None,
        }
    }

    /// Whether the quick tier is compiled first.
    pub fn tiered(self) -> bool {
        self != Tiers::Full
    }
}

/// `VR_TIERS`, read once per process: `full`, `quick-first` or `auto` (the hosts'
/// default, see [`Tiers`]), `quick` (every cpu compile of `backend::execute`, so `vr
/// run` and `vr test`, at the quick tier alone: to test and measure it; hosts then keep
/// `auto`); anything else or unset: `auto`.
fn setting() -> &'static str {
    static SET: OnceLock<String> = OnceLock::new();
    SET.get_or_init(|| std::env::var("VR_TIERS").unwrap_or_default())
}

/// The hosts' default (`VR_TIERS`).
pub fn requested() -> Tiers {
    Tiers::parse(setting()).unwrap_or_default()
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
    /// `Tiers::Auto`: calls estimate their work while the full tier compiles.
    gate: Option<Gate>,
}

/// What `auto` keeps: each function's work (made on its first estimated call) and what
/// the first estimated call chose, for `explain`.
#[derive(Default)]
struct Gate {
    works: Mutex<HashMap<String, Arc<Work>>>,
    first_choice: OnceLock<String>,
    /// How long the quick tier took to compile.
    quick_compile: OnceLock<Duration>,
}

/// Weighted operations (`analysis::work`) the full tier runs per second, and bytes it
/// moves per second. Measured: with these, the estimates of the 14 R bench kernels
/// (loops and array style, bench/r/array_style.R's sizes) are 0.3-4.5x their run times
/// on a 2-core EPYC (median 1.3x); an estimate that is short by 3x costs a first call
/// at most the quick tier's excess over a run 3x longer than estimated.
const FULL_TIER_OPS_PER_S: f64 = 4e9;
const FULL_TIER_BYTES_PER_S: f64 = 16e9;

/// What the quick tier's code costs over the full tier's: 1.24x the run time (median
/// over the bench kernels; bench/RESULTS.md, "Tiered compilation"), 1.5x at worst. A
/// call waits for the full tier when the expected excess is longer than what is left
/// of the full compile, and at most the worst excess, so that waiting never costs more
/// than the quick tier would.
const QUICK_TIER_EXCESS: f64 = 0.24;
const QUICK_TIER_WORST_EXCESS: f64 = 0.5;

/// A full compile takes about this many times the quick one (the bench kernels: 61.2
/// against 24.1 ms in VRIR, 220 against 103 ms in R's array style).
const FULL_OVER_QUICK_COMPILE: f64 = 2.5;

/// How long a call whose work could not be estimated (a `while` without a counted
/// bound, recursion, arrays of unknown extent) waits for the full tier: as long as the
/// compile takes, as with `Tiers::Full`.
const GUESSED_WAIT: Duration = Duration::from_secs(600);

/// A call argument, as the tier choice sees it: a scalar's value, an array's extents.
#[derive(Clone, Debug)]
pub enum ArgSize {
    Scalar(Option<f64>),
    Array(Vec<f64>),
}

/// The work of a call of `f` (`work`: `Work::of_function`) with arguments of `sizes`,
/// and the seconds the full tier would take for it (one core, the rates above).
pub fn estimate(work: &Work, f: &crate::vrir::ast::Function, sizes: &[ArgSize]) -> (Cost, f64) {
    let mut extents = HashMap::new();
    let mut scalars = Vec::new();
    for (p, a) in f.params.iter().zip(sizes) {
        match a {
            ArgSize::Scalar(v) => scalars.extend(v.map(|v| (p.name.as_str(), v))),
            ArgSize::Array(d) => {
                extents.insert(p.name.as_str(), d.as_slice());
            }
        }
    }
    let dims = |name: &str, axis: u32| extents.get(name).and_then(|d| d.get(axis as usize)).copied();
    let mut known = Known::new(&dims);
    for (name, v) in scalars {
        known.set(name, v);
    }
    let cost = work.evaluate(&mut known);
    let seconds = (cost.ops / FULL_TIER_OPS_PER_S).max(cost.bytes / FULL_TIER_BYTES_PER_S);
    (cost, seconds)
}

/// How long a call of this estimate (`seconds` at full strength) waits for the full
/// tier, `left` being what is expected of its compile still: None (run the quick tier
/// now) when the quick tier's expected excess is shorter than that; else at most its
/// worst excess; the whole compile when the estimate had to guess.
pub fn wait_limit(cost: &Cost, seconds: f64, left: Duration) -> Option<Duration> {
    if cost.guessed {
        Some(GUESSED_WAIT)
    } else if seconds * QUICK_TIER_EXCESS > left.as_secs_f64() {
        Some(Duration::from_secs_f64(seconds * QUICK_TIER_WORST_EXCESS))
    } else {
        None
    }
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
    /// Swapped in this long after its background compile started; what it did with the
    /// on-disk cache.
    Ready(Duration, Option<String>),
    Failed(String),
}

impl TierUp {
    /// Before a call of `func` (in `module`, with arguments of `sizes`) starts: under
    /// `auto`, while the full tier compiles, wait for it when the call's estimated work
    /// is long (see the module doc).
    pub(super) fn before_call(&self, module: &Module, func: &str, sizes: impl FnOnce() -> Vec<ArgSize>) {
        let Some(gate) = &self.gate else { return };
        if self.full.get().is_some() || !matches!(*self.lock_state(), State::Compiling) {
            return;
        }
        let Some(f) = module.function(func) else { return };
        let work = Arc::clone(
            gate.works
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(func.to_string())
                .or_insert_with(|| Arc::new(Work::of_function(module, f))),
        );
        let (cost, seconds) = estimate(&work, f, &sizes());
        // What is left of the full compile, from how long the quick one took.
        let quick = *gate.quick_compile.get().unwrap_or(&Duration::ZERO);
        let left = quick.mul_f64(FULL_OVER_QUICK_COMPILE).saturating_sub(self.started.elapsed());
        let waited_for = wait_limit(&cost, seconds, left);
        let waited = waited_for.map(|limit| (self.wait(limit), self.started.elapsed()));
        let estimate = if cost.guessed {
            format!("{:.2e} operations with some trip counts guessed", cost.ops)
        } else {
            format!("{:.2e} operations, {:.2e} bytes: about {:.1} ms at full strength", cost.ops, cost.bytes, seconds * 1e3)
        };
        let choice = match waited {
            None => format!("`{func}`'s first call ({estimate}) ran the quick tier"),
            Some((true, at)) => format!(
                "`{func}`'s first call ({estimate}) waited for the full tier (ready {:.1} ms after its compile started)",
                at.as_secs_f64() * 1e3
            ),
            Some((false, _)) => format!(
                "`{func}`'s first call ({estimate}) waited {:.1} ms for the full tier, then ran the quick one",
                waited_for.unwrap_or_default().as_secs_f64() * 1e3
            ),
        };
        let _ = gate.first_choice.set(choice);
    }

    /// The quick tier took `took` to compile (what `auto` expects of the full one).
    pub(super) fn quick_compiled_in(&self, took: Duration) {
        if let Some(g) = &self.gate {
            let _ = g.quick_compile.set(took);
        }
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The full tier's entry of `func`, when it is ready.
    pub(super) fn entry(&self, func: &str) -> Option<super::jit::EntryFn> {
        self.full.get().and_then(|f| f.0.entry(func))
    }

    /// Wait at most `timeout` for the background compile to end; whether the full tier
    /// is ready.
    pub(super) fn wait(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.lock_state();
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
        match &*self.lock_state() {
            State::Ready(_, disk) => disk.clone(),
            State::Compiling | State::Failed(_) => None,
        }
    }

    /// One line for `explain`: which tier runs and why (under `auto`, with what the
    /// first estimated call chose).
    pub(super) fn report(&self) -> String {
        let state = self.lock_state().clone();
        let line = match state {
            State::Compiling => format!(
                "quick (short LLVM pipeline); the full-strength code is compiling in the background ({:.0} ms so far)",
                self.started.elapsed().as_secs_f64() * 1e3
            ),
            State::Ready(after, _) => format!(
                "full strength (swapped in {:.1} ms after its background compile started; calls before ran the quick tier)",
                after.as_secs_f64() * 1e3
            ),
            State::Failed(why) => format!("quick (short LLVM pipeline): the full-strength compile failed: {why}"),
        };
        match self.gate.as_ref().and_then(|g| g.first_choice.get()) {
            Some(choice) => format!("{line}; tiers auto: {choice}"),
            None => line,
        }
    }
}

/// `VR_TIER_UP_DELAY_MS=N`: the background compile starts N ms late, so that tests can
/// make calls while it is certainly still compiling (read at every start: tests set it
/// around one compile).
fn test_delay() -> Option<Duration> {
    let ms: u64 = std::env::var("VR_TIER_UP_DELAY_MS").ok()?.parse().ok()?;
    Some(Duration::from_millis(ms))
}

/// Start compiling the full tier on a thread of its own with `compile_full` (which
/// makes a whole module: in memory, or through the on-disk cache), and return what
/// the quick module will ask (`mode`: whether calls estimate their work). The process
/// waits for the thread at exit (LLVM's static destructors must not run under it); an
/// interrupt that stops the background compile leaves the quick tier in place.
pub(super) fn start(mode: Tiers, compile_full: impl FnOnce() -> VrResult<Full> + Send + 'static) -> Arc<TierUp> {
    let tier = Arc::new(TierUp {
        full: OnceLock::new(),
        state: Mutex::new(State::Compiling),
        changed: Condvar::new(),
        started: Instant::now(),
        gate: (mode == Tiers::Auto).then(Gate::default),
    });
    let theirs = Arc::clone(&tier);
    let guards = (super::interrupt::background_work(), PENDING.enter());
    let delay = test_delay();
    let spawned = std::thread::Builder::new()
        .name("vr-tier-up".into())
        .stack_size(8 << 20)
        .spawn(move || {
            let held = guards;
            if let Some(d) = delay {
                std::thread::sleep(d);
            }
            let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(compile_full));
            let outcome = match made {
                Ok(Ok((full, disk))) => {
                    let _ = theirs.full.set(FullCode(full.into_jit()));
                    State::Ready(theirs.started.elapsed(), disk)
                }
                Ok(Err(e)) => State::Failed(e.message),
                Err(_) => State::Failed("a panic in the background compile".into()),
            };
            *theirs.lock_state() = outcome;
            theirs.changed.notify_all();
            // This may be the last reference (the host freed the function meanwhile):
            // dropping it frees LLVM's module, which must happen before the count that
            // the process waits for at exit ends, not after (LLVM's static destructors
            // would run under it: a crash at exit).
            drop(theirs);
            super::interrupt::wait_at_exit_after_llvm();
            drop(held);
        });
    if let Err(e) = spawned {
        *tier.lock_state() = State::Failed(format!("no thread for the background compile: {e}"));
    }
    tier
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_calls_wait_short_ones_do_not_guessed_ones_wait_for_the_compile() {
        let known = Cost { ops: 0.0, bytes: 0.0, guessed: false };
        let guessed = Cost { guessed: true, ..known };
        let ms = Duration::from_millis;
        // 1 s of work: the quick tier's expected excess (0.24 s) is more than the 100 ms
        // left of the compile: wait, at most the worst excess (0.5 s).
        assert_eq!(wait_limit(&known, 1.0, ms(100)), Some(ms(500)));
        // 0.2 s: 48 ms expected excess < 100 ms left: run the quick tier now.
        assert_eq!(wait_limit(&known, 0.2, ms(100)), None);
        // The compile is (expected to be) done: any call waits the little that is left.
        assert_eq!(wait_limit(&known, 0.2, Duration::ZERO), Some(ms(100)));
        assert_eq!(wait_limit(&guessed, 0.0, ms(100)), Some(GUESSED_WAIT));
    }

    #[test]
    fn a_call_is_estimated_from_its_arguments() {
        // 10^6 iterations of an add (1), a division (4), a read (1 op, 8 bytes), a cast
        // (1) and the loop's own 1: 8e6 ops / 4e9 s against 8e6 bytes / 16e9 s.
        let m = crate::vrir::text::parse_module(
            "(module m :index-base 1 (function f ((x f64[1,col]) (n i64)) (f64) (locals (i i64) (s f64))
               (set s 0.0)
               (for (i) (range 1 n) (block (set s (+ s (/ (index x i) (cast f64 i))))))
               (return s)))",
        )
        .unwrap();
        let f = m.function("f").unwrap();
        let work = Work::of_function(&m, f);
        let (cost, seconds) = estimate(&work, f, &[ArgSize::Array(vec![1e6]), ArgSize::Scalar(Some(1e6))]);
        assert_eq!((cost.ops, cost.bytes, cost.guessed), (8e6, 8e6, false));
        assert_eq!(seconds, 8e6 / FULL_TIER_OPS_PER_S);
        // Without n the trip count is guessed.
        let (cost, _) = estimate(&work, f, &[ArgSize::Array(vec![1e6]), ArgSize::Scalar(None)]);
        assert!(cost.guessed);
    }
}
