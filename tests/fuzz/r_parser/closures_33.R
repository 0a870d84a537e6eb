sap_backslash <- function(x) sapply(x, \(v) v + 1)
