gpu_scale <- function(x, a) {
  y <- numeric(length(x))
  gpu({
    for (i in seq_along(x)) y[i] <- a * x[i]
  })
  y
}

