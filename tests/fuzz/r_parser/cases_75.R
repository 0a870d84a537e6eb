first_over <- function(x, limit) {
  i <- 0L
  repeat {
    i <- i + 1L
    if (i > length(x)) return(-1L)
    if (x[i] > limit) break
  }
  i
}

