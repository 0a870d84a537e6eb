red_acc <- function(x) Reduce("+", x, accumulate = TRUE)
