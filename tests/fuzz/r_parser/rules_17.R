set_first <- function(x, v) {
  x[1] <- v
  x
}

