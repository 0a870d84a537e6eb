top_square <- function(v) v * v
