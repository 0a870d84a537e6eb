recycle_lgl <- function(x, y) x & !y
