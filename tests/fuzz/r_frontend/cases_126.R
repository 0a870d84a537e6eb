mat_sum <- function(a, b) a + b * 2

