check_mod <- function(n, m) {
  stopifnot(n > 0, m %% 2 == 0)
  n + m
}

