sizes <- function(m) c(length(m), nrow(m), ncol(m), dim(m))

