each_one <- function(x) {
  s <- 0
  for (v in x) s <- s + v * 2
  s
}

