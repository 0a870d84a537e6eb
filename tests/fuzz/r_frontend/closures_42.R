sap_named_extra <- function(x) sapply(x, function(v, lo, hi) min(max(v, lo), hi), hi = 2, lo = 0)
