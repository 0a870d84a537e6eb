perm_x <- function(x) sample(x)
