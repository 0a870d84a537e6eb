gcd_pairs <- function(a, b) {
  gcd2 <- function(x, y) {
    if (sum(y > 1.0E-4) == 0) x else { y[y == 0] <- x[y == 0]; Recall(y, x %% y) }
  }
  gcd2(a, b)
}

# Recall in a top-level function.
