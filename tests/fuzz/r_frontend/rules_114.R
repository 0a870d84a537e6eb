tcp2 <- function(x, y) tcrossprod(x, y)

