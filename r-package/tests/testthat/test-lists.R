# Lists, data frames and globals in compiled functions: the values must be R's own.

test_that("a setup(args) / run(data) benchmark compiles with fallback = FALSE and equals R", {
  setup <- function(n) {
    list(x = as.double(seq_len(n)), y = rev(as.double(seq_len(n))), w = 0.25,
      m = matrix(as.double(1:6), 2), n = as.integer(n), label = "bench")
  }
  run <- function(data) {
    s <- 0
    for (i in seq_len(data$n)) {
      s <- s + data$x[i] * data[["y"]][i] * data$w
    }
    s + sum(data[[4]]) + data$m[2, 3] + length(data)
  }
  g <- vr_compile(run, fallback = FALSE)
  for (n in c(10, 1000)) {
    d <- setup(n)
    expect_identical(g(d), run(d))
  }
  capture.output(info <- vr_explain(g, vrir = FALSE))
  expect_true(info[[1]]$compiled)
  expect_match(info[[1]]$signature, "list(x = double vector", fixed = TRUE)
})

test_that("nested lists and lists passed to helpers", {
  inner_total <- function(p) sum(p$v) * p$scale
  f <- function(cfg) inner_total(cfg$a) + inner_total(cfg[["b"]]) + cfg$b$v[2]
  g <- vr_compile(f, fallback = FALSE)
  cfg <- list(a = list(v = c(1, 2, 3), scale = 2), b = list(v = 4:6, scale = 0.5))
  expect_identical(g(cfg), f(cfg))
})

test_that("a list argument written in the function is the function's copy", {
  f <- function(d) {
    d$x[1] <- 100
    d$k <- d$k + 1
    sum(d$x) * d$k
  }
  g <- vr_compile(f, fallback = FALSE)
  d <- list(x = c(1, 2, 3), k = 2)
  before <- d
  expect_identical(g(d), f(d))
  expect_identical(d, before)
})

test_that("local lists are built, changed and read back", {
  f <- function(x) {
    l <- list(a = x, b = 2, c = 3L)
    l$a[1] <- 10
    l$b <- l$b * 2
    l[["c"]] <- l[["c"]] + 1L
    sum(l$a) + l$b + l$c + length(l)
  }
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(c(1, 2, 3)), f(c(1, 2, 3)))
})

test_that("a data frame is a read-only list of columns; other columns are not read", {
  f <- function(df) {
    s <- 0
    for (i in seq_len(nrow(df))) {
      if (df$keep[i]) s <- s + df$x[i] * df$n[i]
    }
    c(s, ncol(df))
  }
  g <- vr_compile(f, fallback = FALSE)
  df <- data.frame(x = c(1.5, 2, -3, 4), n = 1:4, keep = c(TRUE, FALSE, TRUE, TRUE),
    label = c("a", "b", "c", "d"), stringsAsFactors = FALSE)
  expect_identical(g(df), f(df))
  # Reading a character (or factor) column is named, and R runs the function.
  h <- function(df) df$label
  expect_error(vr_compile(h, fallback = FALSE)(df), "character vector", class = "velociraptor_unsupported")
  df$label <- factor(df$label)
  expect_error(vr_compile(h, fallback = FALSE)(df), "factor", class = "velociraptor_unsupported")
  expect_warning(r <- vr_compile(h)(df), class = "velociraptor_fallback")
  expect_identical(r, df$label)
  # Writing into a data frame is refused with a reason.
  w <- vr_compile(function(df) { df$x[1] <- 0; sum(df$x) }, fallback = FALSE)
  expect_error(w(df), "read-only", class = "velociraptor_unsupported")
})

test_that("elements at a computed position, and what stays unsupported", {
  d <- list(x = c(1, 2, 3), y = c(4, 5, 6))
  f <- function(d) {
    s <- 0
    for (k in seq_along(d)) s <- s + sum(d[[k]])
    s
  }
  expect_identical(vr_compile(f, fallback = FALSE)(d), f(d))
  at <- vr_compile(function(d, k) d[[k]], fallback = FALSE)
  expect_error(at(d, 3L), "subscript out of bounds", class = "velociraptor_error")
  # Elements of different kinds: named, and R runs the function.
  m <- list(x = c(1, 2, 3), s = "text")
  expect_error(vr_compile(f, fallback = FALSE)(m), "computed position", class = "velociraptor_unsupported")
  expect_warning(r <- vr_compile(function(d) d[[length(d) - 1L]] * 2)(m), class = "velociraptor_fallback")
  expect_identical(r, c(2, 4, 6))
  add <- function(d) {
    d$z <- 1
    d$x
  }
  expect_error(vr_compile(add, fallback = FALSE)(d), "adding an element", class = "velociraptor_unsupported")
})

test_that("a global changed between calls is seen by the compiled function", {
  K <- 3
  V <- c(1, 2, 3)
  f <- function(x) x * K + sum(V)
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(2), f(2))
  K <- 5
  V[2] <- 20
  expect_identical(g(2), f(2))
  expect_identical(g(2), 2 * 5 + 24)
  # A helper reading a global sees it too.
  scale <- function(v) v * K
  h <- vr_compile(function(x) scale(x) + 1, fallback = FALSE)
  expect_identical(h(c(1, 2)), c(6, 11))
  K <- -1
  expect_identical(h(c(1, 2)), c(0, -1))
  # A global list and a matrix.
  P <- list(a = 0.5, m = matrix(1:4 + 0, 2))
  k <- vr_compile(function(x) x * P$a + sum(P$m), fallback = FALSE)
  expect_identical(k(4), 12)
  P$a <- 2
  expect_identical(k(4), 18)
})

test_that("a global whose type changes makes a new specialization", {
  K <- 3
  f <- function(x) x * K
  g <- vr_compile(f, fallback = FALSE)
  expect_identical(g(2), 6)
  K <- c(1, 10)
  expect_identical(g(2), c(2, 20))
  K <- 2L
  expect_identical(g(3L), 6L)
  capture.output(specs <- vr_explain(g, vrir = FALSE))
  expect_length(specs, 3)
  expect_match(specs[[2]]$signature, "K = double vector", fixed = TRUE)
  # A global that is gone is R's error, through the fallback.
  rm(K)
  expect_error(suppressWarnings(vr_compile(f)(2)), "'K' not found")
})

test_that("list(a = ..., b = ...) as the value returns R's list, names and nesting included", {
  stats <- function(x) {
    s <- sum(x)
    list(total = s, scaled = x * 2, n = length(x), inner = list(first = x[1], m = matrix(x, 1)))
  }
  g <- vr_compile(stats, fallback = FALSE)
  x <- c(1, 2.5, 4)
  expect_identical(g(x), stats(x))
  expect_identical(vr_compile(function(x) list(x, x + 1L), fallback = FALSE)(2L), list(2L, 3L))
  expect_identical(vr_compile(function(x) list(), fallback = FALSE)(1), list())
  # A result variable filled element by element, and a list from a helper.
  summ <- function(x) {
    res <- list(mean = 0, sd = 0)
    res$mean <- mean(x)
    res$sd <- sqrt(sum((x - res$mean)^2) / (length(x) - 1))
    res
  }
  expect_identical(vr_compile(summ, fallback = FALSE)(c(1, 2, 3, 4)), summ(c(1, 2, 3, 4)))
  use <- function(x) {
    r <- stats(x)
    r$total + r$inner$first
  }
  expect_identical(vr_compile(use, fallback = FALSE)(x), use(x))
  # A result that is an argument's element is a copy, not the argument itself.
  pass <- vr_compile(function(d) list(y = d$x), fallback = FALSE)
  d <- list(x = c(1, 2))
  r <- pass(d)
  r$y[1] <- 100
  expect_identical(d$x, c(1, 2))
})

test_that("a benchmark's setup and run both compile", {
  setup <- function(n) list(x = as.double(seq_len(n)), w = 0.5, n = n)
  run <- function(data) {
    s <- 0
    for (i in seq_len(data$n)) s <- s + data$x[i] * data$w
    s
  }
  s <- vr_compile(setup, fallback = FALSE)
  r <- vr_compile(run, fallback = FALSE)
  expect_identical(s(100), setup(100))
  expect_identical(r(s(100)), run(setup(100)))
})

test_that("records: a list of lists looped over by name, by element and by position", {
  body <- function(x, y, vx, mass) list(x = x, y = y, vx = vx, mass = mass)
  bodies <- list(sun = body(0, 0, 0, 39.47), jupiter = body(4.84, -1.16, 0.61, 0.037),
    saturn = body(8.34, 4.12, -1.01, 0.011))
  by_name <- function(bodies) {
    nb <- length(bodies)
    pos <- matrix(0, nb, 2)
    k <- 0
    for (nm in names(bodies)) {
      b <- bodies[[nm]]
      k <- k + 1
      pos[k, ] <- c(b$x, b$y)
    }
    pos
  }
  expect_identical(vr_compile(by_name, fallback = FALSE)(bodies), by_name(bodies))
  by_element <- function(bodies) {
    s <- 0
    for (b in bodies) {
      if (b$mass > 1) next
      s <- s + b$x * b$mass
    }
    s
  }
  expect_identical(vr_compile(by_element, fallback = FALSE)(bodies), by_element(bodies))
  advance <- function(bodies, steps, dt) {
    for (s in seq_len(steps)) {
      for (i in seq_along(bodies)) bodies[[i]]$x <- bodies[[i]]$x + dt * bodies[[i]]$vx
    }
    e <- 0
    for (i in seq_along(bodies)) e <- e + bodies[[i]]$mass * bodies[[i]]$x^2
    e
  }
  expect_identical(vr_compile(advance, fallback = FALSE)(bodies, 100L, 0.01), advance(bodies, 100L, 0.01))
  at <- vr_compile(function(bodies, k) bodies[[k]]$mass, fallback = FALSE)
  expect_identical(at(bodies, 2L), bodies[[2]]$mass)
  expect_error(at(bodies, 4L), "subscript out of bounds", class = "velociraptor_error")
  # The names themselves are strings: used as a value, R runs the function.
  nm <- function(bodies) length(names(bodies))
  expect_error(vr_compile(nm, fallback = FALSE)(bodies), "names are strings", class = "velociraptor_unsupported")
  expect_warning(r <- vr_compile(nm)(bodies), class = "velociraptor_fallback")
  expect_identical(r, 3L)
})

test_that("a function defined inside reads the enclosing function's list", {
  f <- function(data) {
    g <- function(i) data$x[i] * data$w
    s <- 0
    for (i in seq_along(data$x)) s <- s + g(i)
    s + sum(sapply(seq_along(data$x), function(i) data$x[i] + data$w))
  }
  d <- list(x = c(1, 2, 4), w = 0.5)
  expect_identical(vr_compile(f, fallback = FALSE)(d), f(d))
  check <- function(data) {
    stopifnot(data$n > 0)
    data$n
  }
  expect_error(vr_compile(check, fallback = FALSE)(list(n = -1)), "data$n > 0 is not TRUE", fixed = TRUE)
})

test_that("a section reads a list; the statements around it stay in R", {
  f <- function(data) {
    cat("")
    s <- 0
    for (i in seq_along(data$x)) s <- s + data$x[i] * data$w
    s
  }
  g <- vr_compile(f)
  d <- list(x = c(1, 2, 4), w = 0.5, label = "kept in R")
  expect_identical(suppressWarnings(g(d)), f(d))
  sec <- environment(g)$.vr_state$outline$sections[[1]]
  expect_equal(sec$compiled, 1)
  expect_equal(sec$in_r, 0)
  # A named vector inside the list would lose its names: R runs the section.
  d$x <- c(a = 1, b = 2)
  expect_identical(g(d), f(d))
  expect_equal(sec$in_r, 1)
})

test_that("a section reads the function's globals as they are at the call", {
  SCALE <- 2
  f <- function(x) {
    cat("")
    s <- 0
    for (i in seq_along(x)) s <- s + x[i] * SCALE
    s
  }
  g <- vr_compile(f)
  expect_identical(suppressWarnings(g(c(1, 2, 3))), 12)
  SCALE <- 0.5
  expect_identical(g(c(1, 2, 3)), 3)
  sec <- environment(g)$.vr_state$outline$sections[[1]]
  expect_equal(sec$compiled, 2)
  expect_equal(sec$in_r, 0)
  # A global R would read with its names: R runs the section.
  SCALE <- c(a = 1)
  expect_identical(g(c(1, 2)), f(c(1, 2)))
  expect_equal(sec$in_r, 1)
})
