capture_loop_var <- function(n) {
  out <- numeric(n)
  for (i in 1:n) {
    at <- function(j) i * 10 + j
    out[i] <- at(1)
  }
  out
}

