updates <- function(v, w, n) {
  for (k in 1:n) {
    v <- v + w * 0.5
    w <- w - v / 4
  }
  v * w
}

# Integer vectors: overflow gives NA in R, an error compiled.
