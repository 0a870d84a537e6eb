grow_past <- function(x) {
  x[length(x) + 1] <- 99
  x
}

