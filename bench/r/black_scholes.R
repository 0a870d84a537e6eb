# black_scholes (bench/kernels/black_scholes.vrir, bench/c/black_scholes.c) in R: call
# and put prices of European options; returns them as the columns of an n x 2 matrix.
cnd <- function(d) {
  k <- 1 / (1 + 0.2316419 * abs(d))
  r <- (0.3989422804014327 * exp((-0.5 * d) * d)) *
    (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
  if (d > 0) r <- 1 - r
  r
}

black_scholes <- function(s, x, t, r, v) {
  n <- length(s)
  out <- matrix(0, n, 2)
  for (i in seq_len(n)) {
    sqrt_t <- sqrt(t[i])
    d1 <- (log(s[i] / x[i]) + (r + (0.5 * v) * v) * t[i]) / (v * sqrt_t)
    d2 <- d1 - v * sqrt_t
    c1 <- cnd(d1)
    c2 <- cnd(d2)
    disc <- x[i] * exp(-r * t[i])
    out[i, 1] <- s[i] * c1 - disc * c2
    out[i, 2] <- disc * (1 - c2) - s[i] * (1 - c1)
  }
  out
}

black_scholes_par <- function(s, x, t, r, v) {
  n <- length(s)
  out <- matrix(0, n, 2)
  for (i in prange(n)) {
    sqrt_t <- sqrt(t[i])
    d1 <- (log(s[i] / x[i]) + (r + (0.5 * v) * v) * t[i]) / (v * sqrt_t)
    d2 <- d1 - v * sqrt_t
    c1 <- cnd(d1)
    c2 <- cnd(d2)
    disc <- x[i] * exp(-r * t[i])
    out[i, 1] <- s[i] * c1 - disc * c2
    out[i, 2] <- disc * (1 - c2) - s[i] * (1 - c1)
  }
  out
}

# The same in R's vector style (issue 18, bench/r/array_style.R): cnd over a vector, ifelse for the sign.
cnd_vec <- function(d) {
  k <- 1 / (1 + 0.2316419 * abs(d))
  r <- (0.3989422804014327 * exp((-0.5 * d) * d)) *
    (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
  ifelse(d > 0, 1 - r, r)
}

black_scholes_vec <- function(s, x, t, r, v) {
  sqrt_t <- sqrt(t)
  d1 <- (log(s / x) + (r + (0.5 * v) * v) * t) / (v * sqrt_t)
  d2 <- d1 - v * sqrt_t
  c1 <- cnd_vec(d1)
  c2 <- cnd_vec(d2)
  disc <- x * exp(-r * t)
  out <- matrix(0, length(s), 2)
  out[, 1] <- s * c1 - disc * c2
  out[, 2] <- disc * (1 - c2) - s * (1 - c1)
  out
}
