lap_scalar <- function(x) unlist(lapply(x, function(v) v / 2))

# ---- Reduce, Filter ----

