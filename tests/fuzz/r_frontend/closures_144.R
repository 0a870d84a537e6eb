arg_mixed <- function(x) weighted(weight = 2, x)
