grow_null <- function(n) {
  x <- c()
  for (i in seq_len(n)) x[i] <- 1.5
  x
}

