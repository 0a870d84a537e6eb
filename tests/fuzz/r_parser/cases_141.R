truthy <- function(x) {
  n <- 0L
  for (i in seq_along(x)) if ((x[i] > 0) == T) n <- n + 1L
  if (n > 1L || F) n else -n
}

