use_globals <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i] * V[i]
  s + sum(M) + G$a + callee_reads()
}

