check_vec <- function(x) {
  stopifnot(x > 0)
  sum(x)
}

