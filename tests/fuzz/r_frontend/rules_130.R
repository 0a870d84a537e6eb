vectors_of <- function(n) {
  a <- vector("double", n)
  b <- vector("integer", n)
  l <- vector("logical", n)
  d <- vector(mode = "numeric", length = n)
  a[1] <- 2.5
  c(sum(a), sum(b), length(l), length(d), sum(vector("complex", n) == 0))
}

