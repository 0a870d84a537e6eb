vap <- function(x) vapply(x, function(v) v * 2, numeric(1))
