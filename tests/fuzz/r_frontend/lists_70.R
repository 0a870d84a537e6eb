checked <- function(data) {
  stopifnot(data$n > 0)
  data$n * 2
}

# Cells of a data frame: one column by a constant name or position, rows any selection.
