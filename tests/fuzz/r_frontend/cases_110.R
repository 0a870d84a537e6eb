to_int <- function(x) as.integer(x) + 1L

