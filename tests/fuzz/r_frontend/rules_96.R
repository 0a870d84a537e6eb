diff_of <- function(x) diff(x)

