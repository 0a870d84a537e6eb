skip_odd <- function(n) {
  s <- 0
  for (i in 1:n) {
    if (i %% 2 == 1) next
    s <- s + i
  }
  s
}

