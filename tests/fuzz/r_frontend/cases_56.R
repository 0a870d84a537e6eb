tr <- function(a) t(a)

