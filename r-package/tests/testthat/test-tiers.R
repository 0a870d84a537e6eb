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

test_that("tiers takes full or quick-first and nothing else", {
  expect_error(vr_options(tiers = "fast"), "`tiers` must be")
  expect_identical(vr_options()$tiers, "full")
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
