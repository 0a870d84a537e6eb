# mandel/mandelperf of the JuliaLang microbenchmarks in R, over complex numbers:
# escape counts (at most 80) on an n x n grid of [-2, 0.5] x [-1, 1].
mandel <- function(z) {
  c <- z
  maxiter <- 80L
  for (n in seq_len(maxiter)) {
    if (Mod(z) > 2) return(n - 1L)
    z <- z * z + c
  }
  maxiter
}

mandelbrot <- function(n) {
  out <- matrix(0L, n, n)
  for (j in seq_len(n)) {
    im <- -1 + 2 * (j - 1) / (n - 1)
    for (i in seq_len(n)) {
      re <- -2 + 2.5 * (i - 1) / (n - 1)
      out[i, j] <- mandel(re + im * 1i)
    }
  }
  out
}

mandelbrot_par <- function(n) {
  out <- matrix(0L, n, n)
  for (j in prange(n)) {
    im <- -1 + 2 * (j - 1) / (n - 1)
    for (i in seq_len(n)) {
      re <- -2 + 2.5 * (i - 1) / (n - 1)
      out[i, j] <- mandel(re + im * 1i)
    }
  }
  out
}
