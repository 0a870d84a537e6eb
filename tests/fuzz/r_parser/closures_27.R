inner_default <- function(x) {
  pow <- function(v, e = 2) v^e
  pow(x) + pow(x, 3)
}

