runtime_negative <- function(x, i) x[i]

