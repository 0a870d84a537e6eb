recycle_atan2 <- function(y, x) atan2(y, x)
