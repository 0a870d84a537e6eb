index2_at <- function(x, i) x[[i]]

