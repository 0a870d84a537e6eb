sap_extra <- function(x, p) sapply(x, function(v, e) v^e, p)
