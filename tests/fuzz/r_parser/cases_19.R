idiv <- function(a, b) a / b

