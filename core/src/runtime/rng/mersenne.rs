//! R's default uniform generator, bit for bit: the Mersenne-Twister (MT19937) of
//! Matsumoto and Nishimura as R runs it, seeded the way R's `set.seed` seeds it.
//!
//! What R does differently from the reference MT19937, and what is reproduced here:
//! - the state is R's `.Random.seed[-1]`: 625 words, the position `mti` first, then the
//!   624 words of the twister (so the state can be compared with R's word for word);
//! - `set.seed(s)` scrambles `s` with 50 steps of the congruential generator
//!   `s <- 69069 * s + 1` (mod 2^32), then fills all 625 words with further steps (the
//!   position word included: R keeps that "for historical consistency") and sets the
//!   position to 624, so the first draw regenerates the whole block;
//! - a draw is the tempered 32-bit word times 2.3283064365386963e-10 (2^-32), moved into
//!   the open interval (0, 1): 0 becomes half of 1/(2^32 - 1), and a value that rounds
//!   to 1 becomes 1 minus that.
//!
//! Algorithm reference: M. Matsumoto and T. Nishimura (1998), "Mersenne Twister: a
//! 623-dimensionally equidistributed uniform pseudo-random number generator", ACM TOMACS
//! 8(1); R's documentation of `RNGkind` and `set.seed`. Checked against R's own numbers
//! and `.Random.seed` by `core/tests/rng_r.rs`.

/// Words of the twister state.
const N: usize = 624;
/// The middle word of the recurrence.
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;
const TEMPERING_MASK_B: u32 = 0x9d2c_5680;
const TEMPERING_MASK_C: u32 = 0xefc6_0000;

/// 1 / (2^32 - 1): R keeps draws this far (halved) from 0 and 1.
const I2_32M1: f64 = 2.328306437080797e-10;

/// The congruential step R uses for seeding.
fn lcg(s: u32) -> u32 {
    s.wrapping_mul(69069).wrapping_add(1)
}

/// The Mersenne-Twister state as R keeps it (`.Random.seed` without its first word).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MersenneTwister {
    /// Position of the next word in `mt` (R's `dummy[0]`); 624 or more: regenerate.
    mti: u32,
    mt: [u32; N],
}

impl MersenneTwister {
    /// The state `set.seed(seed)` leaves (R's `RNG_Init` for `Mersenne-Twister`).
    pub fn seeded(seed: u32) -> MersenneTwister {
        let mut s = seed;
        for _ in 0..50 {
            s = lcg(s);
        }
        let mut words = [0u32; N + 1];
        for w in words.iter_mut() {
            s = lcg(s);
            *w = s;
        }
        let mut mt = [0u32; N];
        mt.copy_from_slice(&words[1..]);
        let mut g = MersenneTwister { mti: words[0], mt };
        g.fix_up(true);
        g
    }

    /// A state from R's 625 words (`.Random.seed[-1]`), repaired as R repairs it when it
    /// reads `.Random.seed` (a non-positive position restarts the block; an all-zero
    /// twister would be re-seeded by R from the clock, here from `fallback_seed`).
    pub fn from_words(words: &[i32; N + 1], fallback_seed: u32) -> MersenneTwister {
        let mut mt = [0u32; N];
        for (m, w) in mt.iter_mut().zip(&words[1..]) {
            *m = *w as u32;
        }
        let mut g = MersenneTwister {
            mti: words[0] as u32,
            mt,
        };
        if g.mt.iter().all(|w| *w == 0) {
            return MersenneTwister::seeded(fallback_seed);
        }
        g.fix_up(false);
        g
    }

    /// R's `FixupSeeds` for this generator: an initial state starts a new block; a
    /// position that is not positive (as a signed word) does too.
    fn fix_up(&mut self, initial: bool) {
        if initial || (self.mti as i32) <= 0 {
            self.mti = N as u32;
        }
    }

    /// The state as R's 625 words (`.Random.seed[-1]`, as signed integers).
    pub fn words(&self) -> [i32; N + 1] {
        let mut out = [0i32; N + 1];
        out[0] = self.mti as i32;
        for (o, m) in out[1..].iter_mut().zip(&self.mt) {
            *o = *m as i32;
        }
        out
    }

    /// Fill `mt` with the classic MT19937 seeding (`sgenrand(4357)`), used by R only
    /// when the position says the state was never initialised (`mti == N + 1`).
    fn sgenrand(&mut self, seed: u32) {
        let mut s = seed;
        for w in self.mt.iter_mut() {
            let hi = s & 0xffff_0000;
            s = lcg(s);
            *w = hi | ((s & 0xffff_0000) >> 16);
            s = lcg(s);
        }
        self.mti = N as u32;
    }

    /// Regenerate the 624 words of the block.
    fn twist(&mut self) {
        let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        for k in 0..N {
            let y = (self.mt[k] & UPPER_MASK) | (self.mt[(k + 1) % N] & LOWER_MASK);
            self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag(y);
        }
        self.mti = 0;
    }

    /// The next tempered 32-bit word.
    fn next_word(&mut self) -> u32 {
        if self.mti as usize >= N {
            if self.mti as usize == N + 1 {
                self.sgenrand(4357);
            }
            self.twist();
        }
        let mut y = self.mt[self.mti as usize];
        self.mti += 1;
        y ^= y >> 11;
        y ^= (y << 7) & TEMPERING_MASK_B;
        y ^= (y << 15) & TEMPERING_MASK_C;
        y ^= y >> 18;
        y
    }

    /// R's `unif_rand()` for `Mersenne-Twister`: a double in the open interval (0, 1).
    pub fn unif_rand(&mut self) -> f64 {
        let x = self.next_word() as f64 * 2.328_306_436_538_696_3e-10;
        if x <= 0.0 {
            0.5 * I2_32M1
        } else if 1.0 - x <= 0.0 {
            1.0 - 0.5 * I2_32M1
        } else {
            x
        }
    }
}

#[cfg(test)]
// R's numbers are written as R prints them with 17 significant digits.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    /// The twist over `(k + 1) % N` and `(k + M) % N` is the reference code's three
    /// loops in one: check it against them written out.
    #[test]
    fn twist_matches_the_three_loop_form() {
        let mut a = MersenneTwister::seeded(42);
        let mut b = a.clone();
        a.twist();
        let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        let mt = &mut b.mt;
        for kk in 0..N - M {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag(y);
        }
        for kk in N - M..N - 1 {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag(y);
        }
        let y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag(y);
        assert_eq!(a.mt, b.mt);
    }

    /// R 4.2.2: `set.seed(42); .Random.seed[1:4]` is 10403 624 507561766 1260545903.
    #[test]
    fn seeding_is_r_set_seed() {
        let w = MersenneTwister::seeded(42).words();
        assert_eq!(&w[..3], &[624, 507561766, 1260545903]);
    }

    /// R 4.2.2: `set.seed(42); print(runif(3), digits = 17)`.
    #[test]
    fn first_draws_are_r_runif() {
        let mut g = MersenneTwister::seeded(42);
        let got: Vec<f64> = (0..3).map(|_| g.unif_rand()).collect();
        assert_eq!(
            got,
            [
                0.91480604349635541,
                0.93707541329786181,
                0.28613953478634357
            ]
        );
    }

    #[test]
    fn words_round_trip() {
        let mut g = MersenneTwister::seeded(7);
        for _ in 0..1000 {
            g.unif_rand();
        }
        let back = MersenneTwister::from_words(&g.words(), 1);
        assert_eq!(back, g);
    }
}
