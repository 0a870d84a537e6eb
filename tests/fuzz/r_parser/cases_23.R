recycle <- function(x, y) {
  z <- x + y
  w <- 2 * x - 1
  z * w
}

