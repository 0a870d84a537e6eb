sap_use_names <- function(x) sapply(x, function(v) v + 1, USE.NAMES = FALSE)

# ---- vapply ----

