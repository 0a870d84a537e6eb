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
