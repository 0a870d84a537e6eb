grown_from_zero <- function(n) {
  x <- 0
  for (i in seq_len(n)) x[i + 1] <- x[i] + i
  x
}

# ---- Negative and zero indices.

