fil <- function(x) Filter(function(v) v > 2, x)
