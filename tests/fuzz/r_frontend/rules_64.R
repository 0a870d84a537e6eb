grow_gap_int <- function() {
  x <- integer(0)
  x[3] <- 1L
  x
}

