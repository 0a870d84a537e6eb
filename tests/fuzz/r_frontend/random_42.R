sint_flag <- function(n, k, r) sample.int(n, size = k, replace = r)
