pick <- function(x, k) sample(x, k)
