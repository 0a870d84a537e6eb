unif_named <- function(n) runif(max = 3, n = n, min = -1)
