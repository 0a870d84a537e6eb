lambda_now <- function(x) (function(v) v * 2)(x)

