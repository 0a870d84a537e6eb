outer_pow <- function(x, y) outer(x, y, FUN = "^")

