logic <- function(x, y) {
  a <- (x > 1) & (y < 5)
  b <- (x > 2) | !(y > 1)
  sum(a) + 10L * sum(b)
}

