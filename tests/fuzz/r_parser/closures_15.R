recursive_inner <- function(n) {
  fib <- function(k) if (k < 2) k else fib(k - 1) + fib(k - 2)
  fib(n)
}

