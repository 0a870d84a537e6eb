# The R benchmarks' timing and CSV, shared by run.R, random.R and array_style.R (sourced
# by each): every timed configuration is one row with the columns of vr-bench.csv (see
# bench/src/record.rs), written into the run's folder for bench/report/report.R:
# --out=DIR, else $VR_BENCH_OUT, else target/bench-runs/<date>-<commit>.

# Wall-clock seconds with microsecond resolution (proc.time() has milliseconds).
now <- function() as.numeric(Sys.time())

# Seconds of each of n runs of f; `before` runs ahead of each run, outside the clock.
run_times <- function(n, f, before = function() NULL) {
  times <- numeric(n)
  for (r in seq_len(n)) {
    before()
    t0 <- now()
    f()
    times[r] <- now() - t0
  }
  times
}

records <- list()
# One configuration's times (seconds) as a row of the CSV.
record <- function(kernel, size, config, threads, times) {
  records[[length(records) + 1]] <<- data.frame(kernel = kernel, size = format(size, scientific = FALSE),
    config = config, threads = threads, median_s = median(times), min_s = min(times),
    max_s = max(times), reps = length(times))
}

# Writes the rows recorded so far as `name` (e.g. r-bench.csv) into the run's folder,
# with this machine, the date and the commit ($VR_BENCH_COMMIT for a copy without .git).
write_records <- function(name, args = commandArgs(trailingOnly = TRUE)) {
  out_arg <- sub("^--out=", "", grep("^--out=", args, value = TRUE))
  commit <- Sys.getenv("VR_BENCH_COMMIT", "")
  if (!nzchar(commit)) commit <- tryCatch(system2("git", c("rev-parse", "--short", "HEAD"), stdout = TRUE, stderr = FALSE)[1],
    error = function(e) "unknown", warning = function(w) "unknown")
  date <- format(Sys.time(), "%Y-%m-%dT%H:%M:%SZ", tz = "UTC")
  out_dir <- if (length(out_arg)) out_arg[1] else Sys.getenv("VR_BENCH_OUT",
    file.path("target/bench-runs", paste0(gsub("[^0-9A-Za-z]", "", date), "-", commit)))
  cpu <- tryCatch(sub(".*: ", "", grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1]), error = function(e) NA)
  csv <- do.call(rbind, records)
  csv$machine <- sprintf("%s, %d cores", if (is.na(cpu)) R.version$platform else cpu, parallel::detectCores())
  csv$date <- date
  csv$commit <- commit
  dir.create(out_dir, recursive = TRUE, showWarnings = FALSE)
  path <- file.path(out_dir, name)
  write.csv(csv, path, row.names = FALSE)
  cat(sprintf("results in %s\n", path), file = stderr())
  invisible(path)
}
