drop_first <- function(x) x[-1]

