vector_condition <- function(n) {
  k <- 0
  if (n > 2) k <- c(n)
  if (k > 1) k <- k + seq_len(k)[1]
  k
}

# --- Recall ---

# R Benchmark 2.5's recursive gcd of vectors (Programmation/att3_3.R), Recall inside a
# function defined inside.
