widen_elem <- function(k) {
  l <- list(v = 1L)
  if (k > 1) l$v <- 2.5
  l$v * 2
}

# Whole-list assignment reads every value before storing: this swaps.
