zero_write <- function(x) {
  x[0] <- 5
  x
}

