inner_helper <- function(x) {
  sq <- function(v) v * v
  s <- 0
  for (i in seq_along(x)) s <- s + sq(x[i])
  s
}

