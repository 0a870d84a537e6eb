outer_mul <- function(x, y) outer(x, y)

