ld_colmeans <- function(m) colMeans(m)

