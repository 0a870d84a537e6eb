neighbours <- function(m, i, j) c(m[i - 1, j], m[i + 1, j], m[i, j - 1], m[i, j + 1])
