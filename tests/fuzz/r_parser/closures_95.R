red_sum <- function(x) Reduce(`+`, x)
