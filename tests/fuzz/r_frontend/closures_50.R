sap_ragged <- function(n) sapply(1:n, function(i) seq_len(i))
