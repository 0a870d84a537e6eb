# matmul_loops (bench/kernels/matmul_loops.vrir, bench/c/matmul_loops.c) in R: the
# textbook triple loop (not %*%), a dot product per element.
matmul_loops <- function(a, b) {
  m <- nrow(a)
  p <- ncol(a)
  n <- ncol(b)
  c <- matrix(0, m, n)
  for (j in seq_len(n)) {
    for (i in seq_len(m)) {
      s <- 0
      for (k in seq_len(p)) s <- s + a[i, k] * b[k, j]
      c[i, j] <- s
    }
  }
  c
}

matmul_loops_par <- function(a, b) {
  m <- nrow(a)
  p <- ncol(a)
  n <- ncol(b)
  c <- matrix(0, m, n)
  for (j in prange(n)) {
    for (i in seq_len(m)) {
      s <- 0
      for (k in seq_len(p)) s <- s + a[i, k] * b[k, j]
      c[i, j] <- s
    }
  }
  c
}

# The same in R's vector style (issue 18, bench/r/array_style.R): a row times a column summed, per element.
matmul_vec <- function(a, b) {
  m <- nrow(a)
  n <- ncol(b)
  c <- matrix(0, m, n)
  for (j in seq_len(n)) {
    for (i in seq_len(m)) {
      c[i, j] <- sum(a[i, ] * b[, j])
    }
  }
  c
}
