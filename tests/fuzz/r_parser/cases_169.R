clip_low <- function(x, lo) ifelse(x < lo, lo, x)
