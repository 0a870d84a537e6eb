seq_by_value <- function(from, to, by) seq(from, to, by)
