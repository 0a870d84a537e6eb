map_names <- function(x, y) mapply(function(a, b) a - b, b = x, a = y)
