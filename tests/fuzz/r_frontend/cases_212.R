seq_loop <- function(n) {
  s <- 0
  for (x in seq(0, 1, length.out = n)) s <- s * 2 + x
  s
}
