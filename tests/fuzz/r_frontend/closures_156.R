numeric_partial <- function(n) numeric(len = n)
