escape_time <- function(z) {
  c <- z
  maxiter <- 80
  for (n in 1:maxiter) {
    if (abs2(z) > 4) return(n - 1)
    z <- z^2 + c
  }
  maxiter
}
