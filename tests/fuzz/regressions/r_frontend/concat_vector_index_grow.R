grow_values <- function(n) {
  x <- c()
 #for (i in 1:n) x <- c(x, i * 1.5)
  y <- x
  x[1] <- 100
  x <- c(x, x)
  c(sum(y), x[1], length(x), y[n], mean(x))
}

