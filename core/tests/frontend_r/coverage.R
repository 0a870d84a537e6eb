# Constructs of public R benchmark code (bench/r/corpus) that the coverage work of issue 14
# made compile; core/tests/frontend_r_coverage.rs runs each function here in R (Rscript)
# and compiled, and compares. Keep each function small and in the style of the corpus
# program it stands for.

# --- A scalar that becomes a vector (R has no scalars) ---

# The Riposte filter1d kernel: the accumulator starts as the number 0 and becomes the sum
# of shifted slices.
filter_slices <- function(v, f) {
  r <- 0
  for (i in 1L:length(f)) {
    r <- r + v[(1L + i):((length(v) - length(f)) + i)] * f[i]
  }
  r
}

# A number on one path, a vector on the other.
one_or_two <- function(n) {
  y <- 1
  if (n > 0) y <- c(n, 2 * n)
  y
}

# Integer then double vector: the element type widens too.
widen_to_vector <- function(k) {
  s <- 0L
  for (i in 1:k) s <- s + (1:3) * 0.5
  s
}

# A scalar argument assigned a vector.
arg_becomes_vector <- function(x) {
  x <- x * c(1, 10, 100)
  sum(x)
}

# The loop variable assigned a vector in the body.
loop_var_vector <- function(x) {
  out <- 0
  for (v in x) {
    v <- v * c(1, 2)
    out <- out + v
  }
  out
}

# A vector variable used as a condition and a count: length one at run time.
vector_condition <- function(n) {
  k <- 0
  if (n > 2) k <- c(n)
  if (k > 1) k <- k + seq_len(k)[1]
  k
}

# --- Recall ---

# R Benchmark 2.5's recursive gcd of vectors (Programmation/att3_3.R), Recall inside a
# function defined inside.
gcd_pairs <- function(a, b) {
  gcd2 <- function(x, y) {
    if (sum(y > 1.0E-4) == 0) x else { y[y == 0] <- x[y == 0]; Recall(y, x %% y) }
  }
  gcd2(a, b)
}

# Recall in a top-level function.
fact_recall <- function(n) if (n <= 1) 1 else n * Recall(n - 1)

# Recall in an anonymous function given to sapply.
fact_table <- function(m) sapply(1:m, function(n) if (n <= 1) 1 else n * Recall(n - 1))

# Recall with named arguments and a default.
count_down <- function(n, acc = 0) if (n == 0) acc else Recall(acc = acc + n, n = n - 1)
