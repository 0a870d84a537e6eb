sap_string <- function(x) sapply(x, "abs")
