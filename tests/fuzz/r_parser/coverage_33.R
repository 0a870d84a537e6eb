seq_one_arg <- function(n) seq(n)
