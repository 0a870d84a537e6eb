lap_unlist <- function(n) unlist(lapply(1:n, function(i) seq_len(i)))
