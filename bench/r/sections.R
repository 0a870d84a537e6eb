# Sections (issue 14, item 1): a function that does not compile whole because of one
# cat() (or print, message, options, Sys.time next to its loops) runs in R with its
# loops compiled. Target: within 1.2x of the same function without the cat(), compiled
# whole. Each kernel is timed as R runs it (byte-compiled), compiled with its sections
# outlined (the function as written), and compiled whole (the same function without the
# lines that do not compile); results are checked against R's first. Medians of
# repeated runs in this one R process; output of cat() goes to a null sink.
#
#   Rscript bench/r/sections.R [--quick]
#
# The velociraptor package is looked for in $VR_R_LIB, then the usual libraries.

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
reps <- if (quick) 3L else 11L
lib <- Sys.getenv("VR_R_LIB", "")
suppressPackageStartupMessages(library(velociraptor, lib.loc = c(if (nzchar(lib)) lib, .libPaths())))
vr_options(cache_dir = file.path(tempdir(), "vr-cache"))

# One cat() and a hot loop.
sumsq_cat <- function(x) {
  cat("summing", length(x), "values\n")
  s <- 0
  for (i in seq_along(x)) s <- s + x[i] * x[i]
  s
}
sumsq_whole <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i] * x[i]
  s
}

# Options, a clock and a message around two loops (two sections).
smooth_noisy <- function(x, passes) {
  old <- options(digits = 5)
  t0 <- Sys.time()
  n <- length(x)
  y <- x
  for (p in seq_len(passes)) {
    z <- y
    for (i in 2:(n - 1)) z[i] <- (y[i - 1] + y[i] + y[i + 1]) / 3
    y <- z
  }
  message("smoothed in ", format(Sys.time() - t0))
  e <- 0
  for (i in seq_len(n)) e <- e + (y[i] - x[i])^2
  options(old)
  e
}
smooth_whole <- function(x, passes) {
  n <- length(x)
  y <- x
  for (p in seq_len(passes)) {
    z <- y
    for (i in 2:(n - 1)) z[i] <- (y[i - 1] + y[i] + y[i + 1]) / 3
    y <- z
  }
  e <- 0
  for (i in seq_len(n)) e <- e + (y[i] - x[i])^2
  e
}

# Progress printed every turn of an outer loop: the inner loop is the section, called
# once per turn.
power_iter <- function(a, iters) {
  n <- nrow(a)
  v <- rep(1, n)
  lambda <- 0
  for (it in seq_len(iters)) {
    cat("iteration", it, "\n")
    w <- numeric(n)
    for (j in 1:n) for (i in 1:n) w[i] <- w[i] + a[i, j] * v[j]
    lambda <- sqrt(sum(w * w))
    v <- w / lambda
  }
  lambda
}
power_whole <- function(a, iters) {
  n <- nrow(a)
  v <- rep(1, n)
  lambda <- 0
  for (it in seq_len(iters)) {
    w <- numeric(n)
    for (j in 1:n) for (i in 1:n) w[i] <- w[i] + a[i, j] * v[j]
    lambda <- sqrt(sum(w * w))
    v <- w / lambda
  }
  lambda
}

for (nm in c("sumsq_cat", "sumsq_whole", "smooth_noisy", "smooth_whole", "power_iter", "power_whole")) {
  assign(nm, compiler::cmpfun(get(nm)))
}

set.seed(14)
cases <- list(
  list(name = "sumsq + cat", r = sumsq_cat, whole = sumsq_whole,
    args = list(runif(if (quick) 1e5 else 5e6))),
  list(name = "sumsq + cat (small)", r = sumsq_cat, whole = sumsq_whole,
    args = list(runif(1000))),
  list(name = "smooth + options/message", r = smooth_noisy, whole = smooth_whole,
    args = list(runif(if (quick) 1e4 else 2e5), 20)),
  list(name = "power iteration, cat per turn", r = power_iter, whole = power_whole,
    args = list(matrix(runif(if (quick) 100 else 400^2), if (quick) 10 else 400), 30))
)

null <- file(nullfile(), open = "w")
quietly <- function(expr) {
  sink(null)
  on.exit(sink())
  suppressMessages(suppressWarnings(expr))
}
# Seconds per call of each variant: `calls` calls per timing (as many as take at least
# 0.05 s, so that short calls are not below the clock's resolution), the variants timed
# in turn within each of `reps` rounds (a machine whose load drifts affects them alike);
# medians over the rounds, and the median of the per-round ratios.
time_calls <- function(f, args, calls) {
  system.time(quietly(for (k in seq_len(calls)) do.call(f, args)))[["elapsed"]] / calls
}
calls_for <- function(f, args) {
  calls <- 1L
  while (calls < 2^20 && time_calls(f, args, calls) * calls < 0.05) calls <- calls * 4L
  calls
}

cat(sprintf("%-32s %12s %13s %12s %10s %10s\n", "kernel", "R (ms)", "outlined (ms)", "whole (ms)",
  "out/whole", "R/out"))
for (cs in cases) {
  outlined <- vr_compile(cs$r)
  whole <- vr_compile(cs$whole, fallback = FALSE)
  want <- quietly(do.call(cs$r, cs$args))
  got <- quietly(do.call(outlined, cs$args))
  got_whole <- quietly(do.call(whole, cs$args))
  if (!isTRUE(all.equal(got, want, tolerance = 1e-12)) || !isTRUE(all.equal(got_whole, want, tolerance = 1e-12))) {
    stop(cs$name, ": compiled results differ from R's")
  }
  sec <- environment(outlined)$.vr_state$outline
  if (!is.list(sec) || !all(vapply(sec$sections, function(s) s$compiled > 0, TRUE))) {
    stop(cs$name, ": a section did not run compiled")
  }
  n_r <- calls_for(cs$r, cs$args)
  n_c <- calls_for(whole, cs$args)
  t <- t(vapply(seq_len(reps), function(k) c(
    r = time_calls(cs$r, cs$args, n_r),
    outlined = time_calls(outlined, cs$args, n_c),
    whole = time_calls(whole, cs$args, n_c)), c(r = 0, outlined = 0, whole = 0)))
  cat(sprintf("%-32s %12.4f %13.4f %12.4f %10.2f %10.1f\n", cs$name, 1e3 * median(t[, "r"]),
    1e3 * median(t[, "outlined"]), 1e3 * median(t[, "whole"]),
    median(t[, "outlined"] / t[, "whole"]), median(t[, "r"]) / median(t[, "outlined"])))
}
close(null)
