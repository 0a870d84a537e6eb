par_max <- function(x, y) c(pmax(x, y), pmin(x, y))

