ivec_sum <- function(x) sum(x)

