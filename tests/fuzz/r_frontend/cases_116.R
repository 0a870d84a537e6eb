imean <- function(x) mean(x)

