capture_late <- function(x) {
  shift <- function(v) v + offset
  offset <- 100
  shift(x)
}

