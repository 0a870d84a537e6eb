slice <- function(x, a, b) x[a:b]

