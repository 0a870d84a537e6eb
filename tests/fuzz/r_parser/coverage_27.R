seq_literals <- function() c(seq(-2, 0.5, .1), seq(-1, 1, .1), seq(1, 0, -0.3), seq(0, 1, 0.1))
