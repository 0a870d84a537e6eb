abs2 <- function(z) Re(z) * Re(z) + Im(z) * Im(z)
