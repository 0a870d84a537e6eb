# Random numbers compiled from R (core/tests/frontend_r_random.rs): each function runs in
# R after set.seed(k) and compiled after the same seed; results and .Random.seed must be
# identical. These are ordinary R: prange/gpu are defined by the harness.

mc_pi <- function(n) {
  hits <- 0
  for (i in 1:n) {
    x <- runif(1)
    y <- runif(1)
    if (x * x + y * y < 1) hits <- hits + 1
  }
  4 * hits / n
}

unif_n <- function(n) runif(n)
unif_ab <- function(n, a, b) runif(n, a, b)
unif_named <- function(n) runif(max = 3, n = n, min = -1)
norm_n <- function(n) rnorm(n)
norm_ms <- function(n, m, s) rnorm(n, m, s)
norm_sd <- function(n, s) rnorm(n, sd = s)
exp_n <- function(n) rexp(n)
exp_rate <- function(n, r) rexp(n, r)
exp_one <- function(r) rexp(1, rate = r)

walk <- function(n) {
  x <- 0
  for (i in 1:n) x <- x + rnorm(1)
  x
}

mix <- function(n) {
  a <- runif(n)
  b <- sample(n)
  e <- rexp(1)
  c(a, b, e)
}

perm <- function(n) sample(n)
perm_x <- function(x) sample(x)
pick <- function(x, k) sample(x, k)
pick_r <- function(x, k) sample(x, k, replace = TRUE)
pick_one <- function(x) sample(x, 1)
sint <- function(n, k) sample.int(n, k)
sint_r <- function(n, k) sample.int(n, k, replace = TRUE)
sint_flag <- function(n, k, r) sample.int(n, size = k, replace = r)
dice <- function(n) {
  s <- 0L
  for (i in 1:n) s <- s + sample(6, 1)
  s
}

# A bootstrap (of the maximum: R's mean and sum accumulate in long double, compiled
# code in double, so their last bits may differ): sample with replacement in a loop.
boot_max <- function(x, b) {
  out <- numeric(b)
  for (k in 1:b) out[k] <- max(x[sample(length(x), replace = TRUE)])
  out
}
