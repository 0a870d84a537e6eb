ld_cumprod <- function(x) cumprod(x)

