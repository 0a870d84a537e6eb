# The R benchmark (issue 6, item 10): each kernel of bench/r/ timed as R runs it
# (byte-compiled), compiled by vr_compile() serially, compiled with its prange() loop in
# parallel, with bounds checks off, and as its C reference (bench/c, built here with
# gcc -O2 -march=native into a shared object, called through the .Call wrappers of
# bench/r/c_refs.c), plus the call overhead of a compiled 3-argument function.
# Every result is checked against R's before anything is timed. Medians of several runs,
# all in this one R process.
#
#   Rscript bench/r/run.R [--quick] [--kernel=NAME] [--out=DIR]
#
# Besides the Markdown table it writes every timed configuration as CSV (r-bench.csv: the
# columns of vr-bench.csv, see bench/src/record.rs) into the run's folder: --out=DIR, else
# $VR_BENCH_OUT, else target/bench-runs/<date>-<commit>.
#
# Without the velociraptor package (looked for in $VR_R_LIB, then the usual libraries)
# it times R against C only, and says so.

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(normalizePath(sub("^--file=", "", file_arg[1]))) else "bench/r"
reps <- if (quick) 2L else 7L
r_reps <- if (quick) 1L else 3L
source(file.path(here, "record.R"))
source(file.path(here, "harness.R"))

lib <- Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")
have_vr <- suppressWarnings(requireNamespace("velociraptor", lib.loc = c(lib, .libPaths()), quietly = TRUE))
if (have_vr) {
  vr_compile <- velociraptor::vr_compile
  vr_options <- velociraptor::vr_options
  prange <- velociraptor::prange
} else {
  prange <- function(n) seq_len(n)
}

load_kernels(c("arc_distance", "julia_set", "growcut", "rosen_der", "stencil5",
  "matmul_loops", "nbody1d", "black_scholes", "pi_sum", "mandelbrot", "fib"))
build_c_refs()

# Deterministic inputs.
set.seed(42)

# One kernel: its R function, its prange variant (or NULL), inputs at a size, how the C
# reference is called on prepared arguments (prep runs before timing; post turns the C
# result into R's layout for the check).
K <- function(name, fun, par, size, quick_size, inputs, c_call, prep = identity,
              post = identity, tol = 1e-12) {
  list(name = name, fun = fun, par = par, size = if (quick) quick_size else size,
    inputs = inputs, c_call = c_call, prep = prep, post = post, tol = tol)
}

kernels <- list(
  K("arc_distance", "arc_distance", "arc_distance_par", 400000, 100,
    function(n) list(unif(n, -1.5, 1.5), unif(n, -1.5, 1.5), unif(n, -1.5, 1.5), unif(n, -1.5, 1.5)),
    function(a) .Call(cfun("c_arc_distance"), a[[1]], a[[2]], a[[3]], a[[4]])),
  K("julia_set", "julia_set", "julia_set_par", 400, 8,
    function(n) list(-0.7, 0.27, 1.5, 1000, 300L, n),
    function(a) .Call(cfun("c_julia_set"), a[[1]], a[[2]], a[[3]], a[[4]], a[[5]], a[[6]])),
  K("growcut", "growcut", "growcut_par", 500, 6,
    function(n) {
      image <- array(unif(n * n * 3), c(n, n, 3))
      state <- array(0, c(n, n, 2))
      cell <- seq_len(n * n) - 1
      seed <- cell %% 97 == 0
      state[, , 1][seed] <- 1 + cell[seed] %% 3
      state[, , 2][seed] <- 1
      list(image, state, 1L)
    },
    function(a) .Call(cfun("c_growcut"), a[[1]], a[[2]], a[[3]]),
    prep = function(a) list(aperm(a[[1]], 3:1), aperm(a[[2]], 3:1), a[[3]]),
    post = function(r) aperm(r, 3:1)),
  K("rosen_der", "rosen_der", "rosen_der_par", 4000000, 100,
    function(n) list(unif(n, 0, 2)),
    function(a) .Call(cfun("c_rosen_der"), a[[1]])),
  K("stencil5", "stencil5", "stencil5_par", 2000, 10,
    function(n) list(matrix(unif(n * n), n, n)),
    function(a) .Call(cfun("c_stencil5"), a[[1]])),
  K("matmul_loops", "matmul_loops", "matmul_loops_par", 300, 6,
    function(n) list(matrix(unif(n * n) - 0.5, n, n), matrix(unif(n * n) - 0.5, n, n)),
    function(a) .Call(cfun("c_matmul_loops"), a[[1]], a[[2]])),
  K("nbody1d", "nbody1d", "nbody1d_par", 3000, 8,
    function(n) list(unif(n) * 100, unif(n) - 0.5, unif(n) + 0.5, 0.01, 1e-3),
    function(a) .Call(cfun("c_nbody1d"), a[[1]], a[[2]], a[[3]], a[[4]], a[[5]])),
  K("black_scholes", "black_scholes", "black_scholes_par", 1000000, 100,
    function(n) list(5 + unif(n) * 25, 1 + unif(n) * 99, 0.25 + unif(n) * 9.75, 0.02, 0.3),
    function(a) .Call(cfun("c_black_scholes"), a[[1]], a[[2]], a[[3]], a[[4]], a[[5]])),
  K("pi_sum", "pi_sum", NULL, 10000, 100,
    function(n) list(500, n),
    function(a) .Call(cfun("c_pi_sum"), a[[1]], a[[2]])),
  K("mandelbrot", "mandelbrot", "mandelbrot_par", 400, 8,
    function(n) list(n),
    function(a) .Call(cfun("c_mandelbrot"), a[[1]])),
  K("fib", "fib", NULL, 25L, 10L,
    function(n) list(as.integer(n)),
    function(a) .Call(cfun("c_fib"), a[[1]]))
)
only <- sub("^--kernel=", "", grep("^--kernel=", args, value = TRUE))
if (length(only)) kernels <- Filter(function(k) k$name %in% only, kernels)

# Median milliseconds of n runs of f; with `as`, the times are recorded as that
# configuration of the current kernel.
median_ms <- function(n, f, as = NULL, threads = 1L) {
  times <- run_times(n, f)
  if (!is.null(as)) record(current$name, current$size, as, threads, times)
  1000 * median(times)
}
threads_used <- if (have_vr) as.integer(vr_options()$threads) else 1L

rows <- list()
for (k in kernels) {
  current <- k
  a <- k$inputs(k$size)
  f_r <- get(k$fun)
  expected <- do.call(f_r, a)
  c_args <- k$prep(a)
  c_result <- k$post(k$c_call(c_args))
  if (!same(c_result, expected, 1e-12)) stop(k$name, ": the C reference differs from R")
  row <- list(kernel = k$name, size = k$size)
  row$r_ms <- median_ms(r_reps, function() do.call(f_r, a), as = "r")
  row$c_ms <- median_ms(reps, function() k$c_call(c_args), as = "c")
  row$serial_ms <- row$par_ms <- row$nocheck_ms <- NA_real_
  if (have_vr) {
    vr_options(bounds_checks = TRUE)
    g <- compile_named(k$fun)
    t0 <- now()
    got <- do.call(g, a)
    record(k$name, k$size, "vr-first-call", 1L, now() - t0)
    if (!same(got, expected, k$tol)) stop(k$name, ": compiled result differs from R's")
    row$serial_ms <- median_ms(reps, function() do.call(g, a), as = "vr-checks-on")
    if (!is.null(k$par)) {
      gp <- compile_named(k$par)
      got <- do.call(gp, a)
      if (!same(got, expected, k$tol)) stop(k$name, ": compiled parallel result differs from R's")
      row$par_ms <- median_ms(reps, function() do.call(gp, a), as = "vr-par", threads = threads_used)
    }
    vr_options(bounds_checks = FALSE)
    g0 <- compile_named(k$fun)
    got <- do.call(g0, a)
    if (!same(got, expected, k$tol)) stop(k$name, ": compiled (checks off) result differs from R's")
    row$nocheck_ms <- median_ms(reps, function() do.call(g0, a), as = "vr-checks-off")
    vr_options(bounds_checks = TRUE)
  }
  rows[[length(rows) + 1]] <- row
  cat(sprintf("%-14s done (R %.1f ms, C %.2f ms, compiled %s ms)\n", k$name, row$r_ms,
    row$c_ms, fmt(row$serial_ms)), file = stderr())
}

# Call overhead: a compiled function of 3 scalar arguments, called in a loop of 10,000
# (median of 7 loops, per call), next to R's own closure and a .Call of C doing the same.
add3 <- function(a, b, c) a + b * c
per_call_us <- function(f) {
  n <- if (quick) 1000L else 10000L
  times <- numeric(7)
  for (r in 1:7) {
    t0 <- now()
    for (i in seq_len(n)) f(1, 2, 3)
    times[r] <- (now() - t0) / n
  }
  1e6 * median(times)
}
empty_loop_us <- per_call_us(function(a, b, c) NULL)
overhead <- list(r = per_call_us(compiler::cmpfun(add3)))
if (have_vr) {
  vr_options(bounds_checks = TRUE)
  g3 <- compile_named("add3")
  if (!identical(g3(1, 2, 3), 7)) stop("add3: compiled result differs from R's")
  overhead$compiled <- per_call_us(g3)
}

# The table (markdown).
ratio <- function(a, b) if (is.na(a) || is.na(b) || b == 0) NA_real_ else a / b
cat("\n")
cat(sprintf("R benchmark: %s, R %s, %s, velociraptor %s\n", format(Sys.time(), "%Y-%m-%d %H:%M %Z", tz = "UTC"),
  getRversion(), if (quick) "--quick (tiny sizes: the times mean nothing)" else "full sizes",
  if (have_vr) as.character(utils::packageVersion("velociraptor", lib.loc = c(lib, .libPaths()))) else "NOT INSTALLED (R vs C only)"))
cat(sprintf("medians: %d runs (R: %d) per entry; every result equal to R's (1e-12 relative) before timing\n\n", reps, r_reps))
cat("| kernel | size | R ms | compiled ms (checks on) | compiled ms (checks off) | compiled parallel ms | C ms | compiled/C (on) | compiled/C (off) | speedup over R | parallel speedup |\n")
cat("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
ratios_on <- ratios_off <- speedups <- numeric()
for (row in rows) {
  on <- ratio(row$serial_ms, row$c_ms)
  off <- ratio(row$nocheck_ms, row$c_ms)
  sp <- ratio(row$r_ms, row$serial_ms)
  ratios_on <- c(ratios_on, on)
  ratios_off <- c(ratios_off, off)
  speedups <- c(speedups, sp)
  cat(sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row$kernel,
    format(row$size, scientific = FALSE), fmt(row$r_ms, 1), fmt(row$serial_ms, 3),
    fmt(row$nocheck_ms, 3), fmt(row$par_ms, 3), fmt(row$c_ms, 3), fmt(on), fmt(off),
    fmt(sp, 1), fmt(ratio(row$serial_ms, row$par_ms))))
}
cat("\n")
if (have_vr) {
  cat(sprintf("median compiled/C over %d kernels: %s (checks on), %s (checks off); target <= 1.3\n",
    length(rows), fmt(median(ratios_on)), fmt(median(ratios_off))))
  cat(sprintf("median speedup over R: %sx\n", fmt(median(speedups), 1)))
  cat(sprintf("call overhead, 3 scalar arguments (per call, median of 7 loops, loop itself %.2f us): compiled %.2f us (target <= 5), R closure %.2f us\n",
    empty_loop_us, overhead$compiled, overhead$r))
} else {
  cat("velociraptor is not installed: R and C only (install with R CMD INSTALL -l DIR r-package; VR_R_LIB=DIR)\n")
  cat(sprintf("median C speedup over R: %sx\n",
    fmt(median(vapply(rows, function(r) r$r_ms / r$c_ms, 0)), 1)))
}

# The CSV of this run (bench/report/report.R charts it).
if (have_vr) {
  record("call_overhead", 3, "vr-call", 1L, overhead$compiled / 1e6)
}
record("call_overhead", 3, "r-call", 1L, overhead$r / 1e6)
write_records("r-bench.csv", args)
