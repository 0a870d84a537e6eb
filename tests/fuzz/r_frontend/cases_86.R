cube <- function(n) {
  a <- array(0, dim = c(2, 3, n))
  for (k in 1:n) a[2, 3, k] <- k
  a[1, 1, 1] <- 0.5
  c(sum(a), a[2, 3, n], length(a))
}

