short_circuit <- function(x, i) {
  if (i <= length(x) && x[i] > 0) TRUE else FALSE
}

