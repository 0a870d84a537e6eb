first_dbl <- function(x) x[[1]] + 1

