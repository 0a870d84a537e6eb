int_div <- function(a, b) a %/% b

