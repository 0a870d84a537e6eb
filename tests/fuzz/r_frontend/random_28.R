perm <- function(n) sample(n)
