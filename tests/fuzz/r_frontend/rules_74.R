grow_matrix <- function() {
  m <- matrix(0, 2, 2)
  m[3, 1] <- 1
  m
}

