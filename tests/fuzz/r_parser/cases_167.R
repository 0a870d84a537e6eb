checked_sqrt <- function(x) {
  if (x < 0) stop("x must be ", "non-negative")
  sqrt(x)
}
