red_right_acc <- function(x) Reduce(function(a, b) a * 10 + b, x, 0, right = TRUE, accumulate = TRUE)
