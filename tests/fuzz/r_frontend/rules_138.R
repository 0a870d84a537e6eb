bits <- function(a, b) c(bitwAnd(a, b), bitwOr(a, b), bitwXor(a, b), bitwNot(a), bitwShiftL(a, 2L), bitwShiftR(a, 1L))

