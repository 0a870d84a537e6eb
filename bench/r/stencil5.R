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

# The same in R's vector style (issue 18, bench/r/array_style.R): the interior as shifted submatrices.
stencil5_vec <- function(a) {
  m <- nrow(a)
  n <- ncol(a)
  b <- matrix(0, m, n)
  I <- 2:(m - 1)
  J <- 2:(n - 1)
  b[I, J] <- 0.2 * (a[I, J] + a[I, J - 1] + a[I, J + 1] + a[I - 1, J] + a[I + 1, J])
  b
}
