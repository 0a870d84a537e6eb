map_builtin <- function(y, x) mapply(atan2, y, x)
