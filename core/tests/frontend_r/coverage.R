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

# --- seq(from, to, by) of doubles, seq(n) ---

seq_by_value <- function(from, to, by) seq(from, to, by)
seq_by_named <- function(from, to, by) seq(from, to, by = by)
seq_literals <- function() c(seq(-2, 0.5, .1), seq(-1, 1, .1), seq(1, 0, -0.3), seq(0, 1, 0.1))
seq_whole <- function(n) {
  s <- 0
  for (j in seq(1, n, 2)) s <- s + j
  for (j in seq(n, 1, by = -3)) s <- s + 100 * j
  s
}
seq_loop_double <- function(a, b, h) {
  s <- 0
  k <- 0
  for (x in seq(a, b, h)) {
    k <- k + 1
    s <- s + x * k
  }
  s
}
seq_one_arg <- function(n) seq(n)
seq_one_loop <- function(n) {
  s <- 0
  for (i in seq(n)) s <- s + i
  s
}
seq_vector_arg <- function(x) seq(x)

# The Julia micro-benchmarks' userfunc_mandelbrot (perf.R), as bench/r/corpus/mandel_complex.R.
abs2 <- function(z) Re(z) * Re(z) + Im(z) * Im(z)
escape_time <- function(z) {
  c <- z
  maxiter <- 80
  for (n in 1:maxiter) {
    if (abs2(z) > 4) return(n - 1)
    z <- z^2 + c
  }
  maxiter
}
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

gamma_draws <- function(n, shape, rate) rgamma(n, shape, rate)
gamma_scale <- function(n, shape, scale) rgamma(n, shape, scale = scale)
gamma_default <- function(n, shape) rgamma(n, shape)
gamma_one <- function(shape) rgamma(1, shape, 2)
gamma_sum <- function(n, shape) {
  s <- 0
  for (i in 1:n) s <- s + rgamma(1, shape, 1 / i)
  s
}

# Darren Wilkinson's Gibbs sampler (Advanced R's Rcpp chapter), as bench/r/corpus/gibbs.R.
gibbs_r <- function(N, thin) {
  draws <- matrix(nrow = N, ncol = 2)
  x <- 0
  y <- 0
  for (i in 1:N) {
    for (j in 1:thin) {
      x <- rgamma(1, 3, y * y + 4)
      y <- rnorm(1, 1 / (x + 1), 1 / sqrt(2 * (x + 1)))
    }
    draws[i, ] <- c(x, y)
  }
  draws
}

# --- an index 0 computed at run time inside c(...): the element drops out ---

# The ReactorLabs volcano benchmark's skip test, and a border-cell stencil.
corners_below <- function(m, x, y, h) all(c(m[ceiling(x), ceiling(y)], m[floor(x), ceiling(y)],
                                            m[ceiling(x), floor(y)], m[floor(x), floor(y)]) < h)
neighbours <- function(m, i, j) c(m[i - 1, j], m[i + 1, j], m[i, j - 1], m[i, j + 1])
around <- function(v, i) c(v[i - 1], v[i], v[i + 1])
