recycle_cmp <- function(x, y) sum(x > y)
