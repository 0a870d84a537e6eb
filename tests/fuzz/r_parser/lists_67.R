closure_reads_list <- function(data) {
  g <- function(i) data$x[i] * data$w
  s <- 0
  for (i in seq_along(data$x)) s <- s + g(i)
  s + sum(sapply(seq_along(data$x), function(i) data$x[i] + data$w))
}

# stopifnot on a list's element (R's message deparses `data$n`).
