count_true <- function(x) sum(x > 2)

