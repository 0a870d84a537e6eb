sap_matrix <- function(n) sapply(1:n, function(i) c(i, i^2, i^3))
