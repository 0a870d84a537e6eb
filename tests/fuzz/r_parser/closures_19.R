nested_inner <- function(x, k) {
  outer_fn <- function(v) {
    inner_fn <- function(w) w + k
    inner_fn(v) * 2
  }
  outer_fn(x)
}

