na_matrix_part <- function(n) {
  z <- matrix(NA, n, 2)
  z[1, 1] <- 1.5
  z
}

