callee_reads <- function() K * 2

