more_builtins <- function(m, x) {
  c(any(x > 2), all(x > 0), rev(x), is.finite(x), colSums(m), rowSums(m), colMeans(m), rowMeans(m))
}

