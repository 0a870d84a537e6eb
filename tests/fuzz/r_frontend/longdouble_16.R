ld_rowsums <- function(m) rowSums(m)

