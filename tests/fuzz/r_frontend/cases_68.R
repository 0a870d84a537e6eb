round_half <- function(x) round(x)

