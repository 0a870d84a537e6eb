grow_preallocated <- function(n) {
  x <- numeric(2)
  x[n] <- 1
  x
}

