ipow <- function(a, b) a^b

