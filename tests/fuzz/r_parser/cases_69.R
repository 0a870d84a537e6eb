count_up <- function(n) {
  s <- 0L
  for (i in 1:n) s <- s + i
  s
}

