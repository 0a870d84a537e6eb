positive_first <- function(x) {
  if (x[1] > 0) 1 else -1
}

