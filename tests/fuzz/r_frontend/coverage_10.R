arg_becomes_vector <- function(x) {
  x <- x * c(1, 10, 100)
  sum(x)
}

# The loop variable assigned a vector in the body.
