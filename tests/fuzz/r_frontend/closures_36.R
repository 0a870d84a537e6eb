sap_builtin <- function(x) sapply(x, sqrt)
