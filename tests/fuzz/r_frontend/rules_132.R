na_matrix <- function(n, m) {
  z <- matrix(nrow = n, ncol = m)
  for (i in 1:n) for (j in 1:m) z[i, j] <- i * 10 + j
  z
}

