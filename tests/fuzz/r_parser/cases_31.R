row_of <- function(m, i) m[i, ]

