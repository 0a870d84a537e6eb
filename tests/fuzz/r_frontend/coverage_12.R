loop_var_vector <- function(x) {
  out <- 0
  for (v in x) {
    v <- v * c(1, 2)
    out <- out + v
  }
  out
}

# A vector variable used as a condition and a count: length one at run time.
