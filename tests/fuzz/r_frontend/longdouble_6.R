ld_prod <- function(x) prod(x)

