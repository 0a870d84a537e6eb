swap <- function(x, y) {
  l <- list(a = x, b = y)
  l <- list(a = l$b, b = l$a)
  c(l$a, l$b)
}

# A list argument written inside the callee is the callee's copy (R passes values).
