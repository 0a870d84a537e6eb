mat_write_oob <- function(m, j) {
  m[1, j] <- 0
  m
}
