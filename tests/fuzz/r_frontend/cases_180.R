recycle_one <- function(x, y) x * y + y
