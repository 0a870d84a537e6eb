misc <- function(x, n) {
  y = -x
  z <- rep(x, 2)
  s <- 0L
  for (k in seq(1L, n, 2L)) s <- s + k
  c(y[[2]], sum(z), s, sum(!x), length(z))
}

