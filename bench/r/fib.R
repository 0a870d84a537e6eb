# fib of the JuliaLang microbenchmarks in R: the doubly recursive Fibonacci number, in
# integers (call it with an integer, fib(25L)).
fib <- function(n) {
  if (n < 2L) n else fib(n - 1L) + fib(n - 2L)
}
