corners_below <- function(m, x, y, h) all(c(m[ceiling(x), ceiling(y)], m[floor(x), ceiling(y)],
                                            m[ceiling(x), floor(y)], m[floor(x), floor(y)]) < h)
