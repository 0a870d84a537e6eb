grow_c_pairs <- function(n) {
  x <- c()
  for (i in seq_len(n)) x <- c(x, i, -i / 4)
  c(sum(x), length(x))
}

