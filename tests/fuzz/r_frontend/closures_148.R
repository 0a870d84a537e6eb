matrix_partial <- function(x) matrix(x, nr = 2)
