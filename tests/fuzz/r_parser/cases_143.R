int_matrix <- function(m) m * 2L + 1L

