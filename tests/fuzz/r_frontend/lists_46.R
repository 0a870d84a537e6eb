unnamed <- function(x) list(x, x + 1)

