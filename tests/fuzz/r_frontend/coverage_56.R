gibbs_r <- function(N, thin) {
  draws <- matrix(nrow = N, ncol = 2)
  x <- 0
  y <- 0
  for (i in 1:N) {
    for (j in 1:thin) {
      x <- rgamma(1, 3, y * y + 4)
      y <- rnorm(1, 1 / (x + 1), 1 / sqrt(2 * (x + 1)))
    }
    draws[i, ] <- c(x, y)
  }
  draws
}

# --- an index 0 computed at run time inside c(...): the element drops out ---

# The ReactorLabs volcano benchmark's skip test, and a border-cell stencil.
