//! Random numbers for VRIR's `random_*` library functions (docs/vrir-semantics.md,
//! "Random numbers"): where a draw comes from, and R's default generator reproduced
//! exactly for when no host supplies one.
//!
//! Every draw goes through [`draw`]: to the host's generator when the call has one (the
//! C API's `random` hook: R's adapter calls R's own `unif_rand`, `norm_rand`, `exp_rand`
//! and `R_unif_index`, so compiled code and R consume one stream), otherwise to this
//! process's built-in stream, [`RStream`]: R's defaults (`Mersenne-Twister`,
//! `Inversion`, `Rejection`) bit for bit, seeded as R's `set.seed` seeds them. The
//! built-in stream is seeded by [`set_seed`] (`vr run --seed`, `vr_random_seed` in the C
//! API), else from `VR_SEED`, else from the clock and process id, as R seeds itself when
//! no seed was set.
//!
//! One stream, drawn from in program order: the verifier keeps draws out of parfor
//! bodies and GPU sections, so every draw happens on the thread that made the call.

pub mod draws;
pub mod mersenne;

use mersenne::MersenneTwister;
use std::os::raw::c_void;
use std::sync::Mutex;

/// The kinds of draw, with the codes they have in generated code and the C API
/// (`VR_RANDOM_UNIF` ...).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Draw {
    /// Uniform on the open interval (0, 1): R's `unif_rand()`.
    Unif = 0,
    /// Standard normal: R's `norm_rand()`.
    Norm = 1,
    /// Standard exponential: R's `exp_rand()`.
    Exp = 2,
    /// Uniform integer-valued double in [0, dn): R's `R_unif_index(dn)`.
    Index = 3,
}

impl Draw {
    pub const ALL: [Draw; 4] = [Draw::Unif, Draw::Norm, Draw::Exp, Draw::Index];

    pub fn from_code(code: i32) -> Option<Draw> {
        Draw::ALL.into_iter().find(|d| *d as i32 == code)
    }

    /// The VRIR library function that makes this draw.
    pub fn lib_name(self) -> &'static str {
        match self {
            Draw::Unif => "random_unif",
            Draw::Norm => "random_norm",
            Draw::Exp => "random_exp",
            Draw::Index => "random_index",
        }
    }
}

/// `.Random.seed[1]` of R's defaults: Mersenne-Twister (3) + 100 * Inversion (4) +
/// 10000 * Rejection (1).
pub const R_DEFAULT_KINDS: i32 = 10403;

/// Words of R's `.Random.seed` for these kinds: the kinds word, then the generator's 625.
pub const R_SEED_WORDS: usize = 626;

/// R's default generator: a Mersenne-Twister state and the transformations of
/// [`draws`] on top of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RStream {
    mt: MersenneTwister,
}

impl RStream {
    /// The stream after R's `set.seed(seed)` (R's integer seed, negative ones included).
    pub fn seeded(seed: i32) -> RStream {
        RStream {
            mt: MersenneTwister::seeded(seed as u32),
        }
    }

    /// The stream R's `.Random.seed` describes (626 integers, the first one the kinds,
    /// which must be R's defaults).
    pub fn from_r_seed(words: &[i32]) -> Result<RStream, String> {
        if words.len() != R_SEED_WORDS {
            return Err(format!(
                ".Random.seed has {} words; R's default generator has {R_SEED_WORDS}",
                words.len()
            ));
        }
        let kinds = words[0];
        if kinds % 100 != 3 || kinds % 10000 / 100 != 4 || kinds % 100000 / 10000 != 1 {
            return Err(format!(
                ".Random.seed[1] is {kinds}: only R's default kinds (Mersenne-Twister, Inversion, Rejection: {R_DEFAULT_KINDS}) are built in"
            ));
        }
        let mut state = [0i32; R_SEED_WORDS - 1];
        state.copy_from_slice(&words[1..]);
        Ok(RStream {
            mt: MersenneTwister::from_words(&state, time_seed() as u32),
        })
    }

    /// The state as R's `.Random.seed` (626 integers).
    pub fn r_seed(&self) -> Vec<i32> {
        let mut out = Vec::with_capacity(R_SEED_WORDS);
        out.push(R_DEFAULT_KINDS);
        out.extend_from_slice(&self.mt.words());
        out
    }

    pub fn unif_rand(&mut self) -> f64 {
        self.mt.unif_rand()
    }

    pub fn norm_rand(&mut self) -> f64 {
        draws::norm_rand(&mut || self.mt.unif_rand())
    }

    pub fn exp_rand(&mut self) -> f64 {
        draws::exp_rand(&mut || self.mt.unif_rand())
    }

    pub fn unif_index(&mut self, dn: f64) -> f64 {
        draws::unif_index(&mut || self.mt.unif_rand(), dn)
    }

    /// One draw of `kind` (`arg` is `random_index`'s `dn`, unused by the others).
    pub fn draw(&mut self, kind: Draw, arg: f64) -> f64 {
        match kind {
            Draw::Unif => self.unif_rand(),
            Draw::Norm => self.norm_rand(),
            Draw::Exp => self.exp_rand(),
            Draw::Index => self.unif_index(arg),
        }
    }
}

/// A host's generator (the C API's `random` hook): writes one draw of `kind` (a
/// [`Draw`] code; `arg` is `dn` for [`Draw::Index`]) to `out` and returns 0, or returns
/// non-zero when it cannot (the call then fails with an `unsupported` error, so a host
/// with an interpreter runs the function there).
pub type HostDrawFn =
    unsafe extern "C" fn(user_data: *mut c_void, kind: i32, arg: f64, out: *mut f64) -> i32;

/// A host's generator and the pointer it is handed back.
#[derive(Clone, Copy, Debug)]
pub struct HostRandom {
    pub draw: HostDrawFn,
    pub user_data: *mut c_void,
}

// SAFETY: the host promises its hook may be called from the threads that call compiled
// functions (the C API's contract for every hook); draws are made only on the thread of
// the call (the verifier keeps them out of parallel code).
unsafe impl Send for HostRandom {}
unsafe impl Sync for HostRandom {}

/// The process's built-in stream; `None` until first used or seeded.
static STREAM: Mutex<Option<RStream>> = Mutex::new(None);

fn stream() -> std::sync::MutexGuard<'static, Option<RStream>> {
    STREAM.lock().unwrap_or_else(|p| p.into_inner())
}

/// Seed the built-in stream as R's `set.seed(seed)` does.
pub fn set_seed(seed: i32) {
    *stream() = Some(RStream::seeded(seed));
}

/// Replace the built-in stream's state by R's `.Random.seed` (see [`RStream::from_r_seed`]).
pub fn set_r_seed(words: &[i32]) -> Result<(), String> {
    let s = RStream::from_r_seed(words)?;
    *stream() = Some(s);
    Ok(())
}

/// The built-in stream's state as R's `.Random.seed` (seeding it first if needed).
pub fn r_seed() -> Result<Vec<i32>, String> {
    with_stream(|s| s.r_seed())
}

/// A seed from the clock and the process id (R's `TimeToSeed` does the same).
fn time_seed() -> i32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mixed =
        ((now.subsec_nanos() as u64) << 16) ^ now.as_secs() ^ ((std::process::id() as u64) << 16);
    mixed as u32 as i32
}

/// The seed a fresh built-in stream starts from: `VR_SEED`, else the clock.
fn initial_seed() -> Result<i32, String> {
    match std::env::var("VR_SEED") {
        Ok(v) => v
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|s| i32::try_from(s).ok())
            .ok_or_else(|| format!("VR_SEED={v:?} is not an integer seed (R's set.seed takes -2147483647 to 2147483647)")),
        Err(_) => Ok(time_seed()),
    }
}

/// Run `f` on the built-in stream, seeding it first if nothing has.
pub fn with_stream<R>(f: impl FnOnce(&mut RStream) -> R) -> Result<R, String> {
    let mut g = stream();
    if g.is_none() {
        *g = Some(RStream::seeded(initial_seed()?));
    }
    Ok(f(g.as_mut().expect("seeded above")))
}

/// One draw: from the host's generator when there is one, else from the built-in
/// stream. The error is a message for an `unsupported` error.
pub fn draw(host: Option<&HostRandom>, kind: Draw, arg: f64) -> Result<f64, String> {
    match host {
        Some(h) => {
            let mut out = f64::NAN;
            // SAFETY: the host registered this hook with this user data (C API contract).
            let status = unsafe { (h.draw)(h.user_data, kind as i32, arg, &mut out) };
            if status == 0 {
                Ok(out)
            } else {
                Err(format!(
                    "the host's random number generator refused `{}` (status {status}); the host may run the function itself",
                    kind.lib_name()
                ))
            }
        }
        None => with_stream(|s| s.draw(kind, arg)),
    }
}

#[cfg(test)]
// R's numbers are written as R prints them with 17 significant digits.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn r_seed_round_trips_and_checks_kinds() {
        let mut s = RStream::seeded(3);
        s.norm_rand();
        let words = s.r_seed();
        assert_eq!(words[0], R_DEFAULT_KINDS);
        assert_eq!(RStream::from_r_seed(&words).unwrap(), s);
        let mut other = words.clone();
        other[0] = 10401; // Marsaglia-Multicarry
        assert!(RStream::from_r_seed(&other).unwrap_err().contains("10401"));
        assert!(RStream::from_r_seed(&words[..10]).is_err());
    }

    /// R 4.2.2: `set.seed(42); rnorm(3); rexp(3); sample(10)` (each after its own
    /// `set.seed(42)`), printed with 17 digits.
    #[test]
    fn draws_are_r() {
        let mut s = RStream::seeded(42);
        let n: Vec<f64> = (0..3).map(|_| s.norm_rand()).collect();
        assert_eq!(
            n,
            [
                1.37095844714666848,
                -0.56469817139608869,
                0.36312841133733920
            ]
        );
        let mut s = RStream::seeded(42);
        let e: Vec<f64> = (0..3).map(|_| s.exp_rand()).collect();
        assert_eq!(
            e,
            [
                0.19833681178388843,
                0.66089525213465095,
                0.28349103778600693
            ]
        );
        // sample(10): the permutation algorithm of R's do_sample.
        let mut s = RStream::seeded(42);
        let mut x: Vec<i32> = (0..10).collect();
        let mut n = 10usize;
        let mut out = Vec::new();
        for _ in 0..10 {
            let j = s.unif_index(n as f64) as usize;
            out.push(x[j] + 1);
            n -= 1;
            x[j] = x[n];
        }
        assert_eq!(out, [1, 5, 10, 8, 2, 4, 6, 9, 7, 3]);
    }

    #[test]
    fn host_refusal_is_an_error_naming_the_draw() {
        unsafe extern "C" fn refuse(_: *mut c_void, _: i32, _: f64, _: *mut f64) -> i32 {
            7
        }
        let h = HostRandom {
            draw: refuse,
            user_data: std::ptr::null_mut(),
        };
        let e = draw(Some(&h), Draw::Norm, 0.0).unwrap_err();
        assert!(e.contains("random_norm") && e.contains("status 7"), "{e}");
    }
}
