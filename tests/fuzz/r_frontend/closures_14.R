capture_rebind <- function(a) {
  g <- function() {
    a <- a + 1
    a
  }
  c(g(), a)
}

