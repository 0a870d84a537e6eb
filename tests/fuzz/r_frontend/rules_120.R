check_all <- function(x) {
  stopifnot(all(x > 0), is.numeric(x))
  sum(x)
}

