# Resident memory of an R session calling a compiled function 10^5 times (opt-in, not
# part of scripts/test.sh): after a warm-up of 5,000 calls, VmRSS (from
# /proc/self/status, after gc()) must grow less than 20 MB over the next 10^5 calls.
# Every tenth call stops with an error (the error path allocates its condition too).
#   R_LIBS=$PWD/.rlib Rscript scripts/memory-flat-r.R [CALLS]
# Prints the figures; exits 1 when the bound is broken.

library(velociraptor)
vr_options(cache_dir = file.path(tempdir(), "vr-cache"))
calls <- as.integer(commandArgs(trailingOnly = TRUE)[1])
if (is.na(calls)) calls <- 100000L

ramp <- vr_compile(function(n) {
  x <- numeric(n)
  for (i in 1:n) x[i] <- i
  x
}, fallback = FALSE)
at <- vr_compile(function(x, i) x[i], fallback = FALSE)

rss_kb <- function() {
  gc()
  line <- grep("^VmRSS:", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line))
}

one <- function(k) {
  n <- 100 + k %% 900
  if (k %% 10 == 0) {
    e <- tryCatch(at(c(1, 2, 3), 5L), error = function(e) e)
    stopifnot(inherits(e, "velociraptor_error"))
  } else {
    r <- ramp(n)
    stopifnot(length(r) == n, r[n] == n)
  }
}

for (k in 1:5000) one(k)
before <- rss_kb()
t0 <- proc.time()[["elapsed"]]
for (k in 1:calls) one(k)
secs <- proc.time()[["elapsed"]] - t0
after <- rss_kb()
cat(sprintf("%d calls from R: VmRSS %.0f KiB before, %.0f KiB after (%+.0f KiB), %.1f s\n",
            calls, before, after, after - before, secs))
if (after - before > 20 * 1024) {
  cat("FAIL: resident memory grew more than 20 MB\n")
  quit(status = 1)
}
