vap_scalar_template <- function(x) vapply(x, function(v) v > 0, TRUE)
