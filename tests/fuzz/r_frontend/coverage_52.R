gamma_one <- function(shape) rgamma(1, shape, 2)
