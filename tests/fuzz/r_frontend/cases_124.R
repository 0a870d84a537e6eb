nested_calls <- function(x) sumsq(x) + sumsq(2 * x)

