norm_n <- function(n) rnorm(n)
