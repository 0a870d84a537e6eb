cvec <- function(z) {
  w <- z * 2 - 1i
  c(sum(w), prod(z), mean(z), w[2] / z[1])
}

