is_even <- function(n) if (n == 0) TRUE else is_odd(n - 1)
