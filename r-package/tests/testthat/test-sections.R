# Sections: a function that does not compile whole (cat, print, message, options,
# Sys.time, gc next to its loops) runs in R with its loops compiled. Every result must
# be identical() to calling the function in R.

# The state of section k of a compiled function (internal; how many calls ran compiled).
section_of <- function(g, k = 1L) environment(g)$.vr_state$outline$sections[[k]]

# Call g quietly (its one velociraptor_fallback warning muffled, its output dropped).
quiet <- function(expr) {
  out <- NULL
  r <- withCallingHandlers(
    { out <- utils::capture.output(v <- expr); v },
    velociraptor_fallback = function(w) invokeRestart("muffleWarning"))
  r
}

test_that("a loop next to cat() runs compiled, and the result is R's", {
  f <- function(x) {
    cat("summing", length(x), "values\n")
    s <- 0
    for (i in seq_along(x)) s <- s + x[i] * x[i]
    cat("done\n")
    s
  }
  g <- vr_compile(f)
  x <- c(1.5, -2, 3.25, 1e-3)
  out <- utils::capture.output(w <- tryCatch(g(x), warning = function(w) w))
  expect_s3_class(w, "velociraptor_fallback")
  expect_match(conditionMessage(w), "call to `cat`")
  expect_match(conditionMessage(w), "lines 3-4 compiled")
  # The warning came after the call: it ran (and printed) once; later calls are quiet.
  expect_identical(out, c("summing 4 values", "done"))
  expect_no_warning(out2 <- utils::capture.output(r <- g(x)))
  expect_identical(out2, c("summing 4 values", "done"))
  expect_identical(r, quiet(f(x)))
  expect_true(section_of(g)$compiled >= 2)
  expect_identical(quiet(g(numeric(0))), quiet(f(numeric(0))))
})

test_that("print, message, options, Sys.time and invisible(gc()) around hot loops", {
  f <- function(n) {
    old <- options(digits = 4)
    t0 <- Sys.time()
    v <- numeric(n)
    for (i in 1:n) v[i] <- i^2 / 3
    invisible(gc())
    message("n = ", n)
    m <- matrix(0, 3, n)
    for (j in 1:n) for (i in 1:3) m[i, j] <- v[j] * i
    options(old)
    print(sum(v))
    elapsed <- Sys.time() - t0
    m
  }
  g <- vr_compile(f)
  expect_identical(quiet(suppressMessages(g(7))), quiet(suppressMessages(f(7))))
  expect_equal(section_of(g, 1)$compiled, 1)
  expect_equal(section_of(g, 2)$compiled, 1)
  expect_message(quiet(g(3)), "n = 3")
  expect_identical(getOption("digits"), 7L)
})

test_that("a section inside an R loop keeps its state across turns", {
  f <- function(x, iters) {
    s <- 0
    for (it in 1:iters) {
      if (it %% 2 == 0) cat(".")
      for (i in seq_along(x)) s <- s + x[i] / it
    }
    cat("\n")
    s
  }
  g <- vr_compile(f)
  x <- c(0.1, 0.2, 0.7)
  expect_identical(quiet(g(x, 5)), quiet(f(x, 5)))
  expect_equal(section_of(g)$compiled, 5)
})

test_that("several outputs come back from one section", {
  f <- function(x) {
    cat("")
    s <- 0
    p <- 1
    for (i in seq_along(x)) {
      s <- s + x[i]
      p <- p * x[i]
    }
    cat("")
    c(s, p)
  }
  g <- vr_compile(f)
  x <- c(2, 0.5, 3)
  expect_identical(quiet(g(x)), f(x))
  expect_identical(section_of(g)$outputs, c("s", "p"))
  expect_equal(section_of(g)$compiled, 1)
})

test_that("a variable a section assigns only on some paths keeps its value", {
  f <- function(x) {
    best <- -1L
    message("searching")
    for (i in seq_along(x)) if (x[i] > 10) best <- i
    best
  }
  g <- vr_compile(f)
  expect_identical(quiet(suppressMessages(g(c(1, 2, 3)))), -1L)
  expect_identical(quiet(suppressMessages(g(c(1, 20, 3)))), 2L)
})

test_that("a variable first assigned inside a section's loop and read after it", {
  # The rbenchmark scalar Fibonacci: `b` has no value before the loops.
  f <- function(reps, n) {
    for (i in seq_len(reps)) {
      a <- 1
      b <- 1
      for (j in seq_len(n)) {
        t <- a
        a <- b
        b <- b + t
      }
    }
    print(b)
  }
  g <- vr_compile(f)
  expect_identical(quiet(g(3, 30)), quiet(f(3, 30)))
  expect_equal(section_of(g)$compiled, 1)
  expect_identical(section_of(g)$keep, "b")
  # No turn of the outer loop: R leaves `b` without a value, and so does the section.
  expect_error(quiet(g(0, 3)), "'b' not found")
  expect_error(f(0, 3), "'b' not found")
  expect_match(section_of(g)$why, "left `b` unassigned")
})

test_that("an index out of bounds in a section is a velociraptor_error at the user's line", {
  # A matrix row past the end is R's error ("subscript out of bounds"); a vector read
  # past its end is R's NA, and R runs the section (below).
  f <- function(x, k) {
    cat("")
    s <- 0
    for (i in 1:k) s <- s + x[i, 1]
    s
  }
  g <- vr_compile(f)
  x <- matrix(c(1, 2, 3), 3, 1)
  expect_error(f(x, 5L), "subscript out of bounds")
  e <- tryCatch(quiet(g(x, 5L)), error = function(e) e)
  expect_s3_class(e, "velociraptor_error")
  expect_identical(e$kind, "out_of_bounds")
  expect_identical(e$fun, "f")
  expect_equal(e$line, 4)
  expect_equal(e$index, 4)
  expect_equal(e$bound, 3)
  expect_no_match(conditionMessage(e), "__sec_")
  expect_identical(quiet(g(x, 2L)), 3)
  v <- function(x, k) {
    cat("")
    s <- 0
    for (i in 1:k) s <- s + x[i]
    s
  }
  expect_identical(quiet(vr_compile(v)(c(1, 2, 3), 5L)), v(c(1, 2, 3), 5L))
})

test_that("a section with no outputs still raises its errors", {
  f <- function(x) {
    cat("")
    for (i in seq_along(x)) if (x[i] < 0) stop("x must not be negative")
    sum(x)
  }
  g <- vr_compile(f)
  expect_identical(quiet(g(c(1, 2))), 3)
  expect_error(quiet(g(c(1, -2))), "x must not be negative", class = "velociraptor_error")
  expect_error(f(c(1, -2)), "x must not be negative")
  expect_identical(section_of(g)$outputs, character())
})

test_that("a section whose inputs do not compile runs in R, and says why", {
  f <- function(x) {
    cat("")
    s <- 0
    for (i in seq_along(x)) s <- s + x[[i]]
    s
  }
  g <- vr_compile(f)
  # A list of numbers compiles (its elements are the section's inputs).
  l <- list(1, 2.5, 4)
  expect_identical(quiet(g(l)), f(l))
  expect_equal(section_of(g)$compiled, 1)
  expect_equal(section_of(g)$in_r, 0)
  # Names would be dropped by compiled code: R runs the section.
  named <- c(a = 1, b = 2)
  expect_identical(quiet(g(named)), f(named))
  expect_equal(section_of(g)$in_r, 1)
  expect_match(section_of(g)$why, "attributes")
  # And a plain vector runs compiled.
  expect_identical(quiet(g(c(1, 2))), 3)
  expect_equal(section_of(g)$compiled, 2)
})

test_that("a section that does not compile for its types runs in R", {
  f <- function(n) {
    cat("")
    y <- 0
    for (i in 1:n) if (i == 2) y <- matrix(1, 2, 2)
    y
  }
  g <- vr_compile(f)
  expect_identical(quiet(g(3)), f(3))
  expect_equal(section_of(g)$compiled, 0)
  expect_match(section_of(g)$why, "y")
})

test_that("where R has an answer compiled code cannot give, the section runs in R", {
  f <- function(x) {
    cat("")
    s <- 0L
    for (i in seq_along(x)) s <- s + x[i]
    s
  }
  g <- vr_compile(f)
  big <- c(.Machine$integer.max, 1L)
  expect_warning(r <- quiet(g(big)), "NAs produced by integer overflow")
  expect_identical(r, NA_integer_)
  expect_identical(quiet(g(c(1L, 2L))), 3L)
})

test_that("sections pass values: the caller's vectors never change", {
  f <- function(x) {
    cat("")
    y <- x
    for (i in seq_along(x)) y[i] <- x[i] * 2
    for (i in seq_along(x)) x[i] <- -1
    cat("")
    y + x
  }
  g <- vr_compile(f)
  x <- c(1, 2, 3)
  keep <- x
  expect_identical(quiet(g(x)), f(x))
  expect_identical(x, keep)
})

test_that("fallback = FALSE is unchanged: an error naming the construct", {
  f <- function(x) {
    cat("")
    s <- 0
    for (i in seq_along(x)) s <- s + x[i]
    s
  }
  g <- vr_compile(f, fallback = FALSE)
  e <- tryCatch(g(c(1, 2)), error = function(e) e)
  expect_s3_class(e, "velociraptor_unsupported")
  expect_match(conditionMessage(e), "cat")
  expect_null(environment(g)$.vr_state$outline)
})

test_that("vr_explain shows which lines run compiled, which in R, and why", {
  f <- function(x) {
    cat("start\n")
    s <- 0
    for (i in seq_along(x)) s <- s + x[i]
    s
  }
  g <- vr_compile(f)
  quiet(g(c(1, 2)))
  out <- utils::capture.output(specs <- vr_explain(g, vrir = FALSE))
  expect_true(any(grepl("1 compiled section (of 1); the rest runs in R:", out, fixed = TRUE)))
  expect_true(any(grepl("line 2: in R: call to `cat` (line 2) does not compile", out, fixed = TRUE)))
  expect_true(any(grepl("lines 3-4: section 1: compiled (inputs: x; outputs: s), 1 call(s) compiled", out, fixed = TRUE)))
  expect_true(any(grepl("line 5: in R: the function's value", out, fixed = TRUE)))
  secs <- specs[[1]]$sections
  expect_length(secs, 1)
  expect_identical(secs[[1]]$lines, c(3L, 4L))
  expect_true(secs[[1]]$compiled)
  expect_identical(secs[[1]]$specs[[1]]$signature, "double vector")
  expect_true(any(grepl("(double vector): native code on the CPU", out, fixed = TRUE)))
  expect_false(any(grepl("nothing to do", out)))
  expect_false(any(grepl("_error_", out)))
  verbose <- utils::capture.output(vr_explain(g, vrir = TRUE, verbose = TRUE))
  expect_true(any(grepl("nothing to do", verbose)))
})

test_that("a compiled function's report shows the passes that did something, the user's function first", {
  f <- function(x) {
    s <- 0
    for (i in seq_along(x)) s <- s + x[i]
    s
  }
  g <- vr_compile(f)
  g(c(1, 2, 3))
  out <- utils::capture.output(vr_explain(g))
  opt <- grep("^  optimizer", out)
  expect_length(opt, 1)
  expect_match(out[opt + 1], "^    f: ")
  expect_false(any(grepl("nothing to do|_error_", out)))
  full <- utils::capture.output(vr_explain(g, verbose = TRUE))
  expect_true(length(full) > length(out))
})

test_that("an outlined function survives serialize()", {
  f <- function(x) {
    cat("")
    s <- 0
    for (i in seq_along(x)) s <- s + x[i]
    s
  }
  g <- vr_compile(f)
  quiet(g(c(1, 2)))
  g2 <- unserialize(serialize(g, NULL))
  expect_identical(quiet(g2(c(1, 2, 4))), 7)
  expect_true(section_of(g2)$compiled >= 1)
})

test_that("SIGINT (Ctrl-C) stops a long loop inside a section and R keeps running", {
  skip_on_os("windows")
  dir <- tempfile("vr-interrupt-section")
  dir.create(dir)
  pid_file <- file.path(dir, "pid")
  out_file <- file.path(dir, "out")
  script <- file.path(dir, "spin.R")
  writeLines(c(
    sprintf(".libPaths(c(%s))", paste(deparse(.libPaths()), collapse = "")),
    "library(velociraptor)",
    "spin <- function(n) {",
    "  cat('')",
    "  s <- 0",
    "  for (i in 1:n) for (j in 1:n) s <- s + (i * j) %% 7",
    "  s",
    "}",
    "g <- vr_compile(spin)",
    "small <- suppressWarnings(g(3))",
    sprintf("writeLines(as.character(Sys.getpid()), '%s')", pid_file),
    "r <- tryCatch(g(1e6), interrupt = function(e) 'interrupted')",
    "sec <- environment(g)$.vr_state$outline$sections[[1]]",
    sprintf("writeLines(c(r, small, g(3), sec$compiled), '%s')", out_file)
  ), script)
  system2(file.path(R.home("bin"), "Rscript"), script, wait = FALSE)
  wait_for <- function(f, seconds) {
    for (k in seq_len(seconds * 10)) {
      if (file.exists(f)) return(TRUE)
      Sys.sleep(0.1)
    }
    FALSE
  }
  expect_true(wait_for(pid_file, 120))
  pid <- as.integer(readLines(pid_file))
  Sys.sleep(1) # inside g(1e6)'s section by now
  tools::pskill(pid, tools::SIGINT)
  finished <- wait_for(out_file, 60)
  if (!finished) tools::pskill(pid, tools::SIGKILL)
  expect_true(finished)
  # spin(3) by hand: (i * j) %% 7 over i, j in 1..3 = 1+2+3+2+4+6+3+6+2 = 29; the
  # interrupted call neither finished compiled nor ran the loop again in R.
  expect_equal(readLines(out_file), c("interrupted", "29", "29", "2"))
})
