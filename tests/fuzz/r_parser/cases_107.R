mask <- function(x) sum(x[x > 0])

