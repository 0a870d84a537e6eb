count_seq <- function(n) {
  s <- 0
  for (i in seq_len(n)) s <- s + i
  for (j in seq(1, n, by = 2)) s <- s + 100 * j
  s
}

