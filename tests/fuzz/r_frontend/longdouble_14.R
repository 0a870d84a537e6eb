ld_colsums <- function(m) colSums(m)

