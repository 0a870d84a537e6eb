map_unlist <- function(x, y) unlist(Map(function(a, b) a + b, x, y))
