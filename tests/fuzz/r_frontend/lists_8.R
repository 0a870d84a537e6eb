pick <- function(data) {
  a <- data[[1]]
  b <- data[["b"]]
  c(sum(a), b, data$inner$k * 2, data[[3]][[1]], length(data$inner))
}

# A data frame as a list of columns; its character column is never read.
