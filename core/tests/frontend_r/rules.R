# R's rules that compiled code follows (issue 14, items 4-6): length-one vectors,
# negative and zero indices, growth by assignment, integer %/% and %% by zero, the
# library functions numeric code reaches for, and index errors in R's terms. Every
# function runs in R itself too (core/tests/frontend_r_rules.rs runs Rscript on this
# file), so this file must stay plain R.

# ---- Length-one vectors: a length-one argument arrives as a scalar.

first_of <- function(args) {
  n <- args[1]
  n * 2
}

first_dbl <- function(x) x[[1]] + 1

one_sizes <- function(x) c(length(x), sum(x), rev(x), prod(x))

along_one <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i]
  s
}

each_one <- function(x) {
  s <- 0
  for (v in x) s <- s + v * 2
  s
}

index_at <- function(x, i) x[i]

index2_at <- function(x, i) x[[i]]

set_first <- function(x, v) {
  x[1] <- v
  x
}

set_then_test <- function(x) {
  x[1] <- abs(x[1])
  if (x > 1) 1 else 0
}

grow_scalar <- function(x) {
  x[3] <- 7
  x
}

append_scalar <- function(x) {
  x <- c(x, 2 * x)
  x
}

grown_from_zero <- function(n) {
  x <- 0
  for (i in seq_len(n)) x[i + 1] <- x[i] + i
  x
}

# ---- Negative and zero indices.

drop_first <- function(x) x[-1]

drop_i <- function(x, i) x[-i]

drop_two <- function(x) x[-(1:2)]

drop_c <- function(x) x[-c(1, 3)]

drop_none <- function(x, k) x[-k]

drop_row <- function(m) m[-1, ]

drop_col <- function(m, j) m[, -j]

zero_index <- function(x) x[0]

zero_write <- function(x) {
  x[0] <- 5
  x
}

mixed_signs <- function(x) x[-c(1, -2)]

write_except <- function(x) {
  x[-1] <- 0
  x
}

runtime_negative <- function(x, i) x[i]

lagged <- function(x) x[-1] - x[-length(x)]

# ---- Growth by assignment.

grow_index <- function(n) {
  x <- numeric(0)
  for (i in 1:n) x[i] <- i * 2
  x
}

grow_length <- function(n) {
  x <- c()
  for (i in seq_len(n)) x[length(x) + 1] <- i / 2
  x
}

grow_c <- function(n) {
  x <- NULL
  for (i in seq_len(n)) x <- c(x, i)
  x
}

grow_c_pairs <- function(n) {
  x <- c()
  for (i in seq_len(n)) x <- c(x, i, -i / 4)
  c(sum(x), length(x))
}

grow_gap <- function() {
  x <- numeric(0)
  x[3] <- 1
  x
}

grow_gap_int <- function() {
  x <- integer(0)
  x[3] <- 1L
  x
}

grow_null <- function(n) {
  x <- c()
  for (i in seq_len(n)) x[i] <- 1.5
  x
}

grow_counter <- function(n) {
  x <- vector("double", 0)
  k <- 0
  while (k < n) {
    k <- k + 1
    x[k] <- k^2
  }
  x
}

grow_past <- function(x) {
  x[length(x) + 1] <- 99
  x
}

grow_preallocated <- function(n) {
  x <- numeric(2)
  x[n] <- 1
  x
}

grow_matrix <- function() {
  m <- matrix(0, 2, 2)
  m[3, 1] <- 1
  m
}

grow_read_past <- function(n) {
  x <- c()
  for (i in 1:n) x <- c(x, i)
  x[n + 1]
}

grow_fib <- function(n) {
  f <- c(1, 1)
  while (length(f) < n) f <- c(f, f[length(f)] + f[length(f) - 1])
  f
}

grow_values <- function(n) {
  x <- c()
  for (i in 1:n) x <- c(x, i * 1.5)
  y <- x
  x[1] <- 100
  x <- c(x, x)
  c(sum(y), x[1], length(x), y[n], mean(x))
}

grow_vector_parts <- function(v) {
  x <- numeric(0)
  for (k in 1:3) x <- c(x, v * k)
  x
}

# ---- Integer %/% and %% by zero: NA in R.

int_div <- function(a, b) a %/% b

int_mod <- function(a, b) a %% b

int_mod_vec <- function(x, b) x %% b

# ---- Library functions.

which_both <- function(x) c(which.max(x), which.min(x))

range_of <- function(x) range(x)

range_two <- function(x, y) range(x, y)

diff_of <- function(x) diff(x)

diff_lag <- function(x) diff(x, lag = 2)

diff_twice <- function(x) diff(x, differences = 2)

diff_bad <- function(x) diff(x, lag = 0)

outer_mul <- function(x, y) outer(x, y)

outer_plus <- function(x, y) outer(x, y, "+")

outer_pow <- function(x, y) outer(x, y, FUN = "^")

outer_int <- function(n) outer(1:n, 1:n, "-")

tcp <- function(x) tcrossprod(x)

tcp2 <- function(x, y) tcrossprod(x, y)

cp2 <- function(x, y) crossprod(x, y)

check_pos <- function(n) {
  stopifnot(n > 0)
  sqrt(n)
}

check_all <- function(x) {
  stopifnot(all(x > 0), is.numeric(x))
  sum(x)
}

check_vec <- function(x) {
  stopifnot(x > 0)
  sum(x)
}

check_named <- function(n) {
  stopifnot("n must be positive" = n > 0)
  n
}

check_mod <- function(n, m) {
  stopifnot(n > 0, m %% 2 == 0)
  n + m
}

check_only <- function(n) stopifnot(n > 0)

vectors_of <- function(n) {
  a <- vector("double", n)
  b <- vector("integer", n)
  l <- vector("logical", n)
  d <- vector(mode = "numeric", length = n)
  a[1] <- 2.5
  c(sum(a), sum(b), length(l), length(d), sum(vector("complex", n) == 0))
}

na_matrix <- function(n, m) {
  z <- matrix(nrow = n, ncol = m)
  for (i in 1:n) for (j in 1:m) z[i, j] <- i * 10 + j
  z
}

na_matrix_part <- function(n) {
  z <- matrix(NA, n, 2)
  z[1, 1] <- 1.5
  z
}

column_matrix <- function(n) matrix(0, nrow = n)

bits <- function(a, b) c(bitwAnd(a, b), bitwOr(a, b), bitwXor(a, b), bitwNot(a), bitwShiftL(a, 2L), bitwShiftR(a, 1L))

bits_vec <- function(x) bitwAnd(x, 255L)

bits_shift <- function(a, n) bitwShiftL(a, n)

par_max <- function(x, y) c(pmax(x, y), pmin(x, y))

par_mat <- function(m) pmax(m, 2L)

several <- function(x, y) c(max(x, y, 3L), min(x, 0))

types <- function(x, n) c(is.numeric(x), is.double(x), is.integer(n), is.logical(x), is.vector(x), is.matrix(x))

# ---- Index errors.

vec_oob <- function(x, i) x[i]

mat_oob <- function(m, i, j) m[i, j]

mat_write_oob <- function(m, j) {
  m[1, j] <- 0
  m
}
