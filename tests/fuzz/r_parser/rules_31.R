drop_two <- function(x) x[-(1:2)]

