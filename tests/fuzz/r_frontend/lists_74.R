loop_literal <- function(x, y) {
  s <- 0
  for (v in list(x, y * 2, x + 1L)) s <- s + sum(v)
  for (p in list(a = list(w = 1, z = x), b = list(w = 2L, z = y))) s <- s + p$w * sum(p$z)
  for (v in list(x, x)) x <- x + v
  c(s, x)
}
