around <- function(v, i) c(v[i - 1], v[i], v[i + 1])
