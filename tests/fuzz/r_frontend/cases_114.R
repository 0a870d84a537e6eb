concat <- function(x, a) c(a, x, a * 2)

