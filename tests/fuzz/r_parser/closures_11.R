capture_copy <- function(x) {
  bump <- function() {
    x[1] <- 100
    sum(x)
  }
  s <- bump()
  c(s, x[1])
}

