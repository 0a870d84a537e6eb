cmul <- function(z, w) z * w - Conj(z) / w

