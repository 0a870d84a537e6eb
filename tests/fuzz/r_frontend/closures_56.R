sap_top <- function(x) sapply(x, top_square)
