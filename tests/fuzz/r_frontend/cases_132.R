reverse <- function(x) x[length(x):1]

