red_right <- function(x) Reduce(function(a, b) a * 10 + b, x, right = TRUE)
