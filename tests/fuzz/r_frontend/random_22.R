exp_one <- function(r) rexp(1, rate = r)

