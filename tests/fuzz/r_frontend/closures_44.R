sap_first_named <- function(x) sapply(x, function(v, w) v - w, v = 10)
