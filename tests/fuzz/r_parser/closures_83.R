map_recycle <- function(x) mapply(function(a, b) a + b, x, 10)
