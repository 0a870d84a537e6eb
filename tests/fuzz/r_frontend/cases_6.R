fib <- function(n) {
  if (n < 2) return(n)
  fib(n - 1) + fib(n - 2)
}

