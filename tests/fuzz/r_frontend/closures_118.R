fil_builtin <- function(x) Filter(is.finite, x)

# ---- outer, apply ----

