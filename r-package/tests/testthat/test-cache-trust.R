# The on-disk cache loads machine code only from places no one but the user (or root)
# can write (?vr_options, "The on-disk cache"). Each case runs in a fresh R process (the
# warning of class `velociraptor_cache` comes once per process): it compiles
# f(x) = 3 * x against a cache another user could have tampered with, and reports the
# result, the warnings, vr_stats() and vr_explain()'s text.

rscript <- file.path(R.home("bin"), "Rscript")

# Run `code` (a string) in a new R process with this package; what it saved as `out`.
in_new_process <- function(code, env = character()) {
  out <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    # The process's default cache (opened at load) is a private one of its own.
    sprintf("Sys.setenv(R_USER_CACHE_DIR = %s)", deparse(tempfile("vr-user-cache-"))),
    "suppressPackageStartupMessages(library(velociraptor))",
    code,
    sprintf("saveRDS(out, %s)", deparse(out))), script)
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  log <- suppressWarnings(system2(rscript, c("--vanilla", shQuote(script)),
    # R_TESTS: R CMD check's startup file, which a child R must not source.
    env = c(paste0("R_LIBS=", shQuote(libs)), "R_TESTS=", env), stdout = TRUE, stderr = TRUE))
  if (!file.exists(out)) stop("the R process failed:\n", paste(log, collapse = "\n"))
  readRDS(out)
}

# Compile and call f twice (two functions, two option changes: still one warning).
use_cache <- function(dir) {
  in_new_process(sprintf('
    warnings <- character()
    withCallingHandlers({
      vr_options(cache_dir = %s)
      f <- vr_compile(function(x) x * 3)
      r <- f(2)
      vr_options(cache_dir = %s)
      g <- vr_compile(function(x) x * 3)
      r2 <- g(2)
    }, velociraptor_cache = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    out <- list(result = c(r, r2), warnings = warnings, stats = vr_stats(),
      explain = paste(capture.output(vr_explain(f, vrir = FALSE)), collapse = "\\n"))',
    deparse(dir), deparse(dir)))
}

private_dir <- function(...) {
  d <- file.path(tempfile("vr-trust-"), ...)
  dir.create(d, recursive = TRUE)
  Sys.chmod(c(dirname(d), d), "700", use_umask = FALSE)
  d
}

# A cache in `dir` holding the entry of f; the entry's path.
warm <- function(dir) {
  s <- use_cache(dir)
  expect_equal(s$result, c(6, 6))
  expect_length(s$warnings, 0)
  entry <- list.files(dir, full.names = TRUE)
  expect_length(entry, 1L)
  entry
}

# Not loaded, nothing written, the right result, one warning and the reason everywhere.
expect_refused <- function(s, why) {
  expect_equal(s$result, c(6, 6))
  expect_length(s$warnings, 1L)
  expect_match(s$warnings, why, fixed = TRUE)
  expect_match(s$warnings, "^velociraptor: on-disk cache ")
  expect_equal(s$stats$disk_hits, 0)
  expect_equal(s$stats$disk_writes, 0)
  expect_gte(s$stats$disk_untrusted, 1)
  expect_match(s$stats$disk_cache, why, fixed = TRUE)
  expect_match(s$explain, why, fixed = TRUE)
}

test_that("a private cache is written 0600 and loaded by the next process", {
  dir <- private_dir("cache")
  entry <- warm(dir)
  expect_equal(as.character(file.info(entry)$mode), "600")
  s <- use_cache(dir)
  expect_equal(s$result, c(6, 6))
  expect_length(s$warnings, 0)
  expect_gte(s$stats$disk_hits, 1)
  expect_equal(s$stats$disk_untrusted, 0)
  expect_match(s$explain, "disk cache: loaded from", fixed = TRUE)
})

test_that("a world-writable cache directory is not used", {
  dir <- private_dir("cache")
  entry <- warm(dir)
  before <- tools::md5sum(entry)
  Sys.chmod(dir, "777", use_umask = FALSE)
  expect_refused(use_cache(dir), "is writable by group and others (mode 0777)")
  expect_equal(tools::md5sum(list.files(dir, full.names = TRUE)), before)
})

test_that("a group-writable parent directory is not trusted", {
  dir <- private_dir("shared", "cache")
  warm(dir)
  Sys.chmod(dirname(dir), "770", use_umask = FALSE)
  s <- use_cache(dir)
  expect_refused(s, "is writable by its group (mode 0770)")
  expect_match(s$warnings, "its parent", fixed = TRUE)
})

test_that("a group-writable entry is neither loaded nor replaced", {
  dir <- private_dir("cache")
  entry <- warm(dir)
  Sys.chmod(entry, "660", use_umask = FALSE)
  before <- tools::md5sum(entry)
  s <- use_cache(dir)
  expect_refused(s, "is writable by its group (mode 0660)")
  expect_match(s$warnings, "entry not loaded", fixed = TRUE)
  expect_equal(tools::md5sum(entry), before)
  expect_equal(as.character(file.info(entry)$mode), "660")
})

test_that("a symlinked entry pointing elsewhere is not followed", {
  elsewhere <- warm(private_dir("elsewhere"))
  dir <- private_dir("cache")
  link <- file.path(dir, basename(elsewhere))
  expect_true(file.symlink(elsewhere, link))
  expect_refused(use_cache(dir), "is a symbolic link")
  expect_equal(Sys.readlink(link), elsewhere)
})

is_root <- identical(unname(Sys.info()[["effective_user"]]), "root")

test_that("a cache under a root-owned sticky parent such as /tmp is used", {
  if (is_root) {
    parent <- private_dir("tmp-like")
    Sys.chmod(parent, "1777", use_umask = FALSE)
    own <- tempfile("vr-sticky-", tmpdir = parent)
    dir.create(own)
    Sys.chmod(own, "700", use_umask = FALSE)
  } else {
    # The session's temporary directory sits in /tmp (writing elsewhere is not ours).
    info <- file.info(dirname(tempdir()), extra_cols = TRUE)
    if (!identical(info$uname, "root") || !identical(as.character(info$mode), "1777")) {
      skip("tempdir() is not in a root-owned directory of mode 1777 here, and only root can make one")
    }
    own <- tempdir()
  }
  dir <- file.path(own, "sticky-case", "cache")
  warm(dir)
  s <- use_cache(dir)
  expect_length(s$warnings, 0)
  expect_gte(s$stats$disk_hits, 1)
})

test_that("a cache directory owned by another user is not used", {
  if (!is_root) skip("needs root: only root can make a directory owned by another user (chown nobody)")
  dir <- private_dir("theirs")
  warm(dir)
  if (system2("chown", c("nobody", shQuote(dir))) != 0) fail("chown nobody failed")
  expect_refused(use_cache(dir), "is owned by nobody")
})

test_that("the default cache directory is created mode 0700", {
  # in_new_process points R_USER_CACHE_DIR at a directory that does not exist yet: the
  # package makes it, its `R` and its `velociraptor` at load, each 0700 whatever the
  # umask (R's dir.create would give 0755 under the usual umask of 022).
  s <- in_new_process('
    d <- tools::R_user_dir("velociraptor", "cache")
    out <- list(dir = d, modes = as.character(file.info(c(d, dirname(d), dirname(dirname(d))))$mode),
      status = vr_stats()$disk_cache)',
    env = "_R_CHECK_PACKAGE_NAME_=")
  expect_match(s$dir, "vr-user-cache-.*/R/velociraptor$")
  expect_equal(s$modes, c("700", "700", "700"))
  expect_match(s$status, "^in use: ")
})
