stats_list <- function(x) {
  s <- sum(x)
  list(total = s, scaled = x * 2, n = length(x), nested = list(a = 1L, b = x[1]))
}

