# R code as public benchmark suites write it (issue 14, bench/r/corpus): constructs that
# kept their kernels in R. Every result must be identical() to calling the function in R.

# Call quietly (fallback warnings muffled, printed output dropped).
quietly <- function(expr) {
  r <- NULL
  withCallingHandlers(
    utils::capture.output(r <- expr),
    velociraptor_fallback = function(w) invokeRestart("muffleWarning"))
  r
}

state_of <- function(g) environment(g)$.vr_state

test_that("a variable a function defined inside reads stays live after a section", {
  f <- function(x) {
    k <- 2
    for (i in 1:3) k <- k + i
    g <- function(y) y * k
    cat("k is ready\n")
    g(x)
  }
  h <- vr_compile(f)
  expect_identical(quietly(h(2)), quietly(f(2)))
  expect_identical(quietly(h(c(1, 2))), quietly(f(c(1, 2))))
})

test_that("a section calls functions defined inside, sapply with a closure, and passes their captures", {
  f <- function(x, k) {
    w <- 2
    inner <- function(v) v * w
    scale <- function(v) inner(v) * k
    cat("start\n")
    r <- sapply(x, function(e) scale(e) + 1)
    s <- scale(x[1])
    cat("end\n")
    c(r, s)
  }
  g <- vr_compile(f)
  x <- c(0.5, 1.5, -3)
  expect_identical(quietly(g(x, 3)), quietly(f(x, 3)))
  expect_true(state_of(g)$outline$sections[[1]]$compiled >= 1)
})

test_that("a statement that only calls a kernel (filter1d) is a compiled section", {
  run <- function(a) {
    filter <- function(v, f) {
      r <- 0
      for (i in 1L:length(f)) r <- r + v[(1L + i):((length(v) - length(f)) + i)] * f[i]
      r
    }
    res <- filter(a, c(0.1, 0.15, 0.2, 0.3, 0.2, 0.15, 0.1))
    cat(length(res), "\n")
    res
  }
  g <- vr_compile(run)
  a <- seq(0, 1, length.out = 50)
  expect_identical(quietly(g(a)), quietly(run(a)))
  expect_equal(state_of(g)$outline$sections[[1]]$compiled, 1)
})

test_that("Recall and sapply over a function of the file make sections (R Benchmark 2.5, Collatz)", {
  gcd_run <- function(runs, a, b) {
    cat("gcd\n")
    gcd2 <- function(x, y) if (sum(y > 1.0E-4) == 0) x else { y[y == 0] <- x[y == 0]; Recall(y, x %% y) }
    for (i in 1:runs) g <- gcd2(a, b)
    g
  }
  h <- vr_compile(gcd_run)
  a <- c(12, 18, 7, 100, 81)
  b <- c(18, 12, 5, 75, 27)
  expect_identical(quietly(h(2, a, b)), quietly(gcd_run(2, a, b)))
  expect_equal(state_of(h)$outline$sections[[1]]$compiled, 1)

  chain_length <- function(z) {
    steps <- 0
    while (z != 1) {
      z <- if (z %% 2 == 0) z / 2 else 3 * z + 1
      steps <- steps + 1
    }
    steps
  }
  longest_chain <- function(limit) {
    lens <- sapply(1:limit, chain_length)
    c(start = which.max(lens), steps = max(lens))
  }
  g <- vr_compile(longest_chain)
  expect_identical(quietly(g(300)), longest_chain(300))
  expect_equal(state_of(g)$outline$sections[[1]]$compiled, 1)
})

test_that("a driver that prints calls its kernels compiled (the ReactorLabs execute(n) style)", {
  kernel <- function(n) {
    a <- matrix(0, n, n)
    for (i in 1:n) for (j in 1:n) a[i, j] <- 1 / ((i + j - 2) * (i + j - 1) / 2 + i)
    sum(a)
  }
  execute <- function(n) {
    cat("kernel of size", n, "\n")
    kernel(n)
  }
  g <- vr_compile(execute)
  out <- utils::capture.output(w <- tryCatch(g(30L), warning = function(w) w))
  expect_s3_class(w, "velociraptor_fallback")
  expect_match(conditionMessage(w), "calls of kernel compiled")
  expect_identical(quietly(g(30L)), quietly(execute(30L)))
  specs <- NULL
  utils::capture.output(specs <- vr_explain(g, vrir = FALSE))
  kern <- specs[[1]]$callees$kernel
  expect_true(isTRUE(kern[[1]]$compiled))
  expect_true(kern[[1]]$calls >= 2)
})

test_that("the value statement's calls and a fallback's statements reach compiled callees", {
  sum_r <- function(x) {
    total <- 0
    for (i in seq_along(x)) total <- total + x[i]
    total
  }
  var_r <- function(x) {
    m <- sum_r(x) / length(x)
    ss <- 0
    for (i in seq_along(x)) ss <- ss + (x[i] - m)^2
    ss / (length(x) - 1)
  }
  summary_r <- function(x) c(sum = sum_r(x), var = var_r(x))
  g <- vr_compile(summary_r)
  x <- c(0.25, 1, 2.5, -4, 8)
  expect_identical(quietly(g(x)), summary_r(x))
  specs <- NULL
  utils::capture.output(specs <- vr_explain(g, vrir = FALSE))
  expect_true(isTRUE(specs[[1]]$callees$var_r[[1]]$compiled))
})

test_that("a callee that does not compile runs as R calls it, and keeps R's laziness", {
  counter <- 0
  bump <- function(k) {
    counter <<- counter + k
    counter
  }
  lazy <- function(a, b) a * 2
  drive <- function(n) {
    cat("go\n")
    for (i in 1:n) bump(1)
    lazy(3, stop("never evaluated"))
  }
  g <- vr_compile(drive)
  expect_identical(quietly(g(4L)), 6)
  expect_equal(counter, 4)
  # bump (a `<<-`) runs in R: from the first call on, R calls it directly.
  expect_true(state_of(state_of(g)$family$bump)$plain)
})

test_that("callees that look at how they were called stay R's", {
  opt <- function(x, y) if (missing(y)) x else x + y
  drive <- function(x) {
    cat("opt\n")
    s <- 0
    for (i in seq_along(x)) s <- s + opt(x[i])
    s
  }
  g <- vr_compile(drive)
  expect_identical(quietly(g(c(1, 2, 3))), quietly(drive(c(1, 2, 3))))
  expect_null(state_of(g)$family$opt)
})

test_that("a callee's error is its own velociraptor_error at its line", {
  pick <- function(m, j) {
    s <- 0
    for (i in 1:nrow(m)) s <- s + m[i, j]
    s
  }
  drive <- function(m, j) {
    cat("pick\n")
    pick(m, j)
  }
  g <- vr_compile(drive)
  m <- matrix(1:6 + 0, 2, 3)
  expect_identical(quietly(g(m, 2)), quietly(drive(m, 2)))
  err <- tryCatch(quietly(g(m, 5)), error = function(e) e)
  expect_s3_class(err, "velociraptor_error")
  expect_identical(err$fun, "pick")
  expect_equal(err$line, 3)
})

test_that("mutually recursive callees reach each other's wrappers, once each", {
  ping <- function(n) {
    if (n <= 0) return(0)
    s <- 0
    for (i in 1:3) s <- s + i
    s + pong(n - 1)
  }
  pong <- function(n) {
    cat("")
    ping(n) + 1
  }
  g <- vr_compile(pong)
  expect_identical(quietly(g(5)), quietly(pong(5)))
  expect_identical(sort(names(state_of(g)$family)), c("ping", "pong"))
  utils::capture.output(specs <- vr_explain(g, vrir = FALSE))
  expect_true(is.list(specs))
})

test_that("callees take their arguments by value", {
  scale_in_place <- function(v) {
    for (i in seq_along(v)) v[i] <- v[i] * 10
    sum(v)
  }
  drive <- function(v) {
    cat("")
    s <- scale_in_place(v)
    c(s, v)
  }
  g <- vr_compile(drive)
  v <- c(1, 2, 3)
  expect_identical(quietly(g(v)), quietly(drive(v)))
  expect_identical(v, c(1, 2, 3))
})

test_that("seq() of doubles and complex powers are R's to the bit (Julia's perf.R mandelbrot)", {
  abs2 <- function(z) Re(z) * Re(z) + Im(z) * Im(z)
  escape_time <- function(z) {
    c <- z
    maxiter <- 80
    for (n in 1:maxiter) {
      if (abs2(z) > 4) return(n - 1)
      z <- z^2 + c
    }
    maxiter
  }
  mandelperf <- function() {
    xs <- seq(-2, 0.5, .1)
    ys <- seq(-1, 1, .1)
    M <- matrix(0.0, nrow = length(xs), ncol = length(ys))
    k <- 1
    for (r in xs) {
      for (i in ys) {
        M[k] <- escape_time(complex(real = r, imag = i))
        k <- k + 1
      }
    }
    M
  }
  g <- vr_compile(mandelperf, fallback = FALSE)
  expect_identical(g(), mandelperf())
  s <- vr_compile(function(a, b, h) seq(a, b, h), fallback = FALSE)
  expect_identical(s(0, 1, 0.1), seq(0, 1, 0.1))
  expect_identical(s(1, -1, -0.3), seq(1, -1, -0.3))
  expect_identical(s(0.1, 2.3, 0.7), seq(0.1, 2.3, 0.7))
  expect_error(s(1, 2, -0.5), "wrong sign")
})

test_that("rgamma draws R's numbers from R's stream (Wilkinson's Gibbs sampler)", {
  gibbs_r <- function(N, thin) {
    draws <- matrix(nrow = N, ncol = 2)
    x <- 0
    y <- 0
    for (i in 1:N) {
      for (j in 1:thin) {
        x <- rgamma(1, 3, y * y + 4)
        y <- rnorm(1, 1 / (x + 1), 1 / sqrt(2 * (x + 1)))
      }
      draws[i, ] <- c(x, y)
    }
    draws
  }
  g <- vr_compile(gibbs_r, fallback = FALSE)
  set.seed(42)
  want <- gibbs_r(200, 10)
  seed_after <- .Random.seed
  set.seed(42)
  expect_identical(g(200, 10), want)
  expect_identical(.Random.seed, seed_after)
  draw <- vr_compile(function(n, shape, rate) rgamma(n, shape, rate), fallback = FALSE)
  for (shape in c(0.2, 1, 2.5, 9, 40)) {
    set.seed(7)
    want <- rgamma(3000, shape, 1.5)
    set.seed(7)
    expect_identical(draw(3000L, shape, 1.5), want)
  }
  # Invalid parameters: R's NaN with a warning, so the call runs in R.
  f <- vr_compile(function(n, shape) rgamma(n, shape))
  set.seed(1)
  expect_warning(r <- suppressWarnings(f(2L, -1), classes = "velociraptor_fallback"), "NAs produced")
  expect_true(all(is.nan(r)))
})

test_that("a callee whose calls need R at run time is not reported compiled", {
  past_end <- function(x, k) {
    s <- 0
    for (i in 1:k) s <- s + x[i]
    s
  }
  drive <- function(x) {
    cat("")
    past_end(x, length(x) + 1L)
  }
  g <- vr_compile(drive)
  w <- NULL
  utils::capture.output(r <- withCallingHandlers(g(c(1, 2)), warning = function(c) {
    w <<- c
    invokeRestart("muffleWarning")
  }))
  expect_identical(r, NA_real_)
  expect_no_match(conditionMessage(w), "calls of past_end compiled")
  utils::capture.output(specs <- vr_explain(g, vrir = FALSE))
  expect_equal(specs[[1]]$callees$past_end[[1]]$calls_in_r, 1)
})

test_that("an index 0 computed at run time drops out of c() (the ReactorLabs volcano rays)", {
  corners_below <- function(m, x, y, h) {
    all(c(m[ceiling(x), ceiling(y)], m[floor(x), ceiling(y)],
          m[ceiling(x), floor(y)], m[floor(x), floor(y)]) < h)
  }
  g <- vr_compile(corners_below, fallback = FALSE)
  m <- matrix(c(1, 2, 3, 4, 5, 6, 7, 8, 9), 3)
  for (x in c(0.5, 1.5, 2.5)) for (y in c(0.2, 1, 2.9)) for (h in c(3, 6, 10)) {
    expect_identical(g(m, x, y, h), corners_below(m, x, y, h))
  }
})
