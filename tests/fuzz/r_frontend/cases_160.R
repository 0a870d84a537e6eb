head_sum <- function(x, n = length(x) - 1L) sum(x[seq_len(n)])

