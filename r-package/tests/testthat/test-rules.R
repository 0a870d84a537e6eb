# R's rules through vr_compile (issue 14): length-one vectors, negative indices, growth
# by assignment, index errors in R's terms. Expected values are R's own: each compiled
# function is compared with the function it was made from.

quiet <- function(expr) withCallingHandlers(expr, warning = function(w) stop("unexpected warning: ", conditionMessage(w)))

test_that("a length-one argument is a vector: x[1], x[[1]], length, seq_along, for, rev, sum, x[1] <-", {
  f <- function(args) {
    n <- args[1]
    m <- args[[1]]
    s <- 0
    for (i in seq_along(args)) s <- s + args[i]
    for (v in args) s <- s + v
    c(n * 2, m, length(args), s, rev(args), sum(args))
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(quiet(g(3)), f(3))
  expect_identical(quiet(g(c(3, 4))), f(c(3, 4)))
  h <- function(x, v) {
    x[1] <- v
    if (x > 0) x else -x
  }
  k <- vr_compile(h, fallback = FALSE)
  expect_identical(quiet(k(1, -5)), h(1, -5))
  grow <- function(x) {
    x[3] <- 7
    x
  }
  expect_identical(quiet(vr_compile(grow, fallback = FALSE)(1)), grow(1))
})

test_that("an index past the end of a length-one argument gives R's NA, by running in R", {
  f <- function(x, i) x[i]
  g <- vr_compile(f)
  expect_identical(quiet(g(5, 1L)), 5)
  expect_warning(r <- g(5, 2L), class = "velociraptor_fallback")
  expect_identical(r, NA_real_)
  e <- tryCatch(vr_compile(f, fallback = FALSE)(5, 2L), error = function(e) e)
  expect_s3_class(e, "velociraptor_unsupported")
  expect_match(conditionMessage(e), "x[2]: index 2 is beyond length 1", fixed = TRUE)
  expect_match(conditionMessage(e), "needs R for this call", fixed = TRUE)
  expect_equal(e$index, 2)
  expect_equal(e$bound, 1)
})

test_that("a vector read past its end is R's NA; a matrix's is R's error, in R's terms", {
  f <- function(x, i) x[i]
  e <- tryCatch(vr_compile(f, fallback = FALSE)(c(1, 2, 3), 4L), error = function(e) e)
  expect_s3_class(e, "velociraptor_unsupported")
  expect_match(conditionMessage(e), "x[4]: index 4 is beyond length 3", fixed = TRUE)
  expect_false(grepl("1..4", conditionMessage(e), fixed = TRUE))
  g <- vr_compile(f)
  expect_warning(r <- g(c(1, 2, 3), 4L), class = "velociraptor_fallback")
  expect_identical(r, NA_real_)
  m <- matrix(as.double(1:12), 4, 3)
  h <- vr_compile(function(m, i, j) m[i, j])
  e <- tryCatch(h(m, 5L, 2L), error = function(e) e)
  expect_s3_class(e, "velociraptor_error")
  expect_identical(e$kind, "out_of_bounds")
  expect_match(conditionMessage(e), "m[5, 2]: row 5 of 4 (subscript out of bounds)", fixed = TRUE)
  expect_equal(c(e$index, e$bound), c(5, 4))
  e <- tryCatch(h(m, 1L, 7L), error = function(e) e)
  expect_match(conditionMessage(e), "m[1, 7]: column 7 of 3", fixed = TRUE)
  # R raises too: the same error class R's own tests would catch.
  expect_error(m[5, 2], "subscript out of bounds")
})

test_that("negative and zero indices drop elements as in R", {
  f <- function(x, m, i) c(x[-1], x[-i], x[-(1:2)], x[0], sum(m[-1, ]), x[-length(x)])
  g <- vr_compile(f, fallback = FALSE)
  x <- c(10, 20, 30, 40)
  m <- matrix(as.double(1:6), 3, 2)
  expect_identical(quiet(g(x, m, 2L)), f(x, m, 2L))
  expect_identical(quiet(g(x, m, 9L)), f(x, m, 9L))
  w <- function(x) {
    x[-1] <- 0
    x
  }
  expect_identical(quiet(vr_compile(w, fallback = FALSE)(x)), w(x))
  mixed <- vr_compile(function(x) x[-c(1, -2)])
  expect_error(mixed(x), "only 0's may be mixed with negative subscripts")
})

test_that("vectors grow by x[n + 1] <-, x[length(x) + 1] <- and c(x, v), from c() or numeric(0)", {
  f <- function(n) {
    a <- c()
    b <- numeric(0)
    d <- NULL
    for (i in seq_len(n)) {
      a[length(a) + 1] <- i / 2
      b[i] <- i^2
      d <- c(d, i, -i)
    }
    c(a, b, d)
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(quiet(g(5L)), f(5L))
  gap <- function() {
    x <- numeric(0)
    x[3] <- 1
    x
  }
  expect_identical(quiet(vr_compile(gap, fallback = FALSE)()), gap())
  # Empty at the end: R's answer is NULL, which compiled code leaves to R.
  h <- function(n) {
    x <- c()
    for (i in seq_len(n)) x <- c(x, i)
    x
  }
  k <- vr_compile(h)
  expect_identical(quiet(k(3L)), h(3L))
  expect_warning(r <- k(0L), class = "velociraptor_fallback")
  expect_null(r)
  # A matrix does not grow by index in R either.
  mg <- vr_compile(function() {
    m <- matrix(0, 2, 2)
    m[3, 1] <- 1
    m
  })
  expect_error(mg(), "row 3 of 2")
})

test_that("library functions numeric code reaches for give R's values", {
  fs <- list(
    function(x) c(which.max(x), which.min(x)),
    function(x) range(x),
    function(x) diff(x, lag = 2),
    function(x) outer(x, x, "+"),
    function(x) tcrossprod(x),
    function(x) pmax(x, 2, rev(x)),
    function(x) c(max(x, 7), min(-x, 0)),
    function(x) {
      v <- vector("double", length(x))
      for (i in seq_along(x)) v[i] <- x[i] * 2
      v
    },
    function(x) {
      m <- matrix(nrow = 2, ncol = length(x))
      for (j in seq_along(x)) m[, j] <- x[j] + c(0, 1)
      m
    }
  )
  x <- c(3, 1, 4, 1, 5, 9, 2, 6)
  for (f in fs) expect_identical(quiet(vr_compile(f, fallback = FALSE)(x)), f(x))
  b <- function(a, b) c(bitwAnd(a, b), bitwOr(a, b), bitwXor(a, b), bitwNot(a), bitwShiftL(a, 3L), bitwShiftR(a, 1L))
  expect_identical(quiet(vr_compile(b, fallback = FALSE)(c(12L, -7L, 1000L), 10L)), b(c(12L, -7L, 1000L), 10L))
})

test_that("stopifnot raises R's message", {
  f <- function(n, x) {
    stopifnot(n > 0, is.numeric(x), all(x > 0))
    sum(x) / n
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(quiet(g(2, c(1, 2))), f(2, c(1, 2)))
  expect_error(g(-1, c(1, 2)), "n > 0 is not TRUE")
  expect_error(g(1, c(1, -2)), "all(x > 0) is not TRUE", fixed = TRUE)
  expect_error(f(1, c(1, -2)), "all(x > 0) is not TRUE", fixed = TRUE)
})

test_that("integer %/% and %% by zero give R's NA", {
  f <- function(a, b) c(a %/% b, a %% b)
  g <- vr_compile(f)
  expect_identical(quiet(g(7L, 2L)), f(7L, 2L))
  expect_warning(r <- g(7L, 0L), class = "velociraptor_fallback")
  expect_identical(r, f(7L, 0L))
})
