mixed_signs <- function(x) x[-c(1, -2)]

