vap_bad_len <- function(x) vapply(x, function(v) c(v, v), numeric(1))
