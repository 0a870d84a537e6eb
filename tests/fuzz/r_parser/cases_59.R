stats <- function(x) c(sum(x), prod(x), min(x), max(x), mean(x))

