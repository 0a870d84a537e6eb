gather(x) = x[[3, 1]]

