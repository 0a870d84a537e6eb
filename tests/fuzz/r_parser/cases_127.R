widen <- function(n) {
  x <- 1L
  if (n > 0) x <- 2.5
  x
}

