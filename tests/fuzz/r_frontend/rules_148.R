several <- function(x, y) c(max(x, y, 3L), min(x, 0))

