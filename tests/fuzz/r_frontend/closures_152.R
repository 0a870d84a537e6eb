seq_partial_len <- function(n) seq(1, n, len = 4)
