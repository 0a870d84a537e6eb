# Growth by assignment (issue 14): appending n elements one at a time in a loop, as R
# users write it, run by R (byte-compiled) and compiled by vr_compile(). Compiled code
# doubles the capacity when it must, so n appends cost O(n): the time for 2n appends is
# about twice the time for n. R grows `x[length(x) + 1] <- v` in place too (since R
# 3.4), but `x <- c(x, v)` copies the whole vector every time (O(n^2)), so R runs that
# form at a smaller n. Results are checked against R's before anything is timed.
#
#   Rscript bench/r/growth.R [--quick]
#
# Needs the velociraptor package (looked for in $VR_R_LIB, then the usual libraries).

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
lib <- Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")
if (!suppressWarnings(requireNamespace("velociraptor", lib.loc = c(lib, .libPaths()), quietly = TRUE))) {
  stop("bench/r/growth.R needs the velociraptor package (set VR_R_LIB)")
}
vr_compile <- velociraptor::vr_compile

grow_index <- function(n) {
  x <- c()
  for (i in seq_len(n)) x[length(x) + 1] <- i * 0.5
  x
}

grow_c <- function(n) {
  x <- c()
  for (i in seq_len(n)) x <- c(x, i * 0.5)
  x
}

reps <- if (quick) 1L else 3L
n <- if (quick) 1e5 else 1e6
n_r_c <- if (quick) 1e4 else 5e4

# Seconds per call: calls repeated until a run lasts 0.2 s (the clock counts
# milliseconds), the median of `reps` such runs.
seconds <- function(f, n) {
  f(n)
  once <- function() {
    k <- 1
    repeat {
      t <- system.time(for (j in seq_len(k)) f(n))[["elapsed"]]
      if (t >= 0.2) return(t / k)
      k <- k * 2
    }
  }
  median(vapply(seq_len(reps), function(r) once(), 0))
}

cat(sprintf("%-12s %10s %12s %12s %10s %16s\n", "kernel", "n", "R (s)", "compiled (s)", "R / comp", "comp 2n / n"))
for (k in c("grow_index", "grow_c")) {
  f <- compiler::cmpfun(get(k))
  g <- vr_compile(get(k), fallback = FALSE)
  stopifnot(identical(g(1000L), f(1000L)), identical(g(n_r_c), f(n_r_c)))
  nr <- if (k == "grow_c") n_r_c else n
  t_r <- seconds(f, nr)
  t_c_same <- seconds(g, nr)
  t_c <- seconds(g, n)
  t_c2 <- seconds(g, 2 * n)
  cat(sprintf("%-12s %10.0f %12.5f %12.5f %10.1f %16s\n", k, nr, t_r, t_c_same, t_r / t_c_same, ""))
  cat(sprintf("%-12s %10.0f %12s %12.5f %10s %16.2f\n", k, n, "", t_c, "", t_c2 / t_c))
}
