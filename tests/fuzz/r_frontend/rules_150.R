types <- function(x, n) c(is.numeric(x), is.double(x), is.integer(n), is.logical(x), is.vector(x), is.matrix(x))

# ---- Index errors.

