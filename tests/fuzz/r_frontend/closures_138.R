arg_partial <- function(x) {
  g <- function(alpha, beta) alpha - beta
  g(b = x, a = 10)
}
