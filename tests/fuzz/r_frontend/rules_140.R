bits_vec <- function(x) bitwAnd(x, 255L)

