seq_one_loop <- function(n) {
  s <- 0
  for (i in seq(n)) s <- s + i
  s
}
