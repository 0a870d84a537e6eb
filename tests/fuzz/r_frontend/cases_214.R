na_branch <- function(x) ifelse(x > 0, x, NA)
