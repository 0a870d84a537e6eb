boot_max <- function(x, b) {
  out <- numeric(b)
  for (k in 1:b) out[k] <- max(x[sample(length(x), replace = TRUE)])
  out
}
