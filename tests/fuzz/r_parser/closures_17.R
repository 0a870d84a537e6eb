recursive_capture <- function(n, step) {
  down <- function(k) if (k <= 0) 0 else k + down(k - step)
  down(n)
}

