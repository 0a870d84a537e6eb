call_named <- function(x) with_default(k = 3, x = x) + with_default(x)

