from_helper <- function(x) {
  r <- stats_list(x)
  r$total + r$nested$b + r[["n"]]
}

