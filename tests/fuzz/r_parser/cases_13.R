isub_vec <- function(x, y) x - y

