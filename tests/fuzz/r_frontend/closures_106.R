red_left_acc_init <- function(x) Reduce(function(a, b) a * 10 + b, x, 1, accumulate = TRUE)
