exp_n <- function(n) rexp(n)
