# R functions compiled by the R front end's tests. Every function here also runs in R
# itself (core/tests/frontend_r_semantics.rs runs Rscript on this file), so this file
# must stay plain R. `prange` and `gpu` are the marker functions of the R package:
#   prange <- function(n) seq_len(n); gpu <- function(expr) invisible(expr)

sumsq <- function(x) {
  s <- 0
  for (i in seq_along(x)) {
    s <- s + x[i]^2
  }
  s
}

fib <- function(n) {
  if (n < 2) return(n)
  fib(n - 1) + fib(n - 2)
}

fib_int <- function(n) {
  if (n < 2L) return(n)
  fib_int(n - 1L) + fib_int(n - 2L)
}

iadd <- function(a, b) a + b

imul <- function(a, b) a * b

isub_vec <- function(x, y) x - y

dmods <- function(a, b) c(a %% b, a %/% b)

imods <- function(a, b) c(a %% b, a %/% b)

idiv <- function(a, b) a / b

ipow <- function(a, b) a^b

recycle <- function(x, y) {
  z <- x + y
  w <- 2 * x - 1
  z * w
}

nan_prop <- function(x) c(sum(x), max(x), x[1] + 1, mean(x))

positive_first <- function(x) {
  if (x[1] > 0) 1 else -1
}

colmajor <- function(m) m[2, 1] + 10 * m[1, 2] + 100 * m[3]

row_of <- function(m, i) m[i, ]

col_of <- function(m, j) m[, j]

slice <- function(x, a, b) x[a:b]

sub_block <- function(m) m[2:3, 1:2]

modify_arg <- function(x) {
  x[1] <- 100
  x
}

caller_keeps <- function(x) {
  y <- modify_arg(x)
  c(x[1], y[1])
}

alias_copy <- function(x) {
  y <- x
  y[2] <- 0
  c(x[2], y[2])
}

cplx <- function(a, b) {
  z <- complex(real = a, imaginary = b)
  w <- z * z + 2i
  c(Re(w), Im(w), Mod(z))
}

cmul <- function(z, w) z * w - Conj(z) / w

mm <- function(a, b) a %*% b

mv <- function(a, v) a %*% v

vdot <- function(u, v) u %*% v

tr <- function(a) t(a)

cp <- function(a) crossprod(a)

stats <- function(x) c(sum(x), prod(x), min(x), max(x), mean(x))

cums <- function(x) cumsum(x)

icums <- function(x) cumsum(x)

maths <- function(x) {
  c(sqrt(x[1]), exp(x[2]), log(x[3]), sin(x[1]), cos(x[2]), tan(x[3]),
    atan2(x[1], x[2]), floor(x[4]), ceiling(x[4]), round(x[4]), trunc(x[4]), abs(x[5]))
}

round_half <- function(x) round(x)

count_up <- function(n) {
  s <- 0L
  for (i in 1:n) s <- s + i
  s
}

count_seq <- function(n) {
  s <- 0
  for (i in seq_len(n)) s <- s + i
  for (j in seq(1, n, by = 2)) s <- s + 100 * j
  s
}

collatz <- function(n) {
  steps <- 0L
  while (n != 1L) {
    if (n %% 2L == 0L) n <- n %/% 2L else n <- 3L * n + 1L
    steps <- steps + 1L
  }
  steps
}

first_over <- function(x, limit) {
  i <- 0L
  repeat {
    i <- i + 1L
    if (i > length(x)) return(-1L)
    if (x[i] > limit) break
  }
  i
}

skip_odd <- function(n) {
  s <- 0
  for (i in 1:n) {
    if (i %% 2 == 1) next
    s <- s + i
  }
  s
}

logic <- function(x, y) {
  a <- (x > 1) & (y < 5)
  b <- (x > 2) | !(y > 1)
  sum(a) + 10L * sum(b)
}

short_circuit <- function(x, i) {
  if (i <= length(x) && x[i] > 0) TRUE else FALSE
}

fill_matrix <- function(n, m) {
  a <- matrix(0, n, m)
  for (i in 1:n) {
    for (j in 1:m) {
      a[i, j] <- i * 10 + j
    }
  }
  a
}

cube <- function(n) {
  a <- array(0, dim = c(2, 3, n))
  for (k in 1:n) a[2, 3, k] <- k
  a[1, 1, 1] <- 0.5
  c(sum(a), a[2, 3, n], length(a))
}

builders <- function(n) {
  a <- numeric(n)
  b <- integer(n)
  l <- logical(n)
  r <- rep(1.5, n)
  a[1] <- 2
  b[n] <- 3L
  sum(a) + sum(b) + sum(l) + sum(r)
}

sizes <- function(m) c(length(m), nrow(m), ncol(m), dim(m))

with_default <- function(x, k = 2) x * k

call_named <- function(x) with_default(k = 3, x = x) + with_default(x)

sign_of <- function(x) {
  if (x > 0) {
    1
  } else if (x < 0) {
    -1
  } else {
    0
  }
}

is_even <- function(n) if (n == 0) TRUE else is_odd(n - 1)
is_odd <- function(n) if (n == 0) FALSE else is_even(n - 1)

par_square <- function(x) {
  out <- numeric(length(x))
  for (i in prange(length(x))) {
    out[i] <- x[i]^2
  }
  out
}

gpu_scale <- function(x, a) {
  y <- numeric(length(x))
  gpu({
    for (i in seq_along(x)) y[i] <- a * x[i]
  })
  y
}

gather <- function(x) x[c(1, 3)]

mask <- function(x) sum(x[x > 0])

to_int <- function(x) as.integer(x) + 1L

count_true <- function(x) sum(x > 2)

concat <- function(x, a) c(a, x, a * 2)

imean <- function(x) mean(x)

ivec_sum <- function(x) sum(x)

count_down <- function(n) {
  v <- 0
  for (i in n:1) v <- v * 10 + i
  v
}

empty_loop <- function(n) {
  s <- 0
  for (i in 1:n) s <- s + i
  s
}

nested_calls <- function(x) sumsq(x) + sumsq(2 * x)

mat_sum <- function(a, b) a + b * 2

widen <- function(n) {
  x <- 1L
  if (n > 0) x <- 2.5
  x
}

lgl_arg <- function(b) if (b) 1L else 0L

reverse <- function(x) x[length(x):1]

free_const <- function(x) x * SCALE

SCALE <- 3

if_value <- function(x) {
  y <- if (x > 1) 2L else 0.5
  z <- if (x > 5) {
    w <- x * 2
    w + 1
  } else x
  y + z
}

for_each <- function(x) {
  s <- 0
  for (v in x) {
    x[1] <- 1000
    s <- s * 2 + v
  }
  s
}

right_assign <- function(x) {
  x * 2 -> y
  m <- matrix(y, nrow = 2, ncol = length(x) / 2)
  m[[2, 1]] <- pi
  m
}

truthy <- function(x) {
  n <- 0L
  for (i in seq_along(x)) if ((x[i] > 0) == T) n <- n + 1L
  if (n > 1L || F) n else -n
}

int_matrix <- function(m) m * 2L + 1L

plane <- function(a, k) a[, , k]

rows_between <- function(m, a, b) m[a:b, ]

misc <- function(x, n) {
  y = -x
  z <- rep(x, 2)
  s <- 0L
  for (k in seq(1L, n, 2L)) s <- s + k
  c(y[[2]], sum(z), s, sum(!x), length(z))
}

cvec <- function(z) {
  w <- z * 2 - 1i
  c(sum(w), prod(z), mean(z), w[2] / z[1])
}

int_ops <- function(a, b) {
  c(a %/% b, a %% b, a / b, -a, abs(a - b), max(a, b), min(a, b))
}

more_builtins <- function(m, x) {
  c(any(x > 2), all(x > 0), rev(x), is.finite(x), colSums(m), rowSums(m), colMeans(m), rowMeans(m))
}

seq_values <- function(n) {
  v <- 1:n
  w <- seq_len(n) * 2L
  u <- n:1
  v + w - u
}

head_sum <- function(x, n = length(x) - 1L) sum(x[seq_len(n)])

twice <- function(v) v * 2L
two_specs <- function(x, k) c(twice(x), twice(k))

# Time stepping that rebinds its matrix argument (`u <- v`): a 2-D heat diffusion.
heat_steps <- function(u, steps) {
  n <- nrow(u)
  m <- ncol(u)
  for (s in seq_len(steps)) {
    v <- u
    for (j in 2:(m - 1)) {
      for (i in 2:(n - 1)) {
        v[i, j] <- u[i, j] + 0.1 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j])
      }
    }
    u <- v
  }
  u
}

# stop() with its message pasted from several strings; ifelse on scalars and arrays.
checked_sqrt <- function(x) {
  if (x < 0) stop("x must be ", "non-negative")
  sqrt(x)
}
clip_low <- function(x, lo) ifelse(x < lo, lo, x)
ifelse_mat <- function(m) ifelse(m > 2, m * 10, -m)
collatz_step <- function(x) ifelse(x %% 2L == 0L, x %/% 2L, 3L * x + 1L)
ifelse_scalar <- function(a, b) ifelse(a > b, a - b, 0.5)
ifelse_recycled <- function(x) ifelse(x > 0, c(1, 2), 0)

# Run-time recycling: a vector that holds one element at run time combines like R's
# length-1 operand; equal lengths element-wise; anything else raises.
recycle_one <- function(x, y) x * y + y
recycle_cmp <- function(x, y) sum(x > y)
recycle_mat <- function(m, v) m * v
recycle_int <- function(x, y) x + y
recycle_lgl <- function(x, y) x & !y
recycle_ifelse <- function(x, y) ifelse(x > 0, y, -y)
recycle_atan2 <- function(y, x) atan2(y, x)
recycle_inner <- function(x) {
  s <- x[2:2]
  x - s
}

# R's logical NA next to a double, or stored into a double vector, is NA_real_.
na_store <- function(x) {
  x[2] <- NA
  x
}
na_plus <- function(x) x + NA
na_compare <- function(x) x > NA

# seq() with length.out.
seq_lo <- function(a, b, n) seq(a, b, length.out = n)
seq_n <- function(n) seq(length.out = n)
seq_from_n <- function(a, n) seq(a, length.out = n)
seq_by_n <- function(a, b, n) seq(a, by = b, length.out = n)
seq_partial <- function(n) seq(0, 1, length = n)
seq_loop <- function(n) {
  s <- 0
  for (x in seq(0, 1, length.out = n)) s <- s * 2 + x
  s
}
na_branch <- function(x) ifelse(x > 0, x, NA)
na_branch_first <- function(x) ifelse(x > 0, NA, x * 2)

# Chained assignment: both names get the value, each its own copy.
chain_assign <- function(n) {
  w <- h <- n
  a = b = numeric(3)
  a[1] <- w
  b[2] <- h * 2
  c(a, b, w + h)
}
