vap_partial <- function(x) vapply(x, function(v) v * 3, FUN.V = 0)

# ---- mapply, Map, lapply ----

