two_types <- function(x, n) {
  h <- function(v) v * 2
  c(h(x), h(n))
}

