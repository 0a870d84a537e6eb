filter_slices <- function(v, f) {
  r <- 0
  for (i in 1L:length(f)) {
    r <- r + v[(1L + i):((length(v) - length(f)) + i)] * f[i]
  }
  r
}

# A number on one path, a vector on the other.
