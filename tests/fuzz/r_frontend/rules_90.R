which_both <- function(x) c(which.max(x), which.min(x))

