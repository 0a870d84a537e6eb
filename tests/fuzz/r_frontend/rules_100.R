diff_twice <- function(x) diff(x, differences = 2)

