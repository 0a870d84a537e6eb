cp <- function(a) crossprod(a)

