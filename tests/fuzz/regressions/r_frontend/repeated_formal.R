seq_from_n <- function(a, a, n) seq(a, length. = n)
