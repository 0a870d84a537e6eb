map_more <- function(x) mapply(function(a, k) a * k, x, MoreArgs = list(k = 3))
