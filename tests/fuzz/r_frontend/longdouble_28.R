ld_loop <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i]
  s
}
