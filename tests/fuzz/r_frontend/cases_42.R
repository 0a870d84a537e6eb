caller_keeps <- function(x) {
  y <- modify_arg(x)
  c(x[1], y[1])
}

