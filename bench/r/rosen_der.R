# rosen_der (bench/kernels/rosen_der.vrir, bench/c/rosen_der.c) in R: the gradient of
# the Rosenbrock function (length(x) >= 3).
rosen_der <- function(x) {
  n <- length(x)
  der <- numeric(n)
  for (i in 2:(n - 1)) {
    xm <- x[i - 1]
    xi <- x[i]
    xp <- x[i + 1]
    der[i] <- 200 * (xi - xm * xm) - (400 * (xp - xi * xi)) * xi - 2 * (1 - xi)
  }
  der[1] <- (-400 * x[1]) * (x[2] - x[1] * x[1]) - 2 * (1 - x[1])
  der[n] <- 200 * (x[n] - x[n - 1] * x[n - 1])
  der
}

rosen_der_par <- function(x) {
  n <- length(x)
  der <- numeric(n)
  for (k in prange(n - 2L)) {
    i <- k + 1L
    xm <- x[i - 1]
    xi <- x[i]
    xp <- x[i + 1]
    der[i] <- 200 * (xi - xm * xm) - (400 * (xp - xi * xi)) * xi - 2 * (1 - xi)
  }
  der[1] <- (-400 * x[1]) * (x[2] - x[1] * x[1]) - 2 * (1 - x[1])
  der[n] <- 200 * (x[n] - x[n - 1] * x[n - 1])
  der
}

# The same in R's vector style (issue 18, bench/r/array_style.R): the interior as three shifted slices.
rosen_der_vec <- function(x) {
  n <- length(x)
  xm <- x[1:(n - 2)]
  xi <- x[2:(n - 1)]
  xp <- x[3:n]
  der <- numeric(n)
  der[2:(n - 1)] <- 200 * (xi - xm * xm) - (400 * (xp - xi * xi)) * xi - 2 * (1 - xi)
  der[1] <- (-400 * x[1]) * (x[2] - x[1] * x[1]) - 2 * (1 - x[1])
  der[n] <- 200 * (x[n] - x[n - 1] * x[n - 1])
  der
}
