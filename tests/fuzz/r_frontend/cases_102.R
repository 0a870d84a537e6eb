par_square <- function(x) {
  out <- numeric(length(x))
  for (i in prange(length(x))) {
    out[i] <- x[i]^2
  }
  out
}

