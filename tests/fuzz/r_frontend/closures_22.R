sibling_calls <- function(x, k) {
  a <- function(v) v + k
  b <- function(v) a(v) * 2
  b(x)
}

