gamma_draws <- function(n, shape, rate) rgamma(n, shape, rate)
