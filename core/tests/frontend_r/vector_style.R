# R's vector style (issue 18 part 2): chains of vector operations, inside loops and out,
# whose recycling guards `recycle-version` removes or versions. Each runs in R and
# compiled (core/tests/frontend_r_vector_style.rs); arguments of equal lengths take the
# versioned path, a length-1 operand and unequal lengths the path as written.

# The issue's example: d and r2 die in the iteration.
nbody_vec <- function(x, m, eps) {
  n <- length(x)
  f <- numeric(n)
  for (k in 1:n) {
    d <- x - x[k]
    r2 <- d * d + eps
    f[k] <- sum(m * d / (r2 * sqrt(r2)))
  }
  f
}

# A chain over three vectors, its result summed.
chain3 <- function(x, y, z) {
  a <- x * y
  b <- a + z
  c <- b / (y + 1)
  sum(c * x)
}

# A chain whose vectors are reassigned between the operations.
reassigned <- function(x, y) {
  x <- x * 2
  y <- y + x
  x <- y - x
  x * y
}

# Slices (their lengths are known only when they exist), as rosen_der in vector style.
slices <- function(x) {
  n <- length(x)
  xm <- x[1:(n - 2)]
  xi <- x[2:(n - 1)]
  xp <- x[3:n]
  der <- numeric(n)
  der[2:(n - 1)] <- 200 * (xi - xm * xm) - (400 * (xp - xi * xi)) * xi - 2 * (1 - xi)
  der
}

# A loop in which one operand changes length from one iteration to the next.
growing <- function(x, n) {
  s <- 0
  for (k in 1:n) {
    y <- x[1:k]
    z <- y * y + y
    s <- s + sum(z / k)
  }
  s
}

# A vector updated across iterations (live after the iteration), with a second one.
updates <- function(v, w, n) {
  for (k in 1:n) {
    v <- v + w * 0.5
    w <- w - v / 4
  }
  v * w
}

# Integer vectors: overflow gives NA in R, an error compiled.
int_chain <- function(a, b) {
  c <- a + b
  d <- c * a
  d - b
}

# ifelse over a chain (black_scholes' cnd in vector style).
cnd_vec <- function(d) {
  k <- 1 / (1 + 0.2316419 * abs(d))
  r <- (0.3989422804014327 * exp((-0.5 * d) * d)) *
    (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
  ifelse(d > 0, 1 - r, r)
}

# A row times a column, summed, per element (matmul in vector style).
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

# A vector kept from an earlier iteration (prev shares d's first buffer): d must not be
# written in place while prev is still read.
kept <- function(x, n) {
  prev <- numeric(length(x))
  s <- 0
  for (k in 1:n) {
    d <- x * k
    if (k == 1) prev <- d
    s <- s + sum(d)
  }
  prev * s
}

# A scalar operand computed from the loop index, and one that fails (x[k] past the end).
scalar_operand <- function(x, n) {
  s <- 0
  for (k in 1:n) {
    d <- x - x[k] * 2
    s <- s + sum(d)
  }
  s
}

# A long chain whose vectors are read several times (st, sp, temp): the shared
# temporaries' trees would grow past fusion's limit, which stops the row inside an
# earlier fused statement (arc_distance in vector style).
arc_vec <- function(theta_1, phi_1, theta_2, phi_2) {
  st <- sin((theta_2 - theta_1) / 2)
  sp <- sin((phi_2 - phi_1) / 2)
  temp <- st * st + (cos(theta_1) * cos(theta_2)) * (sp * sp)
  2 * atan2(sqrt(temp), sqrt(1 - temp))
}

# Index vectors named once and used as subscripts (stencil5 in vector style): `seq-ranges`
# reads `a[I, J - 1]` as a slice. With m = 2, `2:(m - 1)` counts down (c(2, 1)).
seq_stencil <- function(a) {
  m <- nrow(a)
  n <- ncol(a)
  b <- matrix(0, m, n)
  I <- 2:(m - 1)
  J <- 2:(n - 1)
  b[I, J] <- 0.2 * (a[I, J] + a[I, J - 1] + a[I, J + 1] + a[I - 1, J] + a[I + 1, J])
  b
}

# A sequence that reaches 0 (k = 0: c(2, 1, 0), R drops the 0) or past the rows.
seq_rows <- function(a, k) {
  I <- 2:k
  b <- a[I, 1]
  sum(b) + sum(a[I + 1, 2])
}

# The sequence changed after its fill, through itself and through a copy: no range.
seq_changed <- function(a, k) {
  I <- 1:k
  I[1] <- 3L
  J <- 1:k
  K <- J
  K[2] <- 1L
  sum(a[I, 1]) + sum(a[J, 2]) + sum(a[K, 1])
}
