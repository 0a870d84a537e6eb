sap_nested <- function(x) sapply(x, function(v) sum(sapply(x, function(w) v * w)))
