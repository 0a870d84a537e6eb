# Compiled results equal R's own on the same inputs.

test_that("loops over a matrix (2-D heat diffusion) give R's answer", {
  heat <- function(n, steps) {
    u <- matrix(0, n, n)
    u[n %/% 2, n %/% 2] <- 1000
    for (s in seq_len(steps)) {
      v <- u
      for (j in 2:(n - 1)) {
        for (i in 2:(n - 1)) {
          v[i, j] <- u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j])
        }
      }
      u <- v
    }
    u
  }
  g <- vr_compile(heat, fallback = FALSE)
  expect_equal(g(20, 30), heat(20, 30), tolerance = 1e-14)
  expect_equal(dim(g(20, 30)), c(20L, 20L))
})

test_that("matrix arguments and results keep R's layout and dims", {
  f <- function(a, b) {
    c <- matrix(0, nrow(a), ncol(b))
    for (i in seq_len(nrow(a))) for (j in seq_len(ncol(b))) {
      s <- 0
      for (k in seq_len(ncol(a))) s <- s + a[i, k] * b[k, j]
      c[i, j] <- s
    }
    c
  }
  g <- vr_compile(f, fallback = FALSE)
  a <- matrix(as.numeric(1:6), 2, 3)
  b <- matrix(c(0.5, -1, 2, 3, 1, 7), 3, 2)
  expect_identical(g(a, b), f(a, b))
  arr <- array(as.numeric(1:24), c(2, 3, 4))
  h <- vr_compile(function(x) x * 2 + 1, fallback = FALSE)
  expect_identical(h(arr), arr * 2 + 1)
})

test_that("integer rules: integer results, %/% and %% as in R", {
  f <- function(n) {
    s <- 0L
    for (i in 1:n) s <- s + (i %% 7L) * (i %/% 3L)
    s
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(1000L), f(1000L))
  expect_identical(typeof(g(10L)), "integer")
  h <- vr_compile(function(x) x * 2L, fallback = FALSE)
  expect_identical(h(1:10), 1:10 * 2L)  # ALTREP 1:10 as input
  k <- vr_compile(function(x) x / 2L)
  expect_identical(k(c(3L, 4L)), c(3L, 4L) / 2L)
})

test_that("logical arguments and results", {
  f <- function(x, y) x & !y
  g <- vr_compile(f, fallback = FALSE)
  x <- c(TRUE, FALSE, TRUE, TRUE)
  y <- c(FALSE, FALSE, TRUE, FALSE)
  expect_identical(g(x, y), f(x, y))
  cnt <- vr_compile(function(x) sum(x > 0.5), fallback = FALSE)
  v <- c(0.1, 0.7, 0.9, 0.2)
  expect_identical(cnt(v), sum(v > 0.5))
})

test_that("complex vectors", {
  f <- function(z) {
    out <- z * 0
    for (k in seq_along(z)) out[k] <- z[k] * Conj(z[k]) + z[k]^2
    out
  }
  g <- vr_compile(f, fallback = FALSE)
  z <- complex(real = c(1, -2, 0.5), imaginary = c(0, 3, -1.5))
  expect_equal(g(z), f(z), tolerance = 1e-15)
  m <- vr_compile(function(z) Mod(z), fallback = FALSE)
  expect_equal(m(z), Mod(z), tolerance = 1e-15)
})

test_that("recursion: fib", {
  fib <- function(n) if (n < 2) n else fib(n - 1) + fib(n - 2)
  g <- vr_compile(fib, fallback = FALSE)
  expect_identical(g(20), fib(20))
  expect_identical(g(20L), fib(20L))
})

test_that("pi sum (JuliaLang microbenchmark)", {
  pisum <- function() {
    s <- 0
    for (j in 1:50) {
      s <- 0
      for (k in 1:10000) s <- s + 1 / (k * k)
    }
    s
  }
  g <- vr_compile(pisum, fallback = FALSE)
  expect_identical(g(), pisum())
})

test_that("mandelbrot over complex numbers (JuliaLang microbenchmark)", {
  mandel <- function(zs) {
    out <- integer(length(zs))
    for (k in seq_along(zs)) {
      c <- zs[k]
      z <- c
      n <- 0L
      while (n < 80L && Mod(z) <= 2) {
        z <- z * z + c
        n <- n + 1L
      }
      out[k] <- n
    }
    out
  }
  g <- vr_compile(mandel, fallback = FALSE)
  re <- seq(-2, 0.5, length.out = 26)
  im <- seq(-1, 1, length.out = 21)
  zs <- complex(real = rep(re, times = length(im)), imaginary = rep(im, each = length(re)))
  expect_identical(g(zs), mandel(zs))
})

test_that("functions called by name are compiled with the caller, constants inlined", {
  sq <- function(x) x * x
  scale <- 2.5
  f <- function(v) {
    s <- 0
    for (i in seq_along(v)) s <- s + sq(v[i]) * scale
    s
  }
  g <- vr_compile(f, fallback = FALSE)
  v <- c(1, 2, 3.5)
  expect_identical(g(v), f(v))
})

test_that("defaults are evaluated like R's", {
  f <- function(x, times = 3) {
    s <- 0
    for (i in seq_len(times)) s <- s + sum(x)
    s
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(c(1, 2)), f(c(1, 2)))
  expect_identical(g(c(1, 2), 5), f(c(1, 2), 5))
})

test_that("one specialization per signature, reused by later calls", {
  f <- function(x) sum(x)
  g <- vr_compile(f, fallback = FALSE)
  g(c(1, 2)); g(c(3, 4, 5)); g(1:3); g(1:4)
  expect_output(specs <- vr_explain(g, vrir = FALSE), "2 specialization")
  expect_length(specs, 2)
  expect_identical(vapply(specs, function(s) s$calls, 0), c(2, 2))
  expect_match(specs[[1]]$vrir, "function f")
  # Where it runs and what the optimizer did, per pass.
  expect_match(specs[[1]]$report, "backend: cpu-par")
  expect_match(specs[[1]]$report, "optimizer:")
  expect_output(vr_explain(g, vrir = FALSE), "bounds checks: on")
})

test_that("vr_explain reports where the code runs and each optimizer pass", {
  f <- function(x) {
    s <- 0
    for (i in seq_len(length(x))) s <- s + x[i]
    s
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(c(1, 2, 4)), 7)
  # Printed: the passes that changed something, by function; verbose: every pass.
  expect_output(specs <- vr_explain(g, vrir = FALSE), "f: bce-version (", fixed = TRUE)
  expect_output(vr_explain(g, vrir = FALSE, verbose = TRUE), "bce-version on f:")
  report <- specs[[1]]$report
  for (pass in c("simplify", "bce-redundant", "bce-version")) {
    expect_match(report, paste0(pass, " on f:"), fixed = TRUE)
  }
})

test_that("complex scalars cross as arguments and results", {
  zrot <- function(z, w) {
    s <- 0+0i
    for (k in seq_along(z)) s <- s + z[k] * w
    s
  }
  g <- vr_compile(zrot, fallback = FALSE)
  z <- c(1+2i, 3-1i)
  expect_identical(g(z, 2+1i), zrot(z, 2+1i))
  expect_identical(g(z, 2+1i), 7+6i)
})
