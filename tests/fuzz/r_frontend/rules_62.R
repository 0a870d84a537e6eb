grow_gap <- function() {
  x <- numeric(0)
  x[3] <- 1
  x
}

