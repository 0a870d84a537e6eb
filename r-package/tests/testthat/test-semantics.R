test_that("arguments are values: the caller's objects never change", {
  f <- function(x) {
    x[1] <- 100
    x * 2
  }
  g <- vr_compile(f, fallback = FALSE)
  x <- c(1, 2, 3)
  before <- x
  expect_identical(g(x), c(200, 4, 6))
  expect_identical(x, before)
  m <- matrix(as.numeric(1:4), 2)
  h <- vr_compile(function(a) { a[2, 2] <- -1; a }, fallback = FALSE)
  expect_identical(h(m)[2, 2], -1)
  expect_identical(m, matrix(as.numeric(1:4), 2))
  i <- 1:5
  k <- vr_compile(function(v) { v[1] <- 0L; v }, fallback = FALSE)
  expect_identical(k(i), c(0L, 2:5))
  expect_identical(i, 1:5)
})

test_that("a function returning its argument returns R's value", {
  g <- vr_compile(function(x) x, fallback = FALSE)
  x <- c(1.5, 2.5)
  y <- g(x)
  expect_identical(y, x)
  y[1] <- 0
  expect_identical(x, c(1.5, 2.5))
})

test_that("prange and gpu are plain R and compile", {
  f <- function(x) {
    y <- numeric(length(x))
    for (i in prange(length(x))) y[i] <- sqrt(x[i]) + 1
    y
  }
  expect_identical(f(c(1, 4)), c(2, 3))
  g <- vr_compile(f, fallback = FALSE)
  x <- as.numeric(1:1000)
  expect_identical(g(x), f(x))
  expect_identical(gpu(1 + 1), 2)
})

test_that("threads: at most 2 under _R_CHECK_LIMIT_CORES_, configurable otherwise", {
  old <- Sys.getenv("_R_CHECK_LIMIT_CORES_", NA)
  on.exit(if (is.na(old)) Sys.unsetenv("_R_CHECK_LIMIT_CORES_") else Sys.setenv("_R_CHECK_LIMIT_CORES_" = old))
  Sys.setenv("_R_CHECK_LIMIT_CORES_" = "TRUE")
  vr_options(threads = 8)
  expect_identical(vr_options()$threads, 2L)
  vr_options(threads = 0)
  expect_identical(vr_options()$threads, 2L)
  vr_options(threads = 1)
  expect_identical(vr_options()$threads, 1L)
  Sys.unsetenv("_R_CHECK_LIMIT_CORES_")
  vr_options(threads = 3)
  expect_identical(vr_options()$threads, 3L)
  vr_options(threads = 2)
  expect_error(vr_options(threads = -1))
})

test_that("bounds checks can be switched off and on", {
  g <- vr_compile(function(x) sum(x), fallback = FALSE)
  vr_options(bounds_checks = FALSE)
  expect_identical(g(c(1, 2)), 3)
  vr_options(bounds_checks = TRUE)
  expect_identical(g(c(1, 2)), 3)
})

test_that("the on-disk cache serves a second process", {
  stats <- vr_stats()
  expect_true(stats$compiles >= 1)
  expect_true(stats$disk_writes >= 1)
})
