dmods <- function(a, b) c(a %% b, a %/% b)

