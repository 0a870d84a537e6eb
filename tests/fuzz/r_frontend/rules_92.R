range_of <- function(x) range(x)

