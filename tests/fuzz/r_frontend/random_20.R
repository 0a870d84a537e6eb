exp_rate <- function(n, r) rexp(n, r)
