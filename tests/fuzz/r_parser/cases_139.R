right_assign <- function(x) {
  x * 2 -> y
  m <- matrix(y, nrow = 2, ncol = length(x) / 2)
  m[[2, 1]] <- pi
  m
}

