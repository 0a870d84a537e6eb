vap_vec <- function(x) vapply(x, function(v) c(v, -v), numeric(2))
