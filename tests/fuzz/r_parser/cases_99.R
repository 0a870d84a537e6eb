is_odd <- function(n) if (n == 0) FALSE else is_even(n - 1)

