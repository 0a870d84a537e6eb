//! R's transformations of uniform draws, bit for bit, on top of any uniform source (R's
//! defaults: `normal.kind = "Inversion"`, `sample.kind = "Rejection"`; the exponential
//! has one algorithm). How many uniforms each consumes is part of the contract: compiled
//! code must leave the stream where R leaves it.
//!
//! - `norm_rand` (Inversion): two uniforms u1, u2; the normal quantile of
//!   `(trunc(2^27 * u1) + u2) / 2^27` (one uniform alone has only 32 bits).
//! - `qnorm`: Wichura's algorithm AS 241 (Applied Statistics 37, 1988), the rational
//!   approximations R uses for the lower tail (`qnorm(p, 0, 1)`), with R's choice of
//!   branch points (|p - 0.5| <= 0.425, then r = sqrt(-log(min(p, 1 - p))) <= 5) and R's
//!   `1 - p` written as `0.5 - p + 0.5`.
//! - `exp_rand`: Ahrens and Dieter (1972), algorithm SA, with the table of partial sums
//!   of ln(2)^k / k! that R uses.
//! - `unif_index(dn)` (Rejection): with `bits = ceil(log2(dn))`, draw `bits` random bits
//!   (as 16-bit chunks, one uniform each, `floor(65536 * u)`, one chunk more than
//!   `bits / 16`), and retry while the number is not below `dn`.

// The coefficients are written with the digits AS 241 (and R) publish, so they can be
// checked against the paper; they parse to the same doubles as shorter forms.
#![allow(clippy::excessive_precision)]

/// The normal quantile at `p` (lower tail, mean 0, sd 1), as R's `qnorm5(p, 0, 1, 1, 0)`.
pub fn qnorm(p: f64) -> f64 {
    if p.is_nan() {
        return p;
    }
    if p <= 0.0 {
        return if p == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    if p >= 1.0 {
        return if p == 1.0 { f64::INFINITY } else { f64::NAN };
    }
    let q = p - 0.5;
    let val = if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        q * (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r
            + 67265.770927008700853)
            * r
            + 45921.953931549871457)
            * r
            + 13731.693765509461125)
            * r
            + 1971.5909503065514427)
            * r
            + 133.14166789178437745)
            * r
            + 3.387132872796366608)
            / (((((((r * 5226.495278852854561 + 28729.085735721942674) * r
                + 39307.89580009271061)
                * r
                + 21213.794301586595867)
                * r
                + 5394.1960214247511077)
                * r
                + 687.1870074920579083)
                * r
                + 42.313330701600911252)
                * r
                + 1.0)
    } else {
        // The smaller tail, 1 - p written as R writes it.
        let tail = if q > 0.0 { 0.5 - p + 0.5 } else { p };
        let mut r = (-tail.ln()).sqrt();
        let v = if r <= 5.0 {
            r -= 1.6;
            (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r
                + 0.24178072517745061177)
                * r
                + 1.27045825245236838258)
                * r
                + 3.64784832476320460504)
                * r
                + 5.7694972214606914055)
                * r
                + 4.6303378461565452959)
                * r
                + 1.42343711074968357734)
                / (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r
                    + 0.0151986665636164571966)
                    * r
                    + 0.14810397642748007459)
                    * r
                    + 0.68976733498510000455)
                    * r
                    + 1.6763848301838038494)
                    * r
                    + 2.05319162663775882187)
                    * r
                    + 1.0)
        } else if r >= 816.0 {
            // Only reachable with log probabilities, never by a draw; R's asymptote.
            r * std::f64::consts::SQRT_2
        } else {
            r -= 5.0;
            (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r
                + 0.0012426609473880784386)
                * r
                + 0.026532189526576123093)
                * r
                + 0.29656057182850489123)
                * r
                + 1.7848265399172913358)
                * r
                + 5.4637849111641143699)
                * r
                + 6.6579046435011037772)
                / (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r
                    + 1.8463183175100546818e-5)
                    * r
                    + 7.868691311456132591e-4)
                    * r
                    + 0.0148753612908506148525)
                    * r
                    + 0.13692988092273580531)
                    * r
                    + 0.59983220655588793769)
                    * r
                    + 1.0)
        };
        if q < 0.0 {
            -v
        } else {
            v
        }
    };
    // R returns `mu + sigma * val`: 0 + 1 * val (turns -0 into +0, as R does).
    0.0 + 1.0 * val
}

/// 2^27: how finely the first uniform of a normal draw is cut.
const BIG: f64 = 134_217_728.0;

/// R's `norm_rand()` for `normal.kind = "Inversion"`: two uniforms.
pub fn norm_rand(unif: &mut impl FnMut() -> f64) -> f64 {
    let u1 = unif();
    // C's `(int)(BIG * u1)`: truncation toward zero (u1 is in (0, 1)).
    let u1 = (BIG * u1).trunc() + unif();
    qnorm(u1 / BIG)
}

/// sum(ln(2)^k / k!) for k = 1..=16, as R's `exp_rand` tabulates it.
const EXP_Q: [f64; 16] = [
    std::f64::consts::LN_2, // 0.6931471805599453 in R's table: the same double
    0.9333736875190459,
    0.9888777961838675,
    0.9984959252914960,
    0.9998292811061389,
    0.9999833164100727,
    0.9999985691438767,
    0.9999998906925558,
    0.9999999924734159,
    0.9999999995283275,
    0.9999999999728814,
    0.9999999999985598,
    0.9999999999999289,
    0.9999999999999968,
    0.9999999999999999,
    1.0000000000000000,
];

/// R's `exp_rand()`: a standard exponential (Ahrens and Dieter's algorithm SA).
pub fn exp_rand(unif: &mut impl FnMut() -> f64) -> f64 {
    let mut a = 0.0;
    let mut u = unif();
    while u <= 0.0 || u >= 1.0 {
        u = unif();
    }
    loop {
        u += u;
        if u > 1.0 {
            break;
        }
        a += EXP_Q[0];
    }
    u -= 1.0;
    if u <= EXP_Q[0] {
        return a + u;
    }
    let mut i = 0;
    let mut umin = unif();
    loop {
        let ustar = unif();
        if umin > ustar {
            umin = ustar;
        }
        i += 1;
        if u <= EXP_Q[i] {
            break;
        }
    }
    a + umin * EXP_Q[0]
}

/// `bits` random bits (bits <= 52 for the result to be exact), in 16-bit chunks.
fn rbits(unif: &mut impl FnMut() -> f64, bits: i32) -> f64 {
    let mut v: u64 = 0;
    let mut n = 0;
    while n <= bits {
        let chunk = (unif() * 65536.0).floor() as i64 as u64;
        v = v.wrapping_mul(65536).wrapping_add(chunk);
        n += 16;
    }
    let mask = 1u64.checked_shl(bits as u32).map_or(u64::MAX, |b| b - 1);
    (v & mask) as f64
}

/// R's `R_unif_index(dn)` for `sample.kind = "Rejection"`: an integer-valued double,
/// uniform on 0, 1, ..., ceil(dn) - 1; 0 (and no draw) when `dn <= 0`.
pub fn unif_index(unif: &mut impl FnMut() -> f64, dn: f64) -> f64 {
    if dn <= 0.0 || dn.is_nan() {
        // R: `dn <= 0` returns 0; NaN never reaches it (sample checks first), and
        // `ceil(log2(NaN))` would be undefined: treat it like 0.
        return 0.0;
    }
    let bits = dn.log2().ceil() as i32;
    loop {
        let dv = rbits(unif, bits);
        if dn > dv {
            return dv;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R 4.2.2, `print(qnorm(p), digits = 17)` for p in each branch.
    #[test]
    fn qnorm_is_r() {
        let cases = [
            (0.5, 0.0),
            (0.975, 1.9599639845400536),
            (0.025, -1.9599639845400538),
            (1e-5, -4.2648907939228256),
            (1e-15, -7.9413453261709952),
        ];
        for (p, want) in cases {
            assert_eq!(qnorm(p), want, "qnorm({p})");
        }
        assert_eq!(qnorm(0.0), f64::NEG_INFINITY);
        assert_eq!(qnorm(1.0), f64::INFINITY);
    }

    #[test]
    fn unif_index_of_one_draws_once_and_gives_zero() {
        let mut calls = 0;
        let mut u = || {
            calls += 1;
            0.7
        };
        assert_eq!(unif_index(&mut u, 1.0), 0.0);
        assert_eq!(calls, 1);
    }

    #[test]
    fn unif_index_rejects_values_not_below_dn() {
        // bits = 2 for dn = 3: one 16-bit chunk per try, masked to 2 bits; a chunk of
        // 3 is rejected, then 1 accepted.
        let draws = [3.5 / 65536.0, 1.5 / 65536.0];
        let mut k = 0;
        let mut u = || {
            k += 1;
            draws[k - 1]
        };
        assert_eq!(unif_index(&mut u, 3.0), 1.0);
        assert_eq!(k, 2);
    }
}
