gamma_scale <- function(n, shape, scale) rgamma(n, shape, scale = scale)
