# R functions whose results R accumulates in long double (summary.c, cum.c, array.c),
# compiled and compared with R bit for bit by core/tests/frontend_r_longdouble.rs.

ld_sum <- function(x) sum(x)

ld_prod <- function(x) prod(x)

ld_mean <- function(x) mean(x)

ld_cumsum <- function(x) cumsum(x)

ld_cumprod <- function(x) cumprod(x)

ld_colsums <- function(m) colSums(m)

ld_rowsums <- function(m) rowSums(m)

ld_colmeans <- function(m) colMeans(m)

ld_rowmeans <- function(m) rowMeans(m)

# A reduction of an element-wise chain (the optimizer fuses the chain, keeping the
# long double accumulator).
ld_sum_chain <- function(x, y) sum(x * y + 1)

ld_mean_chain <- function(x, y) mean(x - 2 * y)

# A chain with a C math library call: on cpu-par, computed in parallel into an array
# and then folded when it has many elements (1e5 here), folded in place when few.
ld_sum_libm <- function(x, y) sum(sin(x) * y + 1)

# Several reductions of one vector, as statistics code writes them.
ld_stats <- function(x) {
  n <- length(x)
  m <- mean(x)
  c(sum(x), m, sum((x - m)^2) / (n - 1), prod(x[1:3]))
}

# R's own loop adds in double: compiled loops stay double.
ld_loop <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i]
  s
}
