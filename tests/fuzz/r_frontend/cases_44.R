alias_copy <- function(x) {
  y <- x
  y[2] <- 0
  c(x[2], y[2])
}

