spectral_norm <- function(n) {
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

# ---- sapply ----

