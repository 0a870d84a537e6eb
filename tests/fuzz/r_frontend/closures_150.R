matrix_byrow_default <- function(x) matrix(x, 2, byrow = FALSE)
