run <- function(data) {
  s <- 0
  for (i in seq_len(data$n)) {
    s <- s + data$x[i] * data$w
  }
  s + sum(data[["m"]]) + data$m[2, 3] + length(data)
}

# Positions, names, nesting.
