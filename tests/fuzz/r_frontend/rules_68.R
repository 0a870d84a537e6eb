grow_counter <- function(n) {
  x <- vector("double", 0)
  k <- 0
  while (k < n) {
    k <- k + 1
    x[k] <- k^2
  }
  x
}

