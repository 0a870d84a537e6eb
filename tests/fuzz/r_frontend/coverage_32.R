seq_loop_double <- function(a, b, h) {
  s <- 0
  k <- 0
  for (x in seq(a, b, h)) {
    k <- k + 1
    s <- s + x * k
  }
  s
}
