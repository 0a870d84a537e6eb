zero_index <- function(x) x[0]

