mix <- function(n) {
  a <- runif(n)
  b <- sample(n)
  e <- rexp(1)
  c(a, b, e)
}

