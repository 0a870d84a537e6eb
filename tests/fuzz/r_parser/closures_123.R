out_str <- function(x, y) outer(x, y, "-")
