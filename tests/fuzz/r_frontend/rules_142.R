bits_shift <- function(a, n) bitwShiftL(a, n)

