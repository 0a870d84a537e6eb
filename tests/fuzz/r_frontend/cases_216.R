na_branch_first <- function(x) ifelse(x > 0, NA, x * 2)

# Chained assignment: both names get the value, each its own copy.
