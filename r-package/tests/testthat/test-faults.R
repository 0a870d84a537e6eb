# Faults inside compiled code, as an R session meets them: a compiled function asking
# for an impossible amount of memory, or for more than the process may have (an R
# subprocess under `ulimit -v`), stops with a velociraptor_error and the session (or
# subprocess) answers correctly afterwards. Expected values by hand: x[n] <- 1 on zeros
# sums to 1.

last_one <- function(n) {
  x <- numeric(n)
  x[n] <- 1
  sum(x)
}

test_that("an impossible allocation is a velociraptor_error and the session goes on", {
  g <- vr_compile(last_one, fallback = FALSE)
  expect_identical(g(10), 1)
  for (n in c(1e15, 2^61)) {
    e <- tryCatch(g(n), error = function(e) e)
    expect_s3_class(e, "velociraptor_error")
    expect_match(conditionMessage(e), "allocated more than|too large")
    expect_match(conditionMessage(e), "last_one")
  }
  expect_identical(g(1000), 1)
  expect_identical(g(1e6), 1)
})

test_that("out of memory under ulimit -v is a velociraptor_error and R goes on", {
  skip_on_os("windows")
  skip_if_not(nzchar(Sys.which("bash")), "needs bash for ulimit")
  rscript <- file.path(R.home("bin"), "Rscript")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    sprintf(".libPaths(c(%s, .libPaths()))", deparse(.libPaths()[1])),
    "library(velociraptor)",
    sprintf("vr_options(cache_dir = %s)", deparse(file.path(tempdir(), "vr-cache-ulimit"))),
    sprintf("last_one <- %s", paste(deparse(last_one), collapse = "\n")),
    "g <- vr_compile(last_one, fallback = FALSE)",
    "stopifnot(identical(g(10), 1))",
    "vm <- grep('^VmSize', readLines('/proc/self/status'), value = TRUE)",
    "cat('SIZE', vm, '\\n')",
    # 6e8 doubles: 4.8 GB, under the 8 GiB per-call limit, over what ulimit leaves.
    "e <- tryCatch(g(6e8), error = function(e) e)",
    "cat('CLASS', class(e), '\\n')",
    "cat('MESSAGE', conditionMessage(e), '\\n')",
    "cat('AFTER', g(1e5), '\\n')"
  ), script)
  # 4 GB of address space: room for R, LLVM and the package, not for 4.8 GB more.
  out <- suppressWarnings(system2("bash", c("-c", shQuote(sprintf(
    "ulimit -v 4000000; %s --vanilla %s 2>&1", shQuote(rscript), shQuote(script)))),
    stdout = TRUE))
  text <- paste(out, collapse = "\n")
  if (nzchar(Sys.getenv("VR_SHOW_FAULTS"))) message(text)
  expect_match(text, "CLASS velociraptor_error", fixed = TRUE, info = text)
  expect_match(text, "MESSAGE .*cannot allocate 4800000064 bytes", info = text)
  expect_match(text, "AFTER 1 ", fixed = TRUE, info = text)
})
