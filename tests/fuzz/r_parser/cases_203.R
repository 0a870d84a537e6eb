seq_n <- function(n) seq(length.out = n)
