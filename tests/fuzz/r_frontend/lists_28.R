scale_by_k <- function(x) x * K

