grow_fib <- function(n) {
  f <- c(1, 1)
  while (length(f) < n) f <- c(f, f[length(f)] + f[length(f) - 1])
  f
}

