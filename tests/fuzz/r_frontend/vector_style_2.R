nbody_vec <- function(x, m, eps) {
  n <- length(x)
  f <- numeric(n)
  for (k in 1:n) {
    d <- x - x[k]
    r2 <- d * d + eps
    f[k] <- sum(m * d / (r2 * sqrt(r2)))
  }
  f
}

# A chain over three vectors, its result summed.
