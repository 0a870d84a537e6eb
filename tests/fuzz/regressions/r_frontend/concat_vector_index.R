f <- function(n) { y <- c(); c(1, y[n]) }
