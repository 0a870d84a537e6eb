sap_seq <- function(n) sapply(1:n, function(i) i * i)
