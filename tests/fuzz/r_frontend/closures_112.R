red_max <- function(x) Reduce(max, x)
