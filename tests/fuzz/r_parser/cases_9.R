iadd <- function(a, b) a + b

