ld_sum <- function(x) sum(x)

