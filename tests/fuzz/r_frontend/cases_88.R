builders <- function(n) {
  a <- numeric(n)
  b <- integer(n)
  l <- logical(n)
  r <- rep(1.5, n)
  a[1] <- 2
  b[n] <- 3L
  sum(a) + sum(b) + sum(l) + sum(r)
}

