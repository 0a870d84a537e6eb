mandel_grid <- function() {
  xs <- seq(-2, 0.5, .1)
  ys <- seq(-1, 1, .1)
  M <- matrix(0.0, nrow = length(xs), ncol = length(ys))
  k <- 1
  for (r in xs) {
    for (i in ys) {
      M[k] <- escape_time(complex(real = r, imag = i))
      k <- k + 1
    }
  }
  M
}

# --- rgamma (R's nmath algorithms GS and GD, R's stream) ---

