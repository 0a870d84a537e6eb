plane <- function(a, k) a[, , k]

