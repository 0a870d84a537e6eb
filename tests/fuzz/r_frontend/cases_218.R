chain_assign <- function(n) {
  w <- h <- n
  a = b = numeric(3)
  a[1] <- w
  b[2] <- h * 2
  c(a, b, w + h)
}
