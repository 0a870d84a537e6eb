outer_int <- function(n) outer(1:n, 1:n, "-")

