app_rows <- function(m) apply(m, 1, sum)
