seq_partial <- function(n) seq(0, 1, length = n)
