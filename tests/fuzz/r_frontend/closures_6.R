capture_read <- function(x, k) {
  scale <- function(v) v * k
  scale(x) + 1
}

