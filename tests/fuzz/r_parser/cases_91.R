with_default <- function(x, k = 2) x * k

