red_int <- function(n) Reduce(function(a, b) a + b, 1:n)
