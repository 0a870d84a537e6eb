# The random-number benchmark (issue 14, item 4): R code that draws in its loops, timed as
# R runs it (byte-compiled) and compiled by vr_compile(), whose draws are R's own
# (unif_rand, norm_rand, exp_rand, R_unif_index through the C API's random hook). Every
# compiled result, and .Random.seed after it, is checked identical() to R's after the
# same set.seed() before anything is timed. Prints the ratios; asserts no time. Every
# timed configuration is also a row of r-random.csv (configs `r` and `vr-checks-on`,
# as in run.R's r-bench.csv; bench/r/record.R) in the run's folder (--out=DIR).
#
#   Rscript bench/r/random.R [--quick] [--out=DIR]
#
# Needs the velociraptor package (looked for in $VR_R_LIB, then the usual libraries).

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
reps <- if (quick) 2L else 7L
r_reps <- if (quick) 1L else 3L
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(normalizePath(sub("^--file=", "", file_arg[1]))) else "bench/r"
source(file.path(here, "record.R"))
lib <- Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")
if (!suppressWarnings(requireNamespace("velociraptor", lib.loc = c(lib, .libPaths()), quietly = TRUE))) {
  stop("bench/r/random.R needs the velociraptor package (install it, or set VR_R_LIB)")
}
vr_compile <- velociraptor::vr_compile

# Monte-Carlo estimate of pi: two runif(1) calls per point, as R users write it.
mc_pi <- function(n) {
  hits <- 0
  for (i in 1:n) {
    x <- runif(1)
    y <- runif(1)
    if (x * x + y * y < 1) hits <- hits + 1
  }
  4 * hits / n
}

# A Gaussian random walk, one rnorm(1) per step, tracking the largest excursion.
walk_max <- function(n) {
  x <- 0
  m <- 0
  for (i in 1:n) {
    x <- x + rnorm(1)
    if (abs(x) > m) m <- abs(x)
  }
  m
}

# Vectorised draws: runif(n) and rnorm(n) in one call each (R's loop is already C).
vector_draws <- function(n) {
  u <- runif(n)
  z <- rnorm(n, 1, 2)
  u[n] + z[n]
}

# Dice: sample(6, 1) per roll.
dice <- function(n) {
  s <- 0L
  for (i in 1:n) s <- s + sample(6, 1)
  s
}

kernels <- list(
  list(name = "mc_pi", fun = mc_pi, n = if (quick) 1e4 else 2e6),
  list(name = "walk_max", fun = walk_max, n = if (quick) 1e4 else 1e6),
  list(name = "vector_draws", fun = vector_draws, n = if (quick) 1e4 else 2e6),
  list(name = "dice", fun = dice, n = if (quick) 1e4 else 1e6)
)

# Median milliseconds of n runs of f, each after the same set.seed(); recorded as
# `config` of kernel k.
median_ms <- function(n, f, k, config) {
  times <- run_times(n, f, before = function() set.seed(1))
  record(k$name, k$n, config, 1L, times)
  1000 * median(times)
}

rows <- list()
for (k in kernels) {
  f_r <- compiler::cmpfun(k$fun)
  g <- vr_compile(k$fun, fallback = FALSE)
  set.seed(1)
  want <- f_r(k$n)
  want_seed <- .Random.seed
  set.seed(1)
  got <- g(k$n)
  if (!identical(got, want) || !identical(.Random.seed, want_seed)) {
    stop(k$name, ": the compiled result or .Random.seed differs from R's")
  }
  r_ms <- median_ms(r_reps, function() f_r(k$n), k, "r")
  c_ms <- median_ms(reps, function() g(k$n), k, "vr-checks-on")
  rows[[length(rows) + 1]] <- list(name = k$name, n = k$n, r_ms = r_ms, c_ms = c_ms)
}

cat(sprintf("random-number benchmark: %s, R %s, %s; medians of %d runs (R: %d); results and .Random.seed identical() to R's\n\n",
  format(Sys.time(), "%Y-%m-%d %H:%M %Z", tz = "UTC"), getRversion(),
  if (quick) "--quick (tiny sizes: the times mean nothing)" else "full sizes", reps, r_reps))
cat("| kernel | n | R ms | compiled ms | speedup over R |\n| --- | ---: | ---: | ---: | ---: |\n")
for (row in rows) {
  cat(sprintf("| %s | %s | %.1f | %.2f | %.1f |\n", row$name, format(row$n, scientific = FALSE),
    row$r_ms, row$c_ms, row$r_ms / row$c_ms))
}
write_records("r-random.csv", args)
