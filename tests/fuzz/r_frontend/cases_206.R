seq_from_n <- function(a, n) seq(a, length.out = n)
