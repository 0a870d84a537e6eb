drop_row <- function(m) m[-1, ]

