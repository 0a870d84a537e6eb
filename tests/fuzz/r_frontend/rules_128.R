check_only <- function(n) stopifnot(n > 0)

