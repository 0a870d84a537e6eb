test_that("an index out of bounds is a velociraptor_error naming function, line, variable, index", {
  f <- function(x, i) {
    y <- x + 1
    y[i, 1]
  }
  g <- vr_compile(f, fallback = FALSE)
  e <- tryCatch(g(matrix(c(1, 2, 3), 3, 1), 5L), error = function(e) e)
  expect_s3_class(e, "velociraptor_error")
  expect_identical(e$kind, "out_of_bounds")
  expect_identical(e$fun, "f")
  expect_equal(e$line, 3)
  expect_identical(e$variable, "y")
  expect_equal(e$index, 5)
  expect_equal(e$bound, 3)
  expect_match(conditionMessage(e), "subscript out of bounds")
})

test_that("integer division by zero is R's NA (the call runs in R)", {
  g <- vr_compile(function(a, b) a %/% b, fallback = FALSE)
  expect_error(g(5L, 0L), class = "velociraptor_unsupported")
  expect_identical(g(7L, 2L), 3L)
  h <- vr_compile(function(a, b) a %/% b)
  expect_warning(r <- h(5L, 0L), class = "velociraptor_fallback")
  expect_identical(r, NA_integer_)
})

test_that("fallback = TRUE: one warning per function naming construct and line, then R runs it", {
  f <- function(x) {
    e <- new.env()
    x * 2
  }
  g <- vr_compile(f)
  w <- NULL
  r <- withCallingHandlers(g(3), warning = function(c) { w <<- c; invokeRestart("muffleWarning") })
  expect_identical(r, 6)
  expect_s3_class(w, "velociraptor_fallback")
  expect_match(conditionMessage(w), "environments")
  expect_match(conditionMessage(w), "line 2")
  expect_no_warning(expect_identical(g(4), 8))
  # another signature falls back too, without another warning
  expect_no_warning(expect_identical(g(c(1, 2)), c(2, 4)))
})

test_that("fallback = FALSE: an error of class velociraptor_unsupported", {
  g <- vr_compile(function(x) paste(x), fallback = FALSE)
  expect_error(g(1), class = "velociraptor_unsupported")
  h <- vr_compile(function(x) x, fallback = FALSE)
  expect_error(h("a"), class = "velociraptor_unsupported")
})

test_that("values compiled code cannot represent give R's answer through the fallback", {
  f <- function(x) x + 1L
  g <- vr_compile(f)
  expect_warning(r <- g(c(1L, NA)), class = "velociraptor_fallback")
  expect_identical(r, f(c(1L, NA)))
  h <- vr_compile(function(x) !x)
  expect_warning(r <- h(c(TRUE, NA)), class = "velociraptor_fallback")
  expect_identical(r, c(FALSE, NA))
})

test_that("R keeps running after 1,000 failing calls and internal panics", {
  g <- vr_compile(function(x, i) x[i], fallback = FALSE)
  x <- c(1, 2, 3)
  failures <- 0L
  for (k in 1:1000) {
    r <- tryCatch(g(x, 4L + k %% 7L), velociraptor_error = function(e) "failed")
    if (identical(r, "failed")) failures <- failures + 1L
  }
  expect_identical(failures, 1000L)
  for (k in 1:20) {
    p <- velociraptor:::vr_rs_panic_for_test()
    expect_s3_class(p, "vr_failure")
    expect_identical(p$kind, "internal")
  }
  expect_identical(g(x, 2L), 2)
})

test_that("R's recycling: a length-1 vector recycles compiled, other lengths run in R", {
  f <- function(x, k) {
    y <- x[seq_len(k)]
    x * y
  }
  g <- vr_compile(f)
  expect_no_warning(expect_identical(g(c(1, 2, 3), 1L), f(c(1, 2, 3), 1L)))
  expect_warning(r <- g(c(1, 2, 3, 4), 2L), class = "velociraptor_fallback")
  expect_identical(r, f(c(1, 2, 3, 4), 2L))
  e <- tryCatch(vr_compile(f, fallback = FALSE)(c(1, 2, 3, 4), 2L), error = function(e) e)
  expect_s3_class(e, "velociraptor_unsupported")
  expect_match(conditionMessage(e), "lengths 4 and 2")
  expect_equal(e$line, 3)
})

test_that("seq() with length.out compiles with R's values and types", {
  f <- function(a, b, n) seq(a, b, length.out = n)
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(0, 1, 11L), f(0, 1, 11L))
  expect_identical(g(0.1, -0.7, 7), f(0.1, -0.7, 7))
  h <- function(a, b, n) seq(a, by = b, length.out = n)
  k <- vr_compile(h, fallback = FALSE)
  expect_identical(k(1L, 3L, 4L), h(1L, 3L, 4L))
  expect_identical(k(1, 0.1, 5), h(1, 0.1, 5))
  expect_error(g(0, 1, -1), "'length.out' must be a non-negative number", class = "velociraptor_error")
})
