seq_by_named <- function(from, to, by) seq(from, to, by = by)
