rep_partial <- function(x) rep(x, t = 2)
