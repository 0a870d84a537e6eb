pick_r <- function(x, k) sample(x, k, replace = TRUE)
