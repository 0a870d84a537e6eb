# stencil5 (bench/kernels/stencil5.vrir, bench/c/stencil5.c) in R: 5-point average of the
# interior of a matrix; the border stays 0. Column-major: rows innermost. The sum's order
# is the C reference's (which sees R's matrix transposed).
stencil5 <- function(a) {
  m <- nrow(a)
  n <- ncol(a)
  b <- matrix(0, m, n)
  for (j in 2:(n - 1)) {
    for (i in 2:(m - 1)) {
      b[i, j] <- 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i - 1, j] + a[i + 1, j])
    }
  }
  b
}

stencil5_par <- function(a) {
  m <- nrow(a)
  n <- ncol(a)
  b <- matrix(0, m, n)
  for (k in prange(n - 2L)) {
    j <- k + 1L
    for (i in 2:(m - 1)) {
      b[i, j] <- 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i - 1, j] + a[i + 1, j])
    }
  }
  b
}
