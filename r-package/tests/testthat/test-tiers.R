# vr_options(tiers = "quick-first"): the first call runs quick code while the
# full-strength code compiles in the background; results are R's either way, explain
# says which code runs and what went to the on-disk cache, and a new R process loads
# the full-strength entry the background compile wrote.

rscript <- file.path(R.home("bin"), "Rscript")

# Loops over a matrix, summed in an order R's own loop reproduces.
tier_kernel <- function(a) {
  s <- 0
  for (j in seq_len(ncol(a))) for (i in seq_len(nrow(a))) s <- s + a[i, j] * (i - j)
  s
}

test_that("tiers takes full, quick-first or auto (the default) and nothing else", {
  expect_error(vr_options(tiers = "fast"), "`tiers` must be")
  expect_identical(vr_options()$tiers, "auto")
})

test_that("quick-first gives R's results, then the full-strength code, written to disk", {
  old <- vr_options()
  on.exit(vr_options(tiers = old$tiers, cache_dir = old$cache_dir))
  dir <- file.path(tempdir(), "vr-tiers-cache")
  vr_options(tiers = "quick-first", cache_dir = dir)
  a <- matrix(seq(0.5, 60, by = 0.5), 12, 10)
  want <- tier_kernel(a)
  g <- vr_compile(tier_kernel, fallback = FALSE)
  writes <- vr_stats()$disk_writes
  expect_identical(g(a), want)
  ex <- paste(capture.output(vr_explain(g)), collapse = "\n")
  expect_match(ex, "code: full strength (swapped in", fixed = TRUE)
  expect_match(ex, "disk cache: compiled; written to", fixed = TRUE)
  expect_equal(vr_stats()$disk_writes, writes + 1)
  expect_identical(g(a), want)
  expect_identical(g(a * 2), tier_kernel(a * 2))

  # A new process loads the entry (tiers or not: loaded code is full strength).
  out <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    sprintf("Sys.setenv(R_USER_CACHE_DIR = %s)", deparse(tempfile("vr-user-cache-"))),
    "suppressPackageStartupMessages(library(velociraptor))",
    sprintf("vr_options(tiers = 'quick-first', cache_dir = %s)", deparse(dir)),
    paste("tier_kernel <-", paste(deparse(tier_kernel), collapse = "\n")),
    "g <- vr_compile(tier_kernel, fallback = FALSE)",
    "r <- g(matrix(seq(0.5, 60, by = 0.5), 12, 10))",
    "out <- list(r = r, hits = vr_stats()$disk_hits, explain = paste(capture.output(vr_explain(g)), collapse = '\\n'))",
    sprintf("saveRDS(out, %s)", deparse(out))), script)
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  log <- suppressWarnings(system2(rscript, c("--vanilla", shQuote(script)),
    env = c(paste0("R_LIBS=", shQuote(libs)), "R_TESTS="), stdout = TRUE, stderr = TRUE))
  if (!file.exists(out)) stop("the R process failed:\n", paste(log, collapse = "\n"))
  s <- readRDS(out)
  expect_identical(s$r, want)
  expect_equal(s$hits, 1)
  expect_match(s$explain, "disk cache: loaded from", fixed = TRUE)
  expect_false(grepl("code:", s$explain, fixed = TRUE))
})

# Sums of integers (exact in doubles), so R's vectorized closed form is the expected value.
long_kernel <- function(n, m) {
  s <- 0
  for (i in seq_len(n)) for (j in seq_len(m)) s <- s + (i %% 7L) * (j %% 5L)
  s
}

test_that("auto runs a short first call at once and makes a long one wait for the full tier", {
  old <- vr_options()
  on.exit({
    vr_options(tiers = old$tiers, cache_dir = old$cache_dir)
    Sys.unsetenv("VR_TIER_UP_DELAY_MS")
  })
  vr_options(tiers = "auto", cache_dir = "")
  # The background compiles start 100 ms late: the first calls below certainly find
  # them compiling.
  Sys.setenv(VR_TIER_UP_DELAY_MS = "100")
  expected <- function(n, m) as.double(sum(seq_len(n) %% 7L)) * sum(seq_len(m) %% 5L)

  short <- vr_compile(long_kernel, fallback = FALSE)
  expect_identical(short(3L, 4L), expected(3L, 4L))
  ex <- paste(capture.output(vr_explain(short, vrir = FALSE)), collapse = "\n")
  expect_match(ex, "tiers auto: `long_kernel`'s first call (", fixed = TRUE)
  expect_match(ex, "at full strength) ran the quick tier", fixed = TRUE)

  # 6.4e7 iterations: estimated at 0.3 s, so the call waits (the compile takes ~0.1 s).
  # Doubles: a specialization of its own, compiled now.
  long <- vr_compile(long_kernel, fallback = FALSE)
  expect_identical(long(8000, 8000), expected(8000L, 8000L))
  ex <- paste(capture.output(vr_explain(long, vrir = FALSE)), collapse = "\n")
  expect_match(ex, "at full strength) waited for the full tier (ready", fixed = TRUE)
  expect_identical(long(5, 6), expected(5L, 6L))
})
