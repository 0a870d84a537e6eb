check_named <- function(n) {
  stopifnot("n must be positive" = n > 0)
  n
}

