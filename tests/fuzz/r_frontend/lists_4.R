setup <- function(n) {
  list(x = as.double(seq_len(n)), w = 0.5, m = matrix(as.double(1:6), 2), n = as.integer(n))
}

