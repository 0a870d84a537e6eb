for_each <- function(x) {
  s <- 0
  for (v in x) {
    x[1] <- 1000
    s <- s * 2 + v
  }
  s
}

