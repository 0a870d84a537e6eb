red_widen <- function(n) Reduce(function(a, b) a + b / 2, 1:n)
