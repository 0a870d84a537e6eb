vec_oob <- function(x, i) x[i]

