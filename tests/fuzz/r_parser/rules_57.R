grow_c <- function(n) {
  x <- NULL
  for (i in seq_len(n)) x <- c(x, i)
  x
}

