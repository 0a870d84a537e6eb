range_two <- function(x, y) range(x, y)

