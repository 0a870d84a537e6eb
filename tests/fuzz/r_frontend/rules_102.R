diff_bad <- function(x) diff(x, lag = 0)

