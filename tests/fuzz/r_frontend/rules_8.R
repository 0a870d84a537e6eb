one_sizes <- function(x) c(length(x), sum(x), rev(x), prod(x))

