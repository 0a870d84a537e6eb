append_scalar <- function(x) {
  x <- c(x, 2 * x)
  x
}

