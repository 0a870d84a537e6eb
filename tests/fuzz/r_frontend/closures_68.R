vap_int <- function(x) vapply(x, function(v) v + 1L, integer(1))
