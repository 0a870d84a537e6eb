# Random numbers: compiled runif/rnorm/rexp/sample draw from R's own generator (the C
# API's random hook, bindings/r/src/random.rs), so after set.seed() a compiled function
# returns R's numbers and leaves .Random.seed where R leaves it.

# f in R and compiled (fallback = FALSE: it must compile), each after set.seed(seed):
# identical results and identical .Random.seed afterwards.
expect_same_stream <- function(f, ..., seed = 1) {
  g <- vr_compile(f, fallback = FALSE)
  set.seed(seed)
  want <- f(...)
  want_seed <- .Random.seed
  set.seed(seed)
  got <- g(...)
  got_seed <- .Random.seed
  expect_identical(got, want)
  expect_identical(got_seed, want_seed)
}

test_that("runif, rnorm and rexp give R's numbers and leave .Random.seed as R does", {
  expect_same_stream(function(n) runif(n), 10, seed = 42)
  expect_same_stream(function(n) runif(n), 2.9, seed = 3)
  expect_same_stream(function(n) runif(n), c(7, 8, 9), seed = 4)
  expect_same_stream(function(n, a, b) runif(n, a, b), 6L, -2, 3.5, seed = 5)
  expect_same_stream(function(n) runif(n, max = 3, min = -1), 4, seed = 6)
  expect_same_stream(function(n) rnorm(n), 1000, seed = 2024)
  expect_same_stream(function(n, m, s) rnorm(n, m, s), 5, 10, 0.5, seed = 7)
  expect_same_stream(function(n, s) rnorm(n, sd = s), 5, 0, seed = 8) # sd = 0: no draw
  expect_same_stream(function(n, m) rnorm(n, m, 2), 6, c(0, 100), seed = 9)
  expect_same_stream(function(n) rexp(n), 1000, seed = 10)
  expect_same_stream(function(n, r) rexp(n, r), 5, 2, seed = 11)
  expect_same_stream(function(n, r) rexp(n, r), 3, Inf, seed = 11) # scale 0: no draw
  expect_same_stream(function(r) rexp(1, rate = r), 0.25, seed = 12)
  expect_same_stream(function(n) runif(n), 0, seed = 13)
})

test_that("a Monte-Carlo pi loop of runif(1) calls equals R's, and runs compiled", {
  mc_pi <- function(n) {
    hits <- 0
    for (i in 1:n) {
      x <- runif(1)
      y <- runif(1)
      if (x * x + y * y < 1) hits <- hits + 1
    }
    4 * hits / n
  }
  expect_same_stream(mc_pi, 10000, seed = 7)
  walk <- function(n) {
    x <- 0
    for (i in 1:n) x <- x + rnorm(1)
    x
  }
  expect_same_stream(walk, 5000, seed = 21)
})

test_that("sample and sample.int in every form give R's draws", {
  x <- c(2.5, -1, 7.25, 0.5, 3, 10, -4.5)
  expect_same_stream(function(n) sample(n), 10, seed = 42)
  expect_same_stream(function(n) sample(n), 5.7, seed = 42)
  expect_same_stream(function(n) sample(n), 1000L, seed = 43)
  expect_same_stream(function(x) sample(x), x, seed = 30)
  expect_same_stream(function(x) sample(x), c(10L, 20L, 30L, 40L, 50L), seed = 31)
  expect_same_stream(function(x, k) sample(x, k), x, 3, seed = 32)
  expect_same_stream(function(x, k) sample(x, k, replace = TRUE), x, 20, seed = 33)
  expect_same_stream(function(x) sample(x, 1), x, seed = 34)
  expect_same_stream(function(n, k) sample.int(n, k), 100, 10, seed = 35)
  expect_same_stream(function(n, k) sample.int(n, k), 1e8, 6e7, seed = 35)
  expect_same_stream(function(n, k) sample.int(n, k, replace = TRUE), 1e9, 5, seed = 36)
  expect_same_stream(function(n, k, r) sample.int(n, size = k, replace = r), 10, 4, TRUE, seed = 37)
  dice <- function(n) {
    s <- 0L
    for (i in 1:n) s <- s + sample(6, 1)
    s
  }
  expect_same_stream(dice, 300, seed = 38)
  boot_max <- function(x, b) {
    out <- numeric(b)
    for (k in 1:b) out[k] <- max(x[sample(length(x), replace = TRUE)])
    out
  }
  expect_same_stream(boot_max, x, 50, seed = 39)
})

test_that("R's errors are R's messages", {
  g <- vr_compile(function(x, k) sample(x, k), fallback = FALSE)
  expect_error(g(c(1, 2, 3), 5), "cannot take a sample larger than the population")
  h <- vr_compile(function(n) runif(n), fallback = FALSE)
  expect_error(h(-1), "invalid arguments")
})

test_that("consecutive compiled calls and R calls share one stream", {
  g <- vr_compile(function(n) rnorm(n), fallback = FALSE)
  set.seed(99)
  want <- c(rnorm(3), runif(2), rnorm(3))
  want_seed <- .Random.seed
  set.seed(99)
  got <- c(g(3), runif(2), g(3))
  expect_identical(got, want)
  expect_identical(.Random.seed, want_seed)
})

test_that("every RNGkind gives R's numbers: the draws are R's own functions", {
  old <- RNGkind()
  on.exit(suppressWarnings(RNGkind(old[1], old[2], old[3])), add = TRUE)
  suppressWarnings(RNGkind("Wichmann-Hill", "Box-Muller", "Rounding"))
  f <- function(n) c(runif(n), rnorm(n), rexp(n), sample(n))
  expect_same_stream(f, 7, seed = 5)
  suppressWarnings(RNGkind("L'Ecuyer-CMRG", "Kinderman-Ramage", "Rejection"))
  expect_same_stream(f, 7, seed = 6)
})

test_that("without .Random.seed, a compiled call that draws creates it, as R does", {
  g <- vr_compile(function(n) runif(n), fallback = FALSE)
  if (exists(".Random.seed", envir = globalenv())) rm(".Random.seed", envir = globalenv())
  g(2)
  expect_true(exists(".Random.seed", envir = globalenv()))
  # A call that draws nothing does not touch the stream.
  s <- .Random.seed
  g(0)
  expect_identical(.Random.seed, s)
})

test_that("invalid parameters run in R from the same stream, with R's warning", {
  f <- function(n) {
    u <- runif(n)
    v <- runif(n, 2, 1) # NaN with a warning in R
    c(u, v)
  }
  g <- vr_compile(f)
  set.seed(3)
  want <- suppressWarnings(f(4))
  want_seed <- .Random.seed
  set.seed(3)
  ws <- character()
  got <- withCallingHandlers(g(4), warning = function(w) {
    ws <<- c(ws, class(w)[1])
    invokeRestart("muffleWarning")
  })
  expect_identical(got, want)
  expect_identical(.Random.seed, want_seed)
  expect_true("velociraptor_fallback" %in% ws)
})

test_that("an error after draws leaves .Random.seed where R's does", {
  f <- function(n) {
    u <- runif(n)
    if (u[1] < 2) stop("boom")
    u
  }
  g <- vr_compile(f, fallback = FALSE)
  set.seed(8)
  try(f(5), silent = TRUE)
  want_seed <- .Random.seed
  set.seed(8)
  expect_error(g(5), "boom")
  expect_identical(.Random.seed, want_seed)
})

test_that("draws in prange loops and weighted sampling are named unsupported constructs", {
  p <- vr_compile(function(n) {
    x <- numeric(n)
    for (i in prange(n)) x[i] <- runif(1)
    x
  }, fallback = FALSE)
  expect_error(p(3), "prange", class = "velociraptor_unsupported")
  w <- vr_compile(function(x) sample(x, 2, prob = c(0.5, 0.25, 0.25)), fallback = FALSE)
  expect_error(w(c(1, 2, 3)), "prob", class = "velociraptor_unsupported")
})
