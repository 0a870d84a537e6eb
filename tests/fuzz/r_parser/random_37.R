sint <- function(n, k) sample.int(n, k)
