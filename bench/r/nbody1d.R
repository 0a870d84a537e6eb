# nbody1d (bench/kernels/nbody1d.vrir, bench/c/nbody1d.c) in R: one time step of n
# bodies on a line; returns the new positions and velocities as the columns of a matrix.
nbody1d <- function(x, v, m, dt, eps) {
  n <- length(x)
  acc <- numeric(n)
  for (i in seq_len(n)) {
    s <- 0
    for (j in seq_len(n)) {
      d <- x[j] - x[i]
      r2 <- d * d + eps
      s <- s + (m[j] * d) / (r2 * sqrt(r2))
    }
    acc[i] <- s
  }
  for (i in seq_len(n)) {
    v[i] <- v[i] + acc[i] * dt
    x[i] <- x[i] + v[i] * dt
  }
  res <- matrix(0, n, 2)
  res[, 1] <- x
  res[, 2] <- v
  res
}

nbody1d_par <- function(x, v, m, dt, eps) {
  n <- length(x)
  acc <- numeric(n)
  for (i in prange(n)) {
    s <- 0
    for (j in seq_len(n)) {
      d <- x[j] - x[i]
      r2 <- d * d + eps
      s <- s + (m[j] * d) / (r2 * sqrt(r2))
    }
    acc[i] <- s
  }
  for (i in seq_len(n)) {
    v[i] <- v[i] + acc[i] * dt
    x[i] <- x[i] + v[i] * dt
  }
  res <- matrix(0, n, 2)
  res[, 1] <- x
  res[, 2] <- v
  res
}

# The same in R's vector style (issue 18, bench/r/array_style.R): the inner loop as vector operations
# over all bodies (the issue's example), the update as whole-vector arithmetic.
nbody1d_vec <- function(x, v, m, dt, eps) {
  n <- length(x)
  acc <- numeric(n)
  for (i in seq_len(n)) {
    d <- x - x[i]
    r2 <- d * d + eps
    acc[i] <- sum((m * d) / (r2 * sqrt(r2)))
  }
  v <- v + acc * dt
  x <- x + v * dt
  res <- matrix(0, n, 2)
  res[, 1] <- x
  res[, 2] <- v
  res
}
