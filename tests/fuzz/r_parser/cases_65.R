maths <- function(x) {
  c(sqrt(x[1]), exp(x[2]), log(x[3]), sin(x[1]), cos(x[2]), tan(x[3]),
    atan2(x[1], x[2]), floor(x[4]), ceiling(x[4]), round(x[4]), trunc(x[4]), abs(x[5]))
}

