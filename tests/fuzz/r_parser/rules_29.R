drop_i <- function(x, i) x[-i]

