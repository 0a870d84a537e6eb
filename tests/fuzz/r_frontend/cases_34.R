col_of <- function(m, j) m[, j]

