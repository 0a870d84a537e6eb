par_mat <- function(m) pmax(m, 2L)

