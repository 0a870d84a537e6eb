pick_one <- function(x) sample(x, 1)
