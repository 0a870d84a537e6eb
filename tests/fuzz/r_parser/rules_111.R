tcp <- function(x) tcrossprod(x)

