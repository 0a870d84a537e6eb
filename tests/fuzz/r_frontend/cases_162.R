twice <- function(v) v * 2L
