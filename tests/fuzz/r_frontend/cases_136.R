if_value <- function(x) {
  y <- if (x > 1) 2L else 0.5
  z <- if (x > 5) {
    w <- x * 2
    w + 1
  } else x
  y + z
}

