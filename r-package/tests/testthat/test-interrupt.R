# Ctrl-C stops a long compiled loop: a child R process runs one (1e12 iterations,
# minutes of work) and is sent SIGINT, as the terminal sends on Ctrl-C. Compiled code
# polls R's own interrupt flag; the child sees R's `interrupt` condition, keeps
# running and calls the compiled function again.
test_that("SIGINT (Ctrl-C) stops a long compiled loop and R keeps running", {
  skip_on_os("windows")
  dir <- tempfile("vr-interrupt")
  dir.create(dir)
  pid_file <- file.path(dir, "pid")
  out_file <- file.path(dir, "out")
  script <- file.path(dir, "spin.R")
  writeLines(c(
    sprintf(".libPaths(c(%s))", paste(deparse(.libPaths()), collapse = "")),
    "library(velociraptor)",
    "spin <- function(n) {",
    "  s <- 0",
    "  for (i in 1:n) for (j in 1:n) s <- s + (i * j) %% 7",
    "  s",
    "}",
    "g <- vr_compile(spin, fallback = FALSE)",
    "small <- g(3)",
    sprintf("writeLines(as.character(Sys.getpid()), '%s')", pid_file),
    "r <- tryCatch(g(1e6), interrupt = function(e) 'interrupted')",
    sprintf("writeLines(c(r, small, g(3)), '%s')", out_file)
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
  Sys.sleep(1) # inside g(1e6) by now
  tools::pskill(pid, tools::SIGINT)
  finished <- wait_for(out_file, 60)
  if (!finished) tools::pskill(pid, tools::SIGKILL)
  expect_true(finished)
  # spin(3) by hand: (i * j) %% 7 over i, j in 1..3 = 1+2+3+2+4+6+3+6+2 = 29
  expect_equal(readLines(out_file), c("interrupted", "29", "29"))
})
