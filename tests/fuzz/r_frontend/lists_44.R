branches <- function(x) {
  if (x > 0) return(list(a = x, b = 1L))
  list(a = -x, b = 2L)
}

