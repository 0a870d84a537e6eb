gamma_default <- function(n, shape) rgamma(n, shape)
