collatz <- function(n) {
  steps <- 0L
  while (n != 1L) {
    if (n %% 2L == 0L) n <- n %/% 2L else n <- 3L * n + 1L
    steps <- steps + 1L
  }
  steps
}

