out_fun <- function(x, y) outer(x, y, function(a, b) a * 10 + b)
