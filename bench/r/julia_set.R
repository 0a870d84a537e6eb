# julia_set (bench/kernels/julia_set.vrir, bench/c/julia_set.c) in R: escape counts of
# the Julia set of z^2 + c on an n x n grid over [-bound, bound]^2, in real arithmetic
# as the C reference does. Columns outermost (R matrices are column-major).
julia_count <- function(zr, zi, cr, ci, lim, cutoff) {
  count <- 0L
  while (zr * zr + zi * zi < lim * lim && count < cutoff) {
    t <- zr * zr - zi * zi + cr
    zi <- 2 * zr * zi + ci
    zr <- t
    count <- count + 1L
  }
  count
}

julia_set <- function(cr, ci, bound, lim, cutoff, n) {
  out <- matrix(0L, n, n)
  step <- (2 * bound) / (n - 1)
  for (j in seq_len(n)) {
    y <- -bound + (j - 1) * step
    for (i in seq_len(n)) {
      x <- -bound + (i - 1) * step
      out[i, j] <- julia_count(x, y, cr, ci, lim, cutoff)
    }
  }
  out
}

julia_set_par <- function(cr, ci, bound, lim, cutoff, n) {
  out <- matrix(0L, n, n)
  step <- (2 * bound) / (n - 1)
  for (j in prange(n)) {
    y <- -bound + (j - 1) * step
    for (i in seq_len(n)) {
      x <- -bound + (i - 1) * step
      out[i, j] <- julia_count(x, y, cr, ci, lim, cutoff)
    }
  }
  out
}
