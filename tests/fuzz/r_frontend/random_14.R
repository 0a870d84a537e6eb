norm_ms <- function(n, m, s) rnorm(n, m, s)
