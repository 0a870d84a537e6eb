free_const <- function(x) x * SCALE

SCALE <- 3

