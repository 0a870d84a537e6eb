local_list <- function(x) {
  l <- list(a = x, b = 2, c = 3L)
  l$a[1] <- 10
  l$b <- l$b + 1
  l[["c"]] <- l[["c"]] * 2L
  helper_sum(l) + l$b + l$c
}

