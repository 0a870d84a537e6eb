cnd_vec <- function(d) {
  k <- 1 / (1 + 0.2316419 * abs(d))
  r <- (0.3989422804014327 * exp((-0.5 * d) * d)) *
    (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
  ifelse(d > 0, 1 - r, r)
}

# A row times a column, summed, per element (matmul in vector style).
