test_that("a spectral-norm style function with inner helpers and sapply compiles and gives R's answer", {
  spectral <- function(n) {
    eval_A <- function(i, j) 1 / ((i + j) * (i + j + 1) / 2 + i + 1)
    times_u <- function(u) {
      v <- numeric(n)
      for (i in 1:n) v[i] <- sum(u * sapply(1:n, function(j) eval_A(i - 1, j - 1)))
      v
    }
    times_ut <- function(u) {
      v <- numeric(n)
      for (i in 1:n) v[i] <- sum(u * sapply(1:n, \(j) eval_A(j - 1, i - 1)))
      v
    }
    u <- rep(1, n)
    for (it in 1:10) {
      v <- times_ut(times_u(u))
      u <- times_ut(times_u(v))
    }
    sqrt(sum(u * v) / sum(v * v))
  }
  g <- vr_compile(spectral, fallback = FALSE)
  # R sums in long double: the last bit may differ.
  expect_equal(g(40), spectral(40), tolerance = 1e-14)
  expect_equal(g(7L), spectral(7L), tolerance = 1e-14)
})

test_that("functionals compile with lambdas, local, top-level and builtin functions", {
  clamp <- function(v, lo, hi) min(max(v, lo), hi)
  fs <- list(
    function(x, m) {
      sq <- function(v) v * v
      sapply(x, sq)
    },
    function(x, m) vapply(x, function(v) v + 1, numeric(1)),
    function(x, m) sapply(x, clamp, hi = 2, lo = 0),
    function(x, m) sapply(x, "abs"),
    function(x, m) Reduce(`+`, x, accumulate = TRUE),
    function(x, m) Filter(function(v) v > 0, x),
    function(x, m) outer(x, 1:2, function(a, b) a * 10 + b),
    function(x, m) apply(m, 2, function(col) max(col) - min(col)),
    function(x, m) mapply(function(a, b) a - b, b = x, a = rev(x)),
    function(x, m) unlist(lapply(seq_along(x), function(i) seq_len(i))),
    function(x, m) sapply(x, "clamp", lo = -1, hi = 1)
  )
  x <- c(1.5, -2, 4)
  m <- matrix(c(1, 2, 3, 4, 5, 6), 3, 2)
  for (f in fs) {
    g <- vr_compile(f, fallback = FALSE)
    expect_identical(g(x, m), f(x, m))
  }
})

test_that("where R's answer is a list the call runs in R, with a warning", {
  f <- function(n) sapply(1:n, function(i) seq_len(i))
  g <- vr_compile(f)
  expect_warning(r <- g(3L), class = "velociraptor_fallback")
  expect_identical(r, f(3L))
  # and R's errors stay R's errors
  h <- vr_compile(function(x) vapply(x, function(v) c(v, v), numeric(1)), fallback = FALSE)
  expect_error(h(c(1, 2)), "values must be length 1")
})

test_that("arguments match as in R: exact, partial, positional", {
  f <- function(x) {
    g <- function(alpha, beta) alpha - beta
    c(g(b = x, a = 10), complex(real = x, imag = 1) == x + 1i)
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(4), f(4))
  bad <- vr_compile(function(x) {
    h <- function(a) a
    h(x, 2)
  }, fallback = FALSE)
  expect_error(bad(1), "unused argument \\(2\\)", class = "velociraptor_unsupported")
})

test_that("closures that write outside or escape are named", {
  f <- function(x) {
    g <- function() x <<- 1
    g()
    x
  }
  expect_error(vr_compile(f, fallback = FALSE)(2), "<<-", class = "velociraptor_unsupported")
  h <- function(k) function(v) v * k
  expect_error(vr_compile(h, fallback = FALSE)(2), "used as a value", class = "velociraptor_unsupported")
})

test_that("an error inside an inner function names the outer function and its line", {
  f <- function(x, i) {
    get <- function(k) x[k]
    get(i)
  }
  g <- vr_compile(f, fallback = FALSE)
  e <- tryCatch(g(c(1, 2, 3), 5L), error = function(e) e)
  expect_s3_class(e, "velociraptor_error")
  expect_identical(e$fun, "f")
  expect_equal(e$line, 2)
})
