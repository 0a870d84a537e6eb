# Closures and functionals (issue 14, item 2): R code in the style that uses inner helper
# functions and the apply family, timed as R runs it (byte-compiled) and compiled by
# vr_compile() (serial), with the ratio. Results are checked against R's first.
#
#   Rscript bench/r/functionals.R [--quick]
#
# The velociraptor package is looked for in $VR_R_LIB, then the usual libraries.

quick <- "--quick" %in% commandArgs(trailingOnly = TRUE)
lib <- Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")
suppressPackageStartupMessages(library(velociraptor, lib.loc = c(lib, .libPaths())))

# The Benchmarks Game's spectral norm as R users write it: helpers inside the function,
# sapply over an anonymous function.
spectral <- function(n) {
  eval_A <- function(i, j) 1 / ((i + j) * (i + j + 1) / 2 + i + 1)
  times_u <- function(u) {
    v <- numeric(n)
    for (i in 1:n) v[i] <- sum(u * sapply(1:n, function(j) eval_A(i - 1, j - 1)))
    v
  }
  times_ut <- function(u) {
    v <- numeric(n)
    for (i in 1:n) v[i] <- sum(u * sapply(1:n, function(j) eval_A(j - 1, i - 1)))
    v
  }
  u <- rep(1, n)
  for (it in 1:10) {
    v <- times_ut(times_u(u))
    u <- times_ut(times_u(v))
  }
  sqrt(sum(u * v) / sum(v * v))
}
fold <- function(x) Reduce(function(a, b) a + b * b, x, 0)
per_element <- function(x) vapply(x, function(v) sqrt(v) + v^2, numeric(1))
pairwise <- function(x, y) outer(x, y, function(a, b) sqrt(a * a + b * b))
row_ranges <- function(m) apply(m, 1, function(r) max(r) - min(r))

set.seed(42)
n <- if (quick) 60L else 200L
x <- runif(if (quick) 1e5 else 1e6)
m <- matrix(runif(if (quick) 1e4 else 1e6), ncol = 100)
y <- runif(if (quick) 300 else 1000)
cases <- list(
  list("spectral norm (n = %d)", spectral, list(n), 1e-14),
  list("Reduce over %d", fold, list(x), 1e-12),
  list("vapply over %d", per_element, list(x), 0),
  list("outer %d x %d", pairwise, list(y, y), 0),
  list("apply over %d rows", row_ranges, list(m), 0)
)
reps <- if (quick) 2L else 5L
median_time <- function(f, args) median(vapply(seq_len(reps), function(k) system.time(do.call(f, args))[["elapsed"]], 0))
cat(sprintf("%-26s %10s %12s %8s\n", "kernel", "R (s)", "compiled (s)", "ratio"))
for (cs in cases) {
  f <- compiler::cmpfun(cs[[2]])
  g <- vr_compile(cs[[2]], fallback = FALSE)
  want <- do.call(f, cs[[3]])
  got <- do.call(g, cs[[3]])
  ok <- if (cs[[4]] == 0) identical(got, want) else isTRUE(all.equal(got, want, tolerance = cs[[4]]))
  if (!ok) stop(cs[[1]], ": compiled result differs from R's")
  a <- median_time(f, cs[[3]])
  b <- median_time(g, cs[[3]])
  label <- do.call(sprintf, c(list(cs[[1]]), lapply(cs[[3]], function(v) if (is.matrix(v)) nrow(v) else length(v))))
  if (identical(cs[[2]], spectral)) label <- sprintf(cs[[1]], n)
  cat(sprintf("%-26s %10.3f %12.4f %7.1fx\n", label, a, b, a / b))
}
