# Ctrl-C stops compiled code: a child R process runs it and is sent SIGINT, as the
# terminal sends on Ctrl-C. Compiled code (and the compiler, between its phases) polls
# R's own interrupt flag; the child sees R's `interrupt` condition, keeps running and
# calls the compiled function again.

# Run `lines` in a child Rscript; once it writes its pid (and a delay in seconds) to
# `pid_file`, wait that long and send SIGINT; the lines it then writes to `out_file`.
interrupted_child <- function(lines) {
  dir <- tempfile("vr-interrupt")
  dir.create(dir)
  pid_file <- file.path(dir, "pid")
  out_file <- file.path(dir, "out")
  script <- file.path(dir, "child.R")
  writeLines(c(
    sprintf(".libPaths(c(%s))", paste(deparse(.libPaths()), collapse = "")),
    "library(velociraptor)",
    sprintf("pid_file <- '%s'", pid_file),
    sprintf("out_file <- '%s'", out_file),
    lines
  ), script)
  log <- file.path(dir, "log")
  system2(file.path(R.home("bin"), "Rscript"), script, stdout = log, stderr = log, wait = FALSE)
  said <- function() paste(if (file.exists(log)) readLines(log, warn = FALSE), collapse = "\n")
  wait_for <- function(f, seconds) {
    for (k in seq_len(seconds * 20)) {
      if (file.exists(f) && length(readLines(f, warn = FALSE)) >= 2) return(TRUE)
      Sys.sleep(0.05)
    }
    FALSE
  }
  if (!wait_for(pid_file, 180)) stop("the child did not start: ", said())
  ready <- readLines(pid_file)
  pid <- as.integer(ready[1])
  Sys.sleep(as.numeric(ready[2]))
  tools::pskill(pid, tools::SIGINT)
  finished <- wait_for(out_file, 120)
  if (!finished) tools::pskill(pid, tools::SIGKILL)
  if (!finished) stop("the child did not finish after SIGINT: ", said())
  readLines(out_file)
}

test_that("SIGINT (Ctrl-C) stops a long compiled loop and R keeps running", {
  skip_on_os("windows")
  out <- interrupted_child(c(
    "spin <- function(n) {",
    "  s <- 0",
    "  for (i in 1:n) for (j in 1:n) s <- s + (i * j) %% 7",
    "  s",
    "}",
    "g <- vr_compile(spin, fallback = FALSE)",
    "small <- g(3)",
    # inside g(1e6) (minutes of work) a second from now
    "writeLines(as.character(c(Sys.getpid(), 1)), pid_file)",
    "r <- tryCatch(g(1e6), interrupt = function(e) 'interrupted')",
    "writeLines(c(r, small, g(3)), out_file)"
  ))
  # spin(3) by hand: (i * j) %% 7 over i, j in 1..3 = 1+2+3+2+4+6+3+6+2 = 29
  expect_equal(out, c("interrupted", "29", "29"))
})

test_that("SIGINT (Ctrl-C) stops a parallel loop (prange, cpu-par) and R keeps running", {
  skip_on_os("windows")
  out <- interrupted_child(c(
    "vr_options(threads = 2, gpu = 'off')",
    "spin_par <- function(n) {",
    "  s <- numeric(n)",
    "  for (i in prange(n)) {",
    "    t <- 0",
    "    for (j in 1:n) t <- t + j %% 3",
    "    s[i] <- t",
    "  }",
    "  sum(s)",
    "}",
    "g <- vr_compile(spin_par, fallback = FALSE)",
    "small <- g(4)",
    "report <- paste(capture.output(print(vr_explain(g))), collapse = '\\n')",
    "par <- grepl('backend: cpu-par (2 threads)', report, fixed = TRUE)",
    # g(1e6): 10^12 iterations on the two workers, hours of work
    "writeLines(as.character(c(Sys.getpid(), 1)), pid_file)",
    "t0 <- proc.time()[['elapsed']]",
    "r <- tryCatch(g(1e6), interrupt = function(e) 'interrupted')",
    "took <- proc.time()[['elapsed']] - t0",
    "writeLines(as.character(c(r, small, g(4), par, took)), out_file)"
  ))
  # spin_par(4) by hand: 4 iterations of 1 + 2 + 0 + 1 = 16
  expect_equal(out[1:4], c("interrupted", "16", "16", "TRUE"))
  # Stopped by the workers' polls: the call needs hours, so it ended near the SIGINT
  # sent a second in (not a speed assertion).
  expect_lt(as.numeric(out[5]), 60)
  if (nzchar(Sys.getenv("VR_SHOW_FAULTS"))) message("prange: interrupted after ", out[5], " s")
})

test_that("SIGINT (Ctrl-C) during a compile stops it, keeps nothing, and the next call compiles right", {
  skip_on_os("windows")
  out <- interrupted_child(c(
    "vr_options(cache_dir = '', threads = 2, gpu = 'off')",
    # One long function: N loop nests, nest k adds x * (k + c0) 12 times.
    "big <- function(N, c0) {",
    "  body <- c('function(x) {', '  s <- 0')",
    "  for (k in 1:N) body <- c(body, sprintf('  for (i in 1:4) for (j in 1:3) s <- s + x * %d', k + c0))",
    "  eval(parse(text = c(body, '  s', '}')))",
    "}",
    # How long its compile takes here: the same size with other constants.
    "h <- vr_compile(big(150, 1000), fallback = FALSE)",
    "whole <- system.time(h(1))[['elapsed']]",
    "g <- vr_compile(big(150, 0), fallback = FALSE)",
    "before <- vr_stats()$compiles",
    # SIGINT a quarter into g's compile (the first call compiles)
    "writeLines(as.character(c(Sys.getpid(), whole / 4)), pid_file)",
    "t0 <- proc.time()[['elapsed']]",
    "r <- tryCatch(g(2), interrupt = function(e) 'interrupted')",
    "took <- proc.time()[['elapsed']] - t0",
    "after <- vr_stats()$compiles",
    "again <- g(2)",
    "writeLines(as.character(c(r, after - before, again, vr_stats()$compiles - before, whole, took)), out_file)"
  ))
  # big(150, 0)(2) by hand: 12 * 2 * (1 + ... + 150) = 24 * 11325 = 271800. The
  # interrupted compile counted nothing (0), the next call compiled once (1) and is right.
  expect_equal(out[1:4], c("interrupted", "0", "271800", "1"))
  whole <- as.numeric(out[5])
  took <- as.numeric(out[6])
  # Stopped at a safe point, not at the end of the compile: the interrupt came at a
  # quarter of it; R's own handling after a finished compile would take the whole.
  expect_lt(took, 0.9 * whole)
  if (nzchar(Sys.getenv("VR_SHOW_FAULTS"))) message("compile: ", whole, " s whole, interrupted after ", took, " s")
})
