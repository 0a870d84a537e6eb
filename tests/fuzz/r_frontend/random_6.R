unif_n <- function(n) runif(n)
