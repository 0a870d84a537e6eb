seq_by_n <- function(a, b, n) seq(a, by = b, length.out = n)
