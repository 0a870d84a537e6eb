# R's vector style against R's loop style (issue 18, part 2): each kernel of bench/r that
# has an array-style version (`NAME_vec`, in the kernel's own file next to the loop
# version) timed as R runs it (byte-compiled), compiled by vr_compile(), and next to the
# compiled loop version and the C reference (bench/c through bench/r/c_refs.c, as
# run.R builds it). Every result is checked against R's loop version before timing
# (1e-12 relative: R's sum() adds in long double, the loops in double).
#
#   Rscript bench/r/array_style.R [--quick] [--kernel=NAME] [--reps=N] [--out=DIR]
#
# Every timed configuration is also a row of r-array-style.csv (configs `r-vec`,
# `vr-vec`, `vr-loops`, `c` and `vr-vec-first-call`; bench/r/record.R) in the run's
# folder (--out=DIR, else $VR_BENCH_OUT, else target/bench-runs/<date>-<commit>).
# Targets (issue 18): compiled array style within 1.5x of compiled loop style and
# within 2x of C. The velociraptor package is looked for in $VR_R_LIB, then the usual
# libraries; without it the script stops.

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(normalizePath(sub("^--file=", "", file_arg[1]))) else "bench/r"
reps_arg <- sub("^--reps=", "", grep("^--reps=", args, value = TRUE))
reps <- if (length(reps_arg)) as.integer(reps_arg[1]) else if (quick) 2L else 7L
r_reps <- if (quick) 1L else 3L
source(file.path(here, "record.R"))
source(file.path(here, "harness.R"))

lib <- Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")
if (!suppressWarnings(requireNamespace("velociraptor", lib.loc = c(lib, .libPaths()), quietly = TRUE)))
  stop("the velociraptor package is not installed (R CMD INSTALL -l DIR r-package; VR_R_LIB=DIR)")
vr_compile <- velociraptor::vr_compile
prange <- velociraptor::prange
# No on-disk cache: the first call column is a cold compile.
velociraptor::vr_options(cache_dir = "")

load_kernels(c("arc_distance", "rosen_der", "black_scholes", "stencil5", "matmul_loops",
  "nbody1d", "pi_sum"))
build_c_refs()

# Deterministic inputs.
set.seed(42)

kernels <- array_style_kernels(quick)
only <- sub("^--kernel=", "", grep("^--kernel=", args, value = TRUE))
if (length(only)) kernels <- Filter(function(k) k$name %in% only, kernels)

rows <- list()
for (k in kernels) {
  a <- k$inputs(k$size)
  expected <- do.call(get(k$loop), a)
  r_vec <- do.call(get(k$vec), a)
  if (!same(r_vec, expected)) stop(k$name, ": the array-style R version differs from the loop version")
  g_loop <- compile_named(k$loop)
  g_vec <- compile_named(k$vec)
  first <- now()
  got <- do.call(g_vec, a)
  first <- now() - first
  if (!same(got, r_vec)) stop(k$name, ": the compiled array-style result differs from R's")
  if (!same(do.call(g_loop, a), expected)) stop(k$name, ": the compiled loop result differs from R's")
  c_res <- k$c_call(a)
  row <- list(kernel = k$name, size = k$size, first_ms = 1000 * first)
  tr <- run_times(r_reps, function() do.call(get(k$vec), a))
  # Interleaved, so that load from other processes hits each alike.
  tv <- tl <- tc <- numeric(reps)
  for (r in seq_len(reps)) {
    tv[r] <- run_times(1, function() do.call(g_vec, a))
    tl[r] <- run_times(1, function() do.call(g_loop, a))
    tc[r] <- run_times(1, function() k$c_call(a))
  }
  for (t in list(list("r-vec", tr), list("vr-vec", tv), list("vr-loops", tl), list("c", tc), list("vr-vec-first-call", first)))
    record(k$name, k$size, t[[1]], 1L, t[[2]])
  row$r_vec <- 1000 * median(tr)
  row$vr_vec <- 1000 * median(tv)
  row$vr_loop <- 1000 * median(tl)
  row$c <- 1000 * median(tc)
  rows[[length(rows) + 1]] <- row
  cat(sprintf("%-14s done\n", k$name), file = stderr())
}

cat(sprintf("\nArray style vs loop style: %s, R %s, %s; medians of %d interleaved runs (R: %d)\n\n",
  format(Sys.time(), "%Y-%m-%d %H:%M %Z", tz = "UTC"), getRversion(),
  if (quick) "--quick (tiny sizes: the times mean nothing)" else "full sizes", reps, r_reps))
cat("| kernel | size | R array style ms | compiled array style ms | compiled loops ms | C ms | array/loops | array/C | speedup over R (array style) | first call ms |\n")
cat("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
for (row in rows) {
  cat(sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row$kernel,
    format(row$size, scientific = FALSE), fmt(row$r_vec, 1), fmt(row$vr_vec, 3), fmt(row$vr_loop, 3),
    fmt(row$c, 3), fmt(row$vr_vec / row$vr_loop), fmt(row$vr_vec / row$c),
    fmt(row$r_vec / row$vr_vec, 1), fmt(row$first_ms, 1)))
}
vl <- vapply(rows, function(r) r$vr_vec / r$vr_loop, 0)
vc <- vapply(rows, function(r) r$vr_vec / r$c, 0)
cat(sprintf("\narray/loops: median %s, worst %s (target <= 1.5); array/C: median %s, worst %s (target <= 2)\n",
  fmt(median(vl)), fmt(max(vl)), fmt(median(vc)), fmt(max(vc))))
write_records("r-array-style.csv", args)
