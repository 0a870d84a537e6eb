modify_list <- function(d) {
  d$x[1] <- 100
  sum(d$x)
}

